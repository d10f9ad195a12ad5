package agent

import (
	"context"
	"time"
)

// TriggerKind says why an apply ran.
type TriggerKind string

// The reasons an apply runs.
const (
	TriggerStartup  TriggerKind = "startup"  // the agent started
	TriggerInterval TriggerKind = "interval" // the run interval elapsed
	TriggerSchedule TriggerKind = "schedule" // a gate opened for a resource that is due
	TriggerManifest TriggerKind = "manifest" // the manifests changed
	TriggerManual   TriggerKind = "manual"   // someone asked (API, CLI)
	TriggerLeader   TriggerKind = "leader"   // this node took over the applies of its cluster
)

// Trigger is why an apply ran.
type Trigger struct {
	Kind TriggerKind `json:"kind"`
	// Schedule names the schedule whose opening caused a TriggerSchedule
	// apply (several, comma-separated, if they opened at the same instant).
	Schedule string `json:"schedule,omitempty"`
	// Resources are the due resources that schedule holds back.
	Resources []string `json:"resources,omitempty"`
	// Reason is free text: who asked for a manual apply, which file changed.
	Reason string `json:"reason,omitempty"`
	// At is when the trigger fired (for a gate: the instant it opened).
	At time.Time `json:"at"`
	// Coalesced counts the further triggers that arrived while this one was
	// waiting for a running apply to finish and were folded into it.
	Coalesced int `json:"coalesced,omitempty"`
}

// String describes the trigger in a few words, e.g. "schedule maint".
func (t Trigger) String() string {
	switch {
	case t.Kind == TriggerSchedule && t.Schedule != "":
		return "schedule " + t.Schedule
	case t.Reason != "":
		return string(t.Kind) + ": " + t.Reason
	}
	return string(t.Kind)
}

// Resource statuses in a report.
const (
	StatusUnchanged = "unchanged" // evaluated, in sync
	StatusChanged   = "changed"   // something was changed (or refreshed)
	StatusFailed    = "failed"    // evaluation, a change or a refresh failed
	StatusSkipped   = "skipped"   // not evaluated; Reason says why
	StatusNoop      = "noop"      // out of sync, but noop kept it as it was
)

// ResourceStatus is what happened to one resource in an apply.
type ResourceStatus struct {
	Ref string `json:"ref"`
	// Schedule is the schedule gating the resource, if any.
	Schedule string `json:"schedule,omitempty"`
	// Status is one of the Status* constants.
	Status string `json:"status"`
	// Reason explains a skip ("not scheduled", "failed dependencies: ...")
	// or a failure.
	Reason string `json:"reason,omitempty"`
	// Refreshed is true when the resource's refresh ran.
	Refreshed bool `json:"refreshed,omitempty"`
	// EventsDropped is true when refresh events queued for the resource
	// were discarded because it was skipped (a closed gate drops them, as
	// in Puppet); Reason says so too.
	EventsDropped bool `json:"events_dropped,omitempty"`
	// NextOpening is, for a gated resource, when its gate next lets it run
	// (computed after the apply); nil if it never does.
	NextOpening *time.Time `json:"next_opening,omitempty"`
}

// Event is one log line of an apply, in Puppet's terms.
type Event struct {
	Time    time.Time `json:"time"`
	Level   string    `json:"level"`            // Debug, Info, Notice, Warning, Error
	Source  string    `json:"source,omitempty"` // a resource ref, maybe "/property"
	Message string    `json:"message"`
}

// Warning flags a resource the agent cannot apply as its schedule intends.
type Warning struct {
	Ref      string `json:"ref"`
	Schedule string `json:"schedule"`
	Message  string `json:"message"`
}

