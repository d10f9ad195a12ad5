package job

import (
	"context"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// Status is a job's observed state, as `describe job` and the API show it.
type Status struct {
	// Active lists the IDs of runs that are running or about to start.
	Active []int64
	// Succeeded and Failed count finished runs over the job's life.
	Succeeded, Failed int64
	// LastScheduleTime is the latest scheduled instant dealt with; zero if none.
	LastScheduleTime time.Time
	// LastSuccessfulTime is when the latest succeeded run finished; zero if none.
	LastSuccessfulTime time.Time
	// NextScheduleTime is the next instant a run is due; zero if the job is
	// suspended or will not fire again.
	NextScheduleTime time.Time
}

// ComputeStatus derives a job's status from its stored record, its
// non-terminal runs and its schedule, at now.
func ComputeStatus(j store.Job, runs []store.Run, sched Schedule, now time.Time) Status {
	s := Status{
		Succeeded:          j.Status.Succeeded,
		Failed:             j.Status.Failed,
		LastScheduleTime:   j.Status.LastScheduleTime,
		LastSuccessfulTime: j.Status.LastSuccessfulTime,
	}
	for _, r := range runs {
		if r.State == store.RunRunning || r.State == store.RunPending {
			s.Active = append(s.Active, r.ID)
		}
	}
	if !j.Spec.Suspend && sched != nil {
		from := now
		if s.LastScheduleTime.After(from) {
			from = s.LastScheduleTime
		}
		if j.Status.LastScheduleTime.IsZero() && j.Spec.At != nil && !j.Spec.At.After(now) {
			// A one-shot not yet dealt with is due now.
			from = j.Spec.At.Add(-time.Nanosecond)
		}
		s.NextScheduleTime = sched.Next(from)
	}
	return s
}

// Status returns a job's status; store.ErrNotFound if there is no such job.
func (c *Controller) Status(ctx context.Context, name string) (Status, error) {
	j, err := c.st.JobGet(ctx, name)
	if err != nil {
		return Status{}, err
	}
	comp, err := compile(j.Spec, c.cfg.Parse)
	if err != nil {
		return Status{}, err
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: name,
		States: []store.RunState{store.RunPending, store.RunRunning}, Page: store.Page{Limit: 1000}})
	if err != nil {
		return Status{}, err
	}
	return ComputeStatus(j, runs, comp.sched, c.clock.Now()), nil
}

// Statuses returns the status of each of jobs (as read from the store), by
// name, with one listing of the non-terminal runs instead of queries per
// job, and each distinct cron expression compiled once. A job whose spec
// does not compile gets no next schedule time.
func (c *Controller) Statuses(ctx context.Context, jobs []store.Job) (map[string]Status, error) {
	want := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		want[j.Spec.Name] = true
	}
	active := map[string][]store.Run{}
	for cursor := int64(0); ; {
		runs, next, err := c.st.RunList(ctx, store.RunListParams{
			States: []store.RunState{store.RunPending, store.RunRunning}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if want[r.Job] {
				active[r.Job] = append(active[r.Job], r)
			}
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	scheds := map[schedKey]Schedule{}
	now := c.clock.Now()
	out := make(map[string]Status, len(jobs))
	for _, j := range jobs {
		var sched Schedule
		k := keyOf(j.Spec)
		if s, ok := scheds[k]; ok && j.Spec.Cron != "" {
			sched = s
		} else if comp, err := compile(j.Spec, c.cfg.Parse); err == nil {
			sched = comp.sched
			if j.Spec.Cron != "" {
				scheds[k] = sched
			}
		}
		// Newest first, as Status lists them.
		out[j.Spec.Name] = ComputeStatus(j, active[j.Spec.Name], sched, now)
	}
	return out, nil
}

// NextFires returns up to n instants strictly after from at which the job
// is scheduled (ignoring suspend), in the job's time zone.
func (c *Controller) NextFires(ctx context.Context, name string, from time.Time, n int) ([]time.Time, error) {
	j, err := c.st.JobGet(ctx, name)
	if err != nil {
		return nil, err
	}
	comp, err := compile(j.Spec, c.cfg.Parse)
	if err != nil {
		return nil, err
	}
	var out []time.Time
	for t := comp.sched.Next(from); !t.IsZero() && len(out) < n; t = comp.sched.Next(t) {
		out = append(out, t.In(comp.loc))
	}
	return out, nil
}
