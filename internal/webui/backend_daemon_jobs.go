package webui

import (
	"github.com/almanac-sh/almanac/internal/access"

	"context"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the daemon backend's jobs list: paging forwards and back
// in the order asked for, the count of matches, and the state filters,
// all from the job index (jobindex.go); only the page's jobs are read in
// full, fresh.

// now is the backend's clock reading.
func (d *daemonBackend) now() time.Time {
	if d.cfg.Clock != nil {
		return d.cfg.Clock.Now()
	}
	return time.Now()
}

func (d *daemonBackend) Jobs(ctx context.Context, q JobQuery) (JobPage, error) {
	keep := stateFilter(q.State)
	prefix := access.From(ctx).JobPrefix
	var names []string
	err := d.withIndex(ctx, d.now(), func(x *jobIndex) {
		names = x.names(q.Sort, func(j *indexedJob) bool {
			return strings.HasPrefix(j.name, prefix) && strings.Contains(j.name, q.Filter) && keep(j)
		})
	})
	if err != nil {
		return JobPage{}, err
	}
	var p JobPage
	// The index gives the page's names in order, the count and the way
	// back; the page's jobs themselves are read fresh.
	var js []store.Job
	for _, name := range Paginate(names, q.After, q.Limit, q.Sort, &p) {
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

// stateFilter returns the test of an indexed job for a JobQuery.State
// (the same tests as Job.InState).
func stateFilter(state string) func(*indexedJob) bool {
	switch state {
	case JobStateSuspended:
		return func(j *indexedJob) bool { return j.suspended }
	case JobStateRunning:
		return func(j *indexedJob) bool { return j.running > 0 }
	case JobStateWaiting:
		return func(j *indexedJob) bool { return j.gate != "" && j.pending > 0 }
	case JobStateFailing:
		return func(j *indexedJob) bool { return j.failing }
	case JobStateMissing:
		return func(j *indexedJob) bool { return j.missing }
	}
	return func(*indexedJob) bool { return true }
}
