package fleet

import (
	"context"
	"sync"
	"time"
)

// EventKind classifies an event-log entry.
type EventKind string

// The event kinds the scheduler emits.
const (
	EventResourceAdded     EventKind = "resource-added"     // first seen by an inventory
	EventResourceRemoved   EventKind = "resource-removed"   // no longer listed
	EventTagAdded          EventKind = "tag-added"          // a schedule tag appeared
	EventTagUpdated        EventKind = "tag-updated"        // a schedule tag changed value
	EventTagRemoved        EventKind = "tag-removed"        // a schedule tag disappeared (or became empty)
	EventStateChanged      EventKind = "state-changed"      // state changed outside almanac
	EventValidationError   EventKind = "validation-error"   // a tag error; no action until fixed
	EventValidationWarning EventKind = "validation-warning" // a tag warning; actions continue
	EventActionStarted     EventKind = "action-started"     // first attempt of a transition's action
	EventActionSucceeded   EventKind = "action-succeeded"
	EventActionRetried     EventKind = "action-retried" // an attempt failed; another follows
	EventActionFailed      EventKind = "action-failed"  // the last attempt failed; retries exhausted
	EventActionSkipped     EventKind = "action-skipped" // a transition not acted on, with the reason
	EventNotificationSent  EventKind = "notification-sent"
	EventNotificationError EventKind = "notification-failed"
	EventInventoryFailed   EventKind = "inventory-failed"
)

// Event is one entry of the managed-resource event log.
type Event struct {
	Time     time.Time `json:"time"`
	Kind     EventKind `json:"kind"`
	Resource string    `json:"resource,omitempty"` // resource id
	Name     string    `json:"name,omitempty"`
	// Key, Value and OldValue describe a tag event or validation finding.
	Key      string `json:"key,omitempty"`
	Value    string `json:"value,omitempty"`
	OldValue string `json:"old_value,omitempty"`
	// State and OldState describe a state change.
	State    State `json:"state,omitempty"`
	OldState State `json:"old_state,omitempty"`
	// Action, Transition and Attempt describe an action: the scheduled
	// instant it belongs to and the 1-based attempt number.
	Action     Action    `json:"action,omitempty"`
	Transition time.Time `json:"transition,omitzero"`
	Attempt    int       `json:"attempt,omitempty"`
	// Message is a one-line human-readable description.
	Message string `json:"message"`
}

// EventSink receives the scheduler's events in the order they happen. The
// daemon's event log implements it; Record must not block for long.
type EventSink interface {
	Record(ctx context.Context, e Event)
}

// MemoryLog is an EventSink that keeps the most recent events in memory.
type MemoryLog struct {
	mu     sync.Mutex
	max    int
	events []Event
}

// NewMemoryLog returns a log keeping at most max events (0 = unbounded).
func NewMemoryLog(max int) *MemoryLog { return &MemoryLog{max: max} }

// Record appends e, dropping the oldest event when full.
func (l *MemoryLog) Record(_ context.Context, e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	if l.max > 0 && len(l.events) > l.max {
		l.events = append(l.events[:0], l.events[len(l.events)-l.max:]...)
	}
}

// Events returns the events in the order recorded, optionally only those of
// one resource (id "" = all).
func (l *MemoryLog) Events(id string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for _, e := range l.events {
		if id == "" || e.Resource == id {
			out = append(out, e)
		}
	}
	return out
}

// Newest returns the events newest first, as the event log shows them.
func (l *MemoryLog) Newest(id string) []Event {
	ev := l.Events(id)
	for i, j := 0, len(ev)-1; i < j; i, j = i+1, j-1 {
		ev[i], ev[j] = ev[j], ev[i]
	}
	return ev
}
