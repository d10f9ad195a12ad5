package webui

import (
	"github.com/almanac-sh/almanac/internal/access"

	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the daemon backend's jobs list: paging forwards and back,
// the count of matches, and the state filters, kept cheap with many jobs.
// One index of every job's name, suspension and gate is read from the
// store at most once per fireCacheTTL (an action through the UI drops it);
// the states that depend on runs come from the few active runs and, for
// failing, from the failure events, and only the page's jobs are read in
// full, fresh.

// indexedJob is what the index keeps of one job.
type indexedJob struct {
	name, gate string
	suspended  bool
}

// jobIndex returns every job, sorted by name, read from the store at most
// once per fireCacheTTL.
func (d *daemonBackend) jobIndex(ctx context.Context, now time.Time) ([]indexedJob, error) {
	// The counts are one cheap read; a job created, deleted, suspended or
	// resumed since the index was read (through the API or a manifest,
	// which do not drop the cache) changes them, so the list never lags
	// behind those.
	counts, err := d.cfg.Store.JobCounts(ctx)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.indexAt.IsZero() && !now.Before(d.indexAt) && now.Sub(d.indexAt) < fireCacheTTL && counts == d.indexCounts {
		return d.index, nil
	}
	var idx []indexedJob
	for after := ""; ; {
		js, err := d.cfg.Store.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			idx = append(idx, indexedJob{name: j.Spec.Name, gate: j.Spec.Gate, suspended: j.Spec.Suspend})
		}
		if len(js) < 1000 {
			break
		}
		after = js[len(js)-1].Spec.Name
	}
	// The store lists by byte order; the jobs list reads in natural order.
	slices.SortFunc(idx, func(a, b indexedJob) int { return NaturalCompare(a.name, b.name) })
	d.index, d.indexAt, d.indexCounts = idx, now, counts
	return idx, nil
}

// now is the backend's clock reading.
func (d *daemonBackend) now() time.Time {
	if d.cfg.Clock != nil {
		return d.cfg.Clock.Now()
	}
	return time.Now()
}

func (d *daemonBackend) Jobs(ctx context.Context, q JobQuery) (JobPage, error) {
	idx, err := d.jobIndex(ctx, d.now())
	if err != nil {
		return JobPage{}, err
	}
	keep, err := d.stateFilter(ctx, q.State)
	if err != nil {
		return JobPage{}, err
	}
	prefix := access.From(ctx).JobPrefix
	var names []string
	for _, j := range idx {
		if strings.HasPrefix(j.name, prefix) && strings.Contains(j.name, q.Filter) && keep(j) {
			names = append(names, j.name)
		}
	}
	if q.Desc {
		slices.Reverse(names)
	}
	var p JobPage
	// The index (at most fireCacheTTL old, dropped by every action of the
	// UI) gives the page's names in natural order, the count and the way
	// back; the page's jobs themselves are read fresh.
	var js []store.Job
	for _, name := range Paginate(names, q.After, q.Limit, q.Desc, &p) {
		j, err := d.cfg.Store.JobGet(ctx, name)
		if err != nil {
			continue // deleted since the index was read
		}
		js = append(js, j)
	}
	sts, err := d.cfg.Jobs.JobStatuses(ctx, js)
	if err != nil {
		return JobPage{}, err
	}
	p.Jobs = make([]Job, 0, len(js))
	for _, j := range js {
		st, ok := sts[j.Spec.Name]
		v, err := d.viewWith(ctx, j, st, ok)
		if err != nil {
			return JobPage{}, err
		}
		if (q.State == JobStateFailing && !v.Failing()) || (q.State == JobStateMissing && !v.Missing()) {
			continue
		}
		p.Jobs = append(p.Jobs, v)
	}
	return p, nil
}

// stateFilter returns the test of a job for a JobQuery.State, from the
// index and the runs or events that state depends on.
func (d *daemonBackend) stateFilter(ctx context.Context, state string) (func(indexedJob) bool, error) {
	switch state {
	case JobStateSuspended:
		return func(j indexedJob) bool { return j.suspended }, nil
	case JobStateRunning, JobStateWaiting:
		rs := store.RunRunning
		if state == JobStateWaiting {
			rs = store.RunPending
		}
		jobs, err := d.jobsWithRuns(ctx, rs)
		if err != nil {
			return nil, err
		}
		if state == JobStateWaiting {
			return func(j indexedJob) bool { return j.gate != "" && jobs[j.name] }, nil
		}
		return func(j indexedJob) bool { return jobs[j.name] }, nil
	case JobStateFailing, JobStateMissing:
		find := d.failingJobs
		if state == JobStateMissing {
			find = d.missingJobs
		}
		jobs, err := find(ctx)
		if err != nil {
			return nil, err
		}
		return func(j indexedJob) bool { return jobs[j.name] }, nil
	}
	return func(indexedJob) bool { return true }, nil
}

// jobsWithRuns returns the jobs that have runs in state rs (an active
// state: there are few such runs).
func (d *daemonBackend) jobsWithRuns(ctx context.Context, rs store.RunState) (map[string]bool, error) {
	out := map[string]bool{}
	for cursor := int64(0); ; {
		runs, next, err := d.cfg.Store.RunList(ctx, store.RunListParams{States: []store.RunState{rs}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			out[r.Job] = true
		}
		if next == 0 {
			return out, nil
		}
		cursor = next
	}
}

// failingJobs returns the jobs whose latest finished run failed. The
// candidates are the jobs of the latest failureScan run.failed events (the
// event log keeps failures the run history has pruned); each candidate's
// own latest runs decide.
func (d *daemonBackend) failingJobs(ctx context.Context) (map[string]bool, error) {
	return d.jobsByRecent(ctx, store.EventRunFailed, Job.Failing)
}

// missingJobs returns the jobs whose recent finished runs were all missed,
// found as failingJobs finds the failing ones, from run.missed events.
func (d *daemonBackend) missingJobs(ctx context.Context) (map[string]bool, error) {
	return d.jobsByRecent(ctx, store.EventRunMissed, Job.Missing)
}

// jobsByRecent returns the jobs of the latest failureScan events of kind
// whose latest runs pass test.
func (d *daemonBackend) jobsByRecent(ctx context.Context, kind store.EventKind, test func(Job) bool) (map[string]bool, error) {
	cands := map[string]bool{}
	p := store.EventListParams{Kinds: []store.EventKind{kind}, Page: store.Page{Limit: 1000}}
	for scanned := 0; scanned < failureScan; {
		evs, next, err := d.cfg.Store.EventList(ctx, p)
		if err != nil {
			return nil, err
		}
		scanned += len(evs)
		for _, e := range evs {
			cands[e.Job] = true
		}
		if next == 0 {
			break
		}
		p.Cursor = next
	}
	out := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(cands)) {
		runs, _, err := d.cfg.Store.RunList(ctx, store.RunListParams{Job: name, Page: store.Page{Limit: RecentRuns}})
		if err != nil {
			return nil, err
		}
		v := Job{}
		for _, r := range runs {
			v.Recent = append(v.Recent, Run{State: string(r.State), Error: r.Error})
		}
		if test(v) {
			out[name] = true
		}
	}
	return out, nil
}