// Summary counts a report's resources.
type Summary struct {
	Resources int `json:"resources"`
	Changed   int `json:"changed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Refreshed int `json:"refreshed"`
	Noop      int `json:"noop"`
	Warnings  int `json:"warnings"`
}

// Report is the record of one apply.
type Report struct {
	// ID is assigned by the StateStore; increasing, so newer reports have
	// larger ids.
	ID      int64     `json:"id"`
	Host    string    `json:"host,omitempty"`
	Trigger Trigger   `json:"trigger"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	// Status is Puppet's report status: "unchanged", "changed" or "failed"
	// (an aborted apply, or any failed resource).
	Status string `json:"status"`
	// ExitCode is what `almanac apply --detailed-exitcodes` would exit with:
	// 0 nothing to do, 2 changes, 4 failures, 6 both, 1 the apply could not
	// run at all (compile error, cycle, abort).
	ExitCode int `json:"exit_code"`
	// Error is why the apply could not run or stopped, if it did.
	Error     string           `json:"error,omitempty"`
	Summary   Summary          `json:"summary"`
	Resources []ResourceStatus `json:"resources,omitempty"`
	Events    []Event          `json:"events,omitempty"`
	Warnings  []Warning        `json:"warnings,omitempty"`

	// Gated lists the catalog's gated resources with their schedules, for
	// the agent to compute the next wake-up. It is not stored.
	Gated []GatedResource `json:"-"`
}

// Finish fills Summary and Status from Resources, Warnings, Error and
// ExitCode. Appliers call it before returning; the agent calls it again after
// adding warnings.
func (r *Report) Finish() {
	s := Summary{Resources: len(r.Resources), Warnings: len(r.Warnings)}
	for _, rs := range r.Resources {
		switch rs.Status {
		case StatusChanged:
			s.Changed++
		case StatusFailed:
			s.Failed++
		case StatusSkipped:
			s.Skipped++
		case StatusNoop:
			s.Noop++
		}
		if rs.Refreshed {
			s.Refreshed++
		}
	}
	r.Summary = s
	if r.Error != "" {
		r.ExitCode = 1
	} else {
		r.ExitCode = 0
		if s.Changed > 0 {
			r.ExitCode |= 2
		}
		if s.Failed > 0 {
			r.ExitCode |= 4
		}
	}
	switch {
	case r.ExitCode == 1 || s.Failed > 0:
		r.Status = StatusFailed
	case s.Changed > 0:
		r.Status = StatusChanged
	default:
		r.Status = StatusUnchanged
	}
}

// Gate is a schedule that can tell when it next opens; *puppetsched.Schedule
// implements it.
type Gate interface {
	// NextMatch returns the first instant >= t at which a resource last
	// checked at lastChecked may be applied, or false if there is none.
	NextMatch(lastChecked, t time.Time) (time.Time, bool)
}

// GatedResource is a resource held back by a schedule.
type GatedResource struct {
	Ref      string
	Schedule string
	Gate     Gate
	// Period is the schedule's period (hourly = 1h, daily = 24h, weekly,
	// monthly = 30 days), or 0 if it has none. A gate whose next opening is
	// more than a period away makes the resource miss a period: a warning.
	Period time.Duration
}

// ResourceState is what the agent remembers about one resource between
// applies: when it was last checked (evaluated) and last synced (changed).
// Schedules match against Checked. Zero means never.
type ResourceState struct {
	Checked time.Time `json:"checked,omitzero"`
	Synced  time.Time `json:"synced,omitzero"`
}

// State maps resource refs to their state.
type State map[string]ResourceState

// Clone returns a copy of s.
func (s State) Clone() State {
	c := make(State, len(s))
	for k, v := range s {
		c[k] = v
	}
	return c
}

// Request is one apply to perform.
type Request struct {
	Trigger Trigger
	// State is the resource state before the apply; the applier updates it
	// in place (it is the agent's copy, saved after the apply).
	State State
}

// Applier performs one apply of the catalog and reports what it did. It
// returns an error only when no report could be made at all; an apply that
// ran and failed (compile error, cycle, failed resources) is a report with
// Error and ExitCode set.
type Applier interface {
	Apply(ctx context.Context, req Request) (*Report, error)
}

// ApplierFunc adapts a function to [Applier].
type ApplierFunc func(ctx context.Context, req Request) (*Report, error)

// Apply calls f.
func (f ApplierFunc) Apply(ctx context.Context, req Request) (*Report, error) { return f(ctx, req) }
