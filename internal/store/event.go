package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
)

// EventKind classifies events.
type EventKind string

// Event kinds written by the job controller and the API.
const (
	EventJobCreated   EventKind = "job.created"
	EventJobUpdated   EventKind = "job.updated"
	EventJobDeleted   EventKind = "job.deleted"
	EventJobSuspended EventKind = "job.suspended"
	EventJobResumed   EventKind = "job.resumed"
	EventRunScheduled EventKind = "run.scheduled"
	EventRunStarted   EventKind = "run.started"
	EventRunSucceeded EventKind = "run.succeeded"
	EventRunFailed    EventKind = "run.failed"
	EventRunRetry     EventKind = "run.retry"
	EventRunKilled    EventKind = "run.killed"
	EventRunMissed    EventKind = "run.missed"
	EventRunLost      EventKind = "run.lost"
	// EventClockStepped: the wall clock stepped back (clock steps,
	// docs/jobs.md).
	EventClockStepped EventKind = "clock.stepped"
	EventRunSkipped   EventKind = "run.skipped"
	EventNotifySent   EventKind = "notify.sent"
	EventNotifyFailed EventKind = "notify.failed"
	EventJobOverdue   EventKind = "job.overdue"
	// EventJobGateMissing: a job's schedule gate stopped existing (the
	// manifests no longer declare it).
	EventJobGateMissing EventKind = "job.gate-missing"
	// EventJobUnrunnable: a manifest job was accepted that cannot run on
	// this host as it stands (its run_as user does not exist here).
	EventJobUnrunnable EventKind = "job.unrunnable"
	// FleetLock reboot slots (Resource is "reboot-group/NAME").
	EventRebootLocked   EventKind = "reboot.locked"
	EventRebootUnlocked EventKind = "reboot.unlocked"
	EventRebootHeldLong EventKind = "reboot.held-long"
	// EventNodeLabels: a node started with other labels than it last
	// had (Resource is "node/NAME"; Data holds "labels" and "previous").
	EventNodeLabels EventKind = "node.labels"
	// EventWavePaused and EventWaveResumed: an operator paused or resumed
	// a job's rolling waves; EventWaveStopped: a wave reached its
	// max_failures and its waiting nodes were skipped.
	EventWavePaused  EventKind = "wave.paused"
	EventWaveResumed EventKind = "wave.resumed"
	EventWaveStopped EventKind = "wave.stopped"
	// EventTokenCreated and EventTokenRevoked: an admin created or
	// revoked a named API token (Resource is "token/NAME").
	EventTokenCreated EventKind = "token.created"
	EventTokenRevoked EventKind = "token.revoked"
	// EventDaemonReloaded: a SIGHUP applied changed settings (Resource is
	// "node/NAME"; Data holds "applied" and "restart", setting keys).
	EventDaemonReloaded EventKind = "daemon.reloaded"
)

// Event is one entry of the append-only log.
type Event struct {
	ID   int64
	Time time.Time
	Kind EventKind
	// Job is the job the event is about, if any.
	Job string
	// Resource names another subject (a managed resource, a node), if any.
	Resource string
	// RunID is the run the event is about, if any.
	RunID   int64
	Message string
	// Data holds kind-specific details as a JSON object, or nil.
	Data json.RawMessage
	// Actor, Via and Remote say who caused the event, how and from where
	// (see package audit); empty for what the daemon does on its own. A
	// backend fills them from the writing context's audit.Actor when the
	// caller leaves Actor empty (see StampActor).
	Actor, Via, Remote string
}

// StampActor fills e's Actor, Via and Remote from the audit actor ctx
// carries, unless e names its own actor. Backends call it on every event
// they write.
func StampActor(ctx context.Context, e *Event) {
	if e.Actor != "" {
		return
	}
	if a, ok := audit.From(ctx); ok {
		e.Actor, e.Via, e.Remote = a.Name, a.Via, a.Remote
	}
}

// EventListParams filters an event listing (newest first).
type EventListParams struct {
	Job   string      // empty = all
	Kinds []EventKind // empty = all
	// Resource selects the events about one managed resource (the Resource
	// field); empty = all.
	Resource string
	// Actor selects the events caused by one actor (a token's name,
	// "manifest:FILE"); empty = all.
	Actor string
	// JobPrefix, if set, selects only events about jobs whose names start
	// with it (events about no job are left out).
	JobPrefix string
	// Since and Until select events at or after Since and before Until;
	// zero = unbounded.
	Since, Until time.Time
	Page
}

// EventPruneParams bounds the event log: EventPrune deletes the events
// older than Before and those beyond the Keep newest. A zero field sets no
// bound of its kind; both zero deletes nothing.
type EventPruneParams struct {
	Before time.Time
	Keep   int
}

// EventRunFinished returns the event kind recording a run reaching state s.
func EventRunFinished(s RunState) EventKind {
	switch s {
	case RunSucceeded:
		return EventRunSucceeded
	case RunKilled:
		return EventRunKilled
	case RunMissed:
		return EventRunMissed
	case RunLost:
		return EventRunLost
	default:
		return EventRunFailed
	}
}
