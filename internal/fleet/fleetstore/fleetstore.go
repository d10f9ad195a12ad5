// Package fleetstore keeps the managed-resource scheduler's memory and event
// log in almanac's store: [Ledger] implements fleet.Ledger over
// store.ResourceStore (transition claims under a UNIQUE key, the evaluation
// checkpoint, the observed inventory) and [Events] implements
// fleet.EventSink over the store's event log, as kinds "resource.<kind>".
package fleetstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/store"
)

// Ledger is a fleet.Ledger over a store. Its writes carry the term Term
// returns (the daemon's leadership term; nil means 0, never fenced), so a
// node that lost leadership cannot claim transitions or move the checkpoint.
type Ledger struct {
	Store store.ResourceStore
	Term  func() int64
}

var _ fleet.Ledger = (*Ledger)(nil)

func (l *Ledger) term() int64 {
	if l.Term == nil {
		return 0
	}
	return l.Term()
}

// ClaimTransition implements fleet.Ledger: an insert under the (resource,
// instant) key; a duplicate means the transition was claimed before.
func (l *Ledger) ClaimTransition(ctx context.Context, id string, at time.Time, a fleet.Action) (bool, error) {
	err := l.Store.ResourceClaimTransition(ctx, store.ResourceClaimParams{
		Claim: store.ResourceClaim{ResourceID: id, At: at, Action: string(a)},
		Term:  l.term(),
	})
	if errors.Is(err, store.ErrDuplicate) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// Checkpoint implements fleet.Ledger.
func (l *Ledger) Checkpoint(ctx context.Context) (time.Time, error) {
	return l.Store.ResourceCheckpoint(ctx)
}

// SetCheckpoint implements fleet.Ledger.
func (l *Ledger) SetCheckpoint(ctx context.Context, t time.Time) error {
	return l.Store.ResourceSetCheckpoint(ctx, store.ResourceCheckpointParams{At: t, Term: l.term()})
}

// LoadInventory implements fleet.Ledger.
func (l *Ledger) LoadInventory(ctx context.Context) (map[string]fleet.Observed, error) {
	recs, err := l.Store.ResourceInventory(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]fleet.Observed, len(recs))
	for _, r := range recs {
		var o fleet.Observed
		if err := json.Unmarshal(r.Data, &o); err != nil {
			return nil, fmt.Errorf("saved resource %s: %w", r.ID, err)
		}
		if o.Resource.ID != r.ID {
			return nil, fmt.Errorf("saved resource %s: record holds resource %q", r.ID, o.Resource.ID)
		}
		out[r.ID] = o
	}
	return out, nil
}

// SaveInventory implements fleet.Ledger.
func (l *Ledger) SaveInventory(ctx context.Context, inv map[string]fleet.Observed) error {
	recs := make([]store.ResourceRecord, 0, len(inv))
	for _, o := range inv {
		r, err := record(o)
		if err != nil {
			return err
		}
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b store.ResourceRecord) int { return cmp.Compare(a.ID, b.ID) })
	return l.Store.ResourceSaveInventory(ctx, store.ResourceInventoryParams{Records: recs, Term: l.term()})
}

// SaveObserved implements fleet.Ledger.
func (l *Ledger) SaveObserved(ctx context.Context, o fleet.Observed) error {
	r, err := record(o)
	if err != nil {
		return err
	}
	return l.Store.ResourceSave(ctx, store.ResourceSaveParams{Record: r, Term: l.term()})
}

func record(o fleet.Observed) (store.ResourceRecord, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return store.ResourceRecord{}, fmt.Errorf("encode resource %s: %w", o.Resource.ID, err)
	}
	return store.ResourceRecord{ID: o.Resource.ID, Data: b}, nil
}

// EventAppender is the part of the store Events writes to.
type EventAppender interface {
	EventAppend(ctx context.Context, events ...store.Event) error
}

// Events is a fleet.EventSink writing to the store's event log. Each event
// becomes kind "resource.<kind>" with the resource id in Resource and the
// details (name, key, value, old value, state, action, transition,
// attempt) as a JSON object in Data. A failed write is logged, not retried:
// the scheduler must not stall on its log.
type Events struct {
	Store  EventAppender
	Logger *slog.Logger // nil discards
}

var _ fleet.EventSink = (*Events)(nil)

// Data is the JSON object a managed-resource event carries.
type Data struct {
	Name       string       `json:"name,omitempty"`
	Key        string       `json:"key,omitempty"`
	Value      string       `json:"value,omitempty"`
	OldValue   string       `json:"old_value,omitempty"`
	State      fleet.State  `json:"state,omitempty"`
	OldState   fleet.State  `json:"old_state,omitempty"`
	Action     fleet.Action `json:"action,omitempty"`
	Transition *time.Time   `json:"transition,omitempty"`
	Attempt    int          `json:"attempt,omitempty"`
}

// Record implements fleet.EventSink.
func (e *Events) Record(ctx context.Context, ev fleet.Event) {
	se := ToStore(ev)
	if err := e.Store.EventAppend(ctx, se); err != nil && e.Logger != nil {
		e.Logger.WarnContext(ctx, "cannot write resource event", "kind", se.Kind, "resource", ev.Resource, "message", ev.Message, "err", err)
	}
}

// ToStore converts a scheduler event to an event-log entry.
func ToStore(ev fleet.Event) store.Event {
	d := Data{Name: ev.Name, Key: ev.Key, Value: ev.Value, OldValue: ev.OldValue, State: ev.State,
		OldState: ev.OldState, Action: ev.Action, Attempt: ev.Attempt}
	if !ev.Transition.IsZero() {
		t := ev.Transition
		d.Transition = &t
	}
	se := store.Event{Time: ev.Time, Kind: store.EventKind(store.ResourceEventPrefix + string(ev.Kind)),
		Resource: ev.Resource, Message: ev.Message}
	if d != (Data{}) {
		se.Data, _ = json.Marshal(d) // plain strings and numbers cannot fail
	}
	return se
}

// FromStore converts an event-log entry written by Events back to a
// scheduler event; ok is false for other entries.
func FromStore(se store.Event) (ev fleet.Event, ok bool) {
	kind, ok := strings.CutPrefix(string(se.Kind), store.ResourceEventPrefix)
	if !ok || kind == "" {
		return fleet.Event{}, false
	}
	ev = fleet.Event{Time: se.Time, Kind: fleet.EventKind(kind), Resource: se.Resource, Message: se.Message}
	var d Data
	if len(se.Data) > 0 && json.Unmarshal(se.Data, &d) == nil {
		ev.Name, ev.Key, ev.Value, ev.OldValue = d.Name, d.Key, d.Value, d.OldValue
		ev.State, ev.OldState, ev.Action, ev.Attempt = d.State, d.OldState, d.Action, d.Attempt
		if d.Transition != nil {
			ev.Transition = *d.Transition
		}
	}
	return ev, true
}
