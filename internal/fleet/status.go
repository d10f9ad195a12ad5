package fleet

import (
	"cmp"
	"slices"
	"time"
)

// Status is one resource's state, schedule and findings at a moment, for
// the API and the UI to present (each in its own shape).
type Status struct {
	ID                  string
	Name                string
	State               State
	Tags                map[string]string
	SupportsHibernation bool
	// Scheduled and Actionable: see Validation. Validation is "ok",
	// "warnings", "errors" or "unscheduled".
	Scheduled  bool
	Actionable bool
	Validation string
	// Start and Stop are the schedules in canonical event syntax; Times are
	// their minutes since Monday 00:00, for drawing a week.
	Start      string
	Stop       string
	StartTimes []int
	StopTimes  []int
	Zone       string
	Hibernate  bool
	Notify     string
	// NextStart and NextStop are the next transitions after the status time.
	NextStart *time.Time
	NextStop  *time.Time
	Errors    []Finding
	Warnings  []Finding
	// Retry describes an action waiting for another attempt.
	Retry  *RetryStatus
	SeenAt time.Time
}

// RetryStatus is a failed action that will be attempted again.
type RetryStatus struct {
	Action     Action
	Transition time.Time
	Attempts   int
	Next       time.Time
	Deadline   time.Time
}

// Resources returns the status of every resource in the current inventory,
// sorted by name then id, with next transitions after the clock's now.
func (s *Scheduler) Resources() []Status {
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, 0, len(s.res))
	for _, t := range s.res {
		out = append(out, statusOf(t, now))
	}
	slices.SortFunc(out, func(a, b Status) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Resource returns the status of one resource.
func (s *Scheduler) Resource(id string) (Status, bool) {
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.res[id]
	if !ok {
		return Status{}, false
	}
	return statusOf(t, now), true
}

// LastInventory returns when the last successful inventory ran.
func (s *Scheduler) LastInventory() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastInventory
}

func statusOf(t *tracked, now time.Time) Status {
	r, v := &t.obs.Resource, &t.val
	st := Status{
		ID: r.ID, Name: r.Name, State: t.obs.State, Tags: r.Tags, SupportsHibernation: r.SupportsHibernation,
		Scheduled: v.Scheduled, Actionable: v.Actionable(), Hibernate: v.Hibernate, Notify: v.Notify,
		Errors: append([]Finding{}, v.Errors...), Warnings: append([]Finding{}, v.Warnings...), SeenAt: t.obs.SeenAt,
	}
	switch {
	case len(v.Errors) > 0:
		st.Validation = "errors"
	case !v.Scheduled:
		st.Validation = "unscheduled"
	case len(v.Warnings) > 0:
		st.Validation = "warnings"
	default:
		st.Validation = "ok"
	}
	if v.Start != nil {
		st.Start, st.StartTimes = v.Start.String(), v.Start.Times()
	}
	if v.Stop != nil {
		st.Stop, st.StopTimes = v.Stop.String(), v.Stop.Times()
	}
	if v.Zone != nil {
		st.Zone = v.Zone.String()
	}
	if at, ok := v.NextStart(now); ok {
		at = at.In(v.Zone)
		st.NextStart = &at
	}
	if at, ok := v.NextStop(now); ok {
		at = at.In(v.Zone)
		st.NextStop = &at
	}
	if p := t.retry; p != nil {
		st.Retry = &RetryStatus{Action: p.action, Transition: p.at, Attempts: p.attempt, Next: p.due, Deadline: p.deadline}
	}
	return st
}
