package store

import (
	"context"
	"encoding/json"
	"time"
)

// Managed resources (machines started and stopped on tag schedules, package
// fleet) need three things from the store, all behind ResourceStore:
//
//   - Transition claims: one row per (resource id, transition instant),
//     inserted under a UNIQUE key before the scheduler acts, so each
//     transition is acted on at most once however many times the scheduler
//     ticks, restarts or runs on another node. A second claim of the same key
//     fails with ErrDuplicate.
//   - A checkpoint: the instant up to which transitions have been evaluated,
//     so a restarted scheduler applies only the transitions it missed.
//   - The observed inventory: what the last inventory saw of each resource
//     (tags, state, when the schedule was first seen), so tag and state
//     changes are diffed across restarts. Each record is an opaque JSON
//     document the scheduler defines; the store keeps it byte for byte.
//
// Writes carry the leadership term like the job controller's: a multi-node
// backend refuses a stale term with ErrStaleTerm; 0 is never fenced.

// Event kinds of managed resources are "resource." followed by the
// scheduler's own kind ("resource.action-started", "resource.tag-added");
// the event's Resource field holds the resource id.
const ResourceEventPrefix = "resource."

// ResourceClaim is one claimed transition.
type ResourceClaim struct {
	ResourceID string
	// At is the transition instant.
	At time.Time
	// Action is what was decided: start, stop or hibernate.
	Action    string
	ClaimedAt time.Time
}

// ResourceRecord is one resource of the saved inventory.
type ResourceRecord struct {
	ID string
	// Data is the scheduler's JSON document for the resource.
	Data      json.RawMessage
	UpdatedAt time.Time
}

// ResourceClaimParams claims a transition.
type ResourceClaimParams struct {
	Claim  ResourceClaim
	Term   int64
	Events []Event
}

// ResourceCheckpointParams records the evaluation checkpoint, a reading of
// the scheduler's clock, stored as given.
type ResourceCheckpointParams struct {
	At   time.Time
	Term int64
}

// ResourceInventoryParams replaces the whole saved inventory.
type ResourceInventoryParams struct {
	Records []ResourceRecord
	Now     time.Time
	Term    int64
	Events  []Event
}

// ResourceSaveParams inserts or replaces one resource of the saved inventory.
type ResourceSaveParams struct {
	Record ResourceRecord
	Now    time.Time
	Term   int64
	Events []Event
}

// ResourceClaimListParams filters a claim listing (newest instant first).
type ResourceClaimListParams struct {
	// ResourceID restricts to one resource; empty = all.
	ResourceID string
	// Limit caps the rows; 0 means 100, more than 1000 means 1000.
	Limit int
}

// ResourceStore is the managed-resource part of the store contract.
type ResourceStore interface {
	// ResourceClaimTransition inserts a claim; ErrDuplicate when (resource
	// id, instant) was claimed before.
	ResourceClaimTransition(ctx context.Context, p ResourceClaimParams) error
	// ResourceClaims lists claims, newest transition first.
	ResourceClaims(ctx context.Context, p ResourceClaimListParams) ([]ResourceClaim, error)
	// ResourceCheckpoint returns the evaluation checkpoint; zero when never set.
	ResourceCheckpoint(ctx context.Context) (time.Time, error)
	// ResourceSetCheckpoint records the evaluation checkpoint.
	ResourceSetCheckpoint(ctx context.Context, p ResourceCheckpointParams) error
	// ResourceInventory returns the saved inventory ordered by id.
	ResourceInventory(ctx context.Context) ([]ResourceRecord, error)
	// ResourceSaveInventory replaces the saved inventory in one transaction.
	ResourceSaveInventory(ctx context.Context, p ResourceInventoryParams) error
	// ResourceSave inserts or replaces one resource of the saved inventory.
	ResourceSave(ctx context.Context, p ResourceSaveParams) error
}
