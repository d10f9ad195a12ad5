package fleet

import (
	"sort"
	"time"
)

// Status is one resource as the API and UI show it.
type Status struct {
	ID                  string            `json:"id"`
	Name                string            `json:"name"`
	State               State             `json:"state"`
	Tags                map[string]string `json:"tags"`
	SupportsHibernation bool              `json:"supports_hibernation"`
	// Scheduled and Actionable: see Validation. Validation is "ok",
	// "warnings", "errors" or "unscheduled".
	Scheduled  bool   `json:"scheduled"`
	Actionable bool   `json:"actionable"`
	Validation string `json:"validation"`
	// Start and Stop are the schedules in canonical event syntax; Times are
	// their minutes since Monday 00:00, for drawing a week.
	Start      string `json:"start,omitempty"`
	Stop       string `json:"stop,omitempty"`
	StartTimes []int  `json:"start_times,omitempty"`
	StopTimes  []int  `json:"stop_times,omitempty"`
	Zone       string `json:"time_zone,omitempty"`
	Hibernate  bool   `json:"hibernate"`
	Notify     string `json:"notify,omitempty"`
	// NextStart and NextStop are the next transitions after the status time.
	NextStart *time.Time `json:"next_start"`
	NextStop  *time.Time `json:"next_stop"`
	Errors    []Finding  `json:"errors"`
	Warnings  []Finding  `json:"warnings"`
	// Retry describes an action waiting for another attempt.
	Retry  *RetryStatus `json:"retry,omitempty"`
	SeenAt time.Time    `json:"seen_at"`
}

// RetryStatus is a failed action that will be attempted again.
type RetryStatus struct {
	Action     Action    `json:"action"`
	Transition time.Time `json:"transition"`
	Attempts   int       `json:"attempts"`
	Next       time.Time `json:"next"`
	Deadline   time.Time `json:"deadline"`
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
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
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
