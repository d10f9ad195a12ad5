package apitype

import "time"

// ApplyRequest is the optional body of POST /api/v1/applies.
type ApplyRequest struct {
	// Reason is recorded in the report's trigger ("deploy 42").
	Reason string `json:"reason,omitempty"`
}

// ApplyQueued is the answer to POST /api/v1/applies (202 Accepted): the
// apply starts as soon as the agent is free.
type ApplyQueued struct {
	// Queued is false when the request joined an apply already waiting.
	Queued bool        `json:"queued"`
	Agent  AgentStatus `json:"agent"`
}

// ApplyList is the answer to GET /api/v1/applies: reports newest first,
// without their resources and events.
type ApplyList struct {
	Items    []ApplyReport `json:"items"`
	NextPage string        `json:"next_page,omitempty"`
	Agent    AgentStatus   `json:"agent"`
}

// AgentStatus is what agent mode is doing now.
type AgentStatus struct {
	Host     string        `json:"host"`
	Interval time.Duration `json:"interval"`
	Splay    time.Duration `json:"splay"`
	// Running is the apply in progress; Pending the follow-up waiting for it.
	Running *ApplyTrigger `json:"running,omitempty"`
	Pending *ApplyTrigger `json:"pending,omitempty"`
	// NextInterval is when the next interval apply is due.
	NextInterval *time.Time `json:"next_interval,omitempty"`
	// NextGate is the next schedule opening the agent will wake for.
	NextGate *ApplyTrigger `json:"next_gate,omitempty"`
	// Last summarises the latest report.
	Last *ApplyReport `json:"last,omitempty"`
	// Standby is true on a cluster node that does not lead: it applies
	// nothing; the leader applies for the cluster.
	Standby bool `json:"standby,omitempty"`
	// Term is the cluster term this node leads in (0 when alone).
	Term int64 `json:"term,omitempty"`
}

// ApplyTrigger says why an apply ran: Kind is startup, interval, schedule,
// manifest, manual or leader.
type ApplyTrigger struct {
	Kind string `json:"kind"`
	// Schedule names the schedule whose opening caused a schedule apply.
	Schedule string `json:"schedule,omitempty"`
	// Resources are the due resources that schedule held back.
	Resources []string `json:"resources,omitempty"`
	// Reason is free text: who asked for a manual apply, which file changed.
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
	// Coalesced counts further triggers folded into this one.
	Coalesced int `json:"coalesced,omitempty"`
}

// String is the trigger in a few words: "schedule nightly", "manual: deploy".
func (t ApplyTrigger) String() string {
	switch {
	case t.Kind == "schedule" && t.Schedule != "":
		return "schedule " + t.Schedule
	case t.Reason != "":
		return t.Kind + ": " + t.Reason
	}
	return t.Kind
}

// ApplyReport is one apply of the agent's manifests, as Puppet reports it.
type ApplyReport struct {
	ID      int64        `json:"id"`
	Host    string       `json:"host,omitempty"`
	Trigger ApplyTrigger `json:"trigger"`
	Start   time.Time    `json:"start"`
	End     time.Time    `json:"end"`
	// Status is "unchanged", "changed" or "failed".
	Status string `json:"status"`
	// ExitCode is what `almanac apply --detailed-exitcodes` exits with.
	ExitCode int `json:"exit_code"`
	// Error is why the apply could not run or stopped, if it did.
	Error     string          `json:"error,omitempty"`
	Summary   ApplySummary    `json:"summary"`
	Resources []ApplyResource `json:"resources,omitempty"`
	Events    []ApplyEvent    `json:"events,omitempty"`
	Warnings  []ApplyWarning  `json:"warnings,omitempty"`
}

// ApplySummary counts an apply's resources by outcome.
type ApplySummary struct {
	Resources int `json:"resources"`
	Changed   int `json:"changed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Refreshed int `json:"refreshed"`
	Noop      int `json:"noop"`
	Warnings  int `json:"warnings"`
}

// ApplyResource is one resource's outcome in an apply.
type ApplyResource struct {
	Ref string `json:"ref"`
	// Schedule names the resource's schedule gate, if any.
	Schedule string `json:"schedule,omitempty"`
	// Status is unchanged, changed, failed, skipped or noop.
	Status        string     `json:"status"`
	Reason        string     `json:"reason,omitempty"`
	Refreshed     bool       `json:"refreshed,omitempty"`
	EventsDropped bool       `json:"events_dropped,omitempty"`
	NextOpening   *time.Time `json:"next_opening,omitempty"`
}

// ApplyEvent is one line of an apply's log.
type ApplyEvent struct {
	Time time.Time `json:"time"`
	// Level is Debug, Info, Notice, Warning or Error.
	Level   string `json:"level"`
	Source  string `json:"source,omitempty"`
	Message string `json:"message"`
}

// ApplyWarning is a problem with a resource's schedule found by an apply.
type ApplyWarning struct {
	Ref      string `json:"ref"`
	Schedule string `json:"schedule"`
	Message  string `json:"message"`
}
