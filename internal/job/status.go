package job

import (
	"container/heap"
	"context"
	"fmt"
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
	return c.StatusOf(ctx, j)
}

// StatusOf returns the status of j, as read from the store (or as a write
// returned it), without reading the job again: its active runs are read,
// its stored (so already validated) spec compiled.
func (c *Controller) StatusOf(ctx context.Context, j store.Job) (Status, error) {
	comp, err := compileValid(j.Spec, c.cfg.Parse)
	if err != nil {
		return Status{}, err
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: j.Spec.Name,
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

// LiveOutput returns the output of a run executing on this node from byte
// offset on, the offset to ask from next, and false when the run is not
// executing here (finished, pending, or on another node).
func (c *Controller) LiveOutput(id, offset int64) ([]byte, int64, bool) {
	v, ok := c.live.Load(id)
	if !ok {
		return nil, 0, false
	}
	b, next := v.(LiveOutput).OutputSince(offset)
	return b, next, true
}

// Fire is one upcoming scheduled instant of a job.
type Fire struct {
	Job  string
	Time time.Time // in the job's zone
	// Outlook is what the job's gate will do to the fire.
	Outlook Outlook
}

// Upcoming returns the first limit instants strictly after from at which
// any job that is not suspended is scheduled, earliest first (ties by job
// name). It reads the jobs once, compiles each distinct expression once and
// merges the schedules with a heap, so its cost grows with the number of
// jobs plus limit × log(jobs), not with jobs × limit.
func (c *Controller) Upcoming(ctx context.Context, from time.Time, limit int) ([]Fire, error) {
	jobs, err := c.st.JobList(ctx, store.JobListParams{})
	if err != nil {
		return nil, err
	}
	scheds := map[schedKey]*compiled{}
	h := make(fireHeap, 0, len(jobs))
	for _, j := range jobs {
		if j.Spec.Suspend {
			continue
		}
		k := keyOf(j.Spec)
		comp, ok := scheds[k]
		if !ok || j.Spec.Cron == "" {
			if comp, err = compile(j.Spec, c.cfg.Parse); err != nil {
				continue // a job that does not compile has no fires
			}
			if j.Spec.Cron != "" {
				scheds[k] = comp
			}
		}
		if t := comp.sched.Next(from); !t.IsZero() {
			h = append(h, upcoming{job: j.Spec.Name, next: t, c: comp, spec: j.Spec})
		}
	}
	heap.Init(&h)
	out := make([]Fire, 0, min(limit, len(h)))
	var nodes []NodeInfo // read once, for the first fanned-out job's fire
	listed := false
	for len(out) < limit && len(h) > 0 {
		u := &h[0]
		if fanned(u.spec) && !listed {
			if nodes, err = c.listNodes(ctx); err != nil {
				return nil, fmt.Errorf("list nodes: %w", err)
			}
			listed = true
		}
		out = append(out, Fire{Job: u.job, Time: u.next.In(u.c.loc), Outlook: c.outlook(u.spec, u.next, u.c.loc, nodes)})
		if t := u.c.sched.Next(u.next); t.IsZero() {
			heap.Pop(&h)
		} else {
			u.next = t
			heap.Fix(&h, 0)
		}
	}
	return out, nil
}

// upcoming is a job's next instant in Upcoming's merge.
type upcoming struct {
	job  string
	next time.Time
	c    *compiled
	// spec is the job's own: c may be shared with jobs gated otherwise.
	spec store.JobSpec
}

// fireHeap orders jobs by their next instant, then name.
type fireHeap []upcoming

func (h fireHeap) Len() int { return len(h) }
func (h fireHeap) Less(i, k int) bool {
	if !h[i].next.Equal(h[k].next) {
		return h[i].next.Before(h[k].next)
	}
	return h[i].job < h[k].job
}
func (h fireHeap) Swap(i, k int) { h[i], h[k] = h[k], h[i] }
func (h *fireHeap) Push(x any)   { *h = append(*h, x.(upcoming)) }
func (h *fireHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
