package webui

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the daemon backend's index of every job: what the jobs
// list filters, counts and sorts by (name, gate, suspension, next fire,
// status), so that a page of 10,000 jobs reads only its own 100 jobs in
// full. The index is read in full once, then kept current by the event
// log: each request reads the events written since (one store call when
// there are few) and reads again the jobs they name, and the jobs whose
// next fire has passed. A full read again at most once per indexTTL, in
// the background, catches what no event told.

// indexTTL is how long the index is used before it is read in full again
// (in the background; requests go on with the current one meanwhile).
const indexTTL = time.Minute

// indexRefreshMax bounds the jobs one request reads again to bring the
// index up to date; more changed jobs than that read the index in full.
const indexRefreshMax = 200

// indexEventScan bounds the events one request reads to bring the index
// up to date; more new events than that read the index in full.
const indexEventScan = 2000

// indexedJob is what the index keeps of one job.
type indexedJob struct {
	name, gate string
	suspended  bool
	// next is the fire the list shows and sorts by (Job.UpcomingFire);
	// zero when none. asOf is when it was computed.
	next, asOf time.Time
	// status is the job's place in JobStatusOrder (Job.StatusRank).
	status int
	// failing and missing are Job.Failing and Job.Missing.
	failing, missing bool
	// pending and running count the job's active runs that have not
	// started and that execute.
	pending, running int
}

func (j indexedJob) key() JobKey { return JobKey{Name: j.name, Next: j.next, Status: j.status} }

// indexSortKeys are the orders the index keeps.
var indexSortKeys = []string{JobSortName, JobSortNext, JobSortStatus}

// jobIndex is every job as the index keeps it, in each order of the list.
type jobIndex struct {
	jobs map[string]*indexedJob
	// orders holds every job in each ascending order, by sort key.
	orders map[string][]*indexedJob
	// counts are the index's own totals, checked against the store's.
	counts store.JobCounts
	// readAt is when the index was read in full; event the newest event
	// it accounts for; countedAt when its counts were last checked
	// against the store's.
	readAt, countedAt time.Time
	event             int64
}

func newJobIndex(jobs []indexedJob, readAt time.Time, event int64) *jobIndex {
	x := &jobIndex{jobs: make(map[string]*indexedJob, len(jobs)), orders: map[string][]*indexedJob{}, readAt: readAt, countedAt: readAt, event: event}
	all := make([]*indexedJob, 0, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		x.jobs[j.name] = j
		all = append(all, j)
		x.count(j, 1)
	}
	for _, k := range indexSortKeys {
		o := slices.Clone(all)
		slices.SortFunc(o, byKey(k))
		x.orders[k] = o
	}
	return x
}

// byKey compares indexed jobs in the ascending order of a sort key.
func byKey(key string) func(a, b *indexedJob) int {
	o := JobSort{Key: key}
	return func(a, b *indexedJob) int { return o.Compare(a.key(), b.key()) }
}

func (x *jobIndex) count(j *indexedJob, n int64) {
	x.counts.Total += n
	if j.suspended {
		x.counts.Suspended += n
	}
}

// put adds or replaces a job, keeping the orders sorted.
func (x *jobIndex) put(j indexedJob) {
	x.remove(j.name)
	p := &j
	x.jobs[j.name] = p
	x.count(p, 1)
	for _, k := range indexSortKeys {
		i, _ := slices.BinarySearchFunc(x.orders[k], p, byKey(k))
		x.orders[k] = slices.Insert(x.orders[k], i, p)
	}
}

// remove drops a job, if indexed.
func (x *jobIndex) remove(name string) {
	old, ok := x.jobs[name]
	if !ok {
		return
	}
	delete(x.jobs, name)
	x.count(old, -1)
	for _, k := range indexSortKeys {
		if i, found := slices.BinarySearchFunc(x.orders[k], old, byKey(k)); found {
			x.orders[k] = slices.Delete(x.orders[k], i, i+1)
		}
	}
}

// passed returns the jobs whose next fire came at or before now since it
// was computed: their next fire, and likely their runs, have changed.
func (x *jobIndex) passed(now time.Time) []string {
	var out []string
	for _, j := range x.orders[JobSortNext] {
		if j.next.IsZero() || j.next.After(now) {
			break
		}
		if j.next.After(j.asOf) {
			out = append(out, j.name)
		}
	}
	return out
}

// names returns the names of the jobs keep accepts, in order o.
func (x *jobIndex) names(o JobSort, keep func(*indexedJob) bool) []string {
	js := x.orders[JobSortName]
	if !o.ByName() {
		js = x.orders[o.Key]
	}
	var out []string
	for i := range js {
		j := js[i]
		if o.Desc {
			j = js[len(js)-1-i]
		}
		if keep(j) {
			out = append(out, j.name)
		}
	}
	return out
}

// withIndex brings the job index up to date at now and calls fn with it;
// fn must not keep it.
func (d *daemonBackend) withIndex(ctx context.Context, now time.Time, fn func(*jobIndex)) error {
	d.idxMu.Lock()
	defer d.idxMu.Unlock()
	if err := d.updateIndex(ctx, now); err != nil {
		return err
	}
	fn(d.idx)
	return nil
}

// updateIndex reads the index in full the first time, then applies the
// events written since and reads again the jobs they name and the jobs
// whose fire passed. It reads the index in full again when there is too
// much to apply, or when the store's job counts disagree with the
// index's (a change written without its event). Called with idxMu held.
func (d *daemonBackend) updateIndex(ctx context.Context, now time.Time) error {
	if d.idx == nil {
		return d.readIndexNow(ctx, now)
	}
	// Counting the jobs reads every row (a few ms with 10,000 jobs), so
	// it is done at most once per fireCacheTTL: a change written without
	// its event shows within that time.
	var counts *store.JobCounts
	if now.Sub(d.idx.countedAt) >= fireCacheTTL || now.Before(d.idx.countedAt) {
		c, err := d.cfg.Store.JobCounts(ctx)
		if err != nil {
			return err
		}
		counts, d.idx.countedAt = &c, now
	}
	changed, newest, complete, err := d.eventsSince(ctx, d.idx.event)
	if err != nil {
		return err
	}
	for _, name := range d.idx.passed(now) {
		changed[name] = true
	}
	if !complete || len(changed) > indexRefreshMax {
		return d.readIndexNow(ctx, now)
	}
	if err := d.refreshJobs(ctx, slices.Sorted(maps.Keys(changed)), now); err != nil {
		return err
	}
	d.idx.event = newest
	if counts != nil && d.idx.counts != *counts {
		return d.readIndexNow(ctx, now)
	}
	if now.Sub(d.idx.readAt) >= indexTTL && !d.idxReading {
		d.idxReading = true
		go d.readIndexLater(now)
	}
	return nil
}

// readIndexNow reads the index in full while the request waits. Called
// with idxMu held.
func (d *daemonBackend) readIndexNow(ctx context.Context, now time.Time) error {
	x, err := d.readIndex(ctx, now)
	if err != nil {
		return err
	}
	d.idx = x
	return nil
}

// readIndexLater reads the index in full in the background and installs
// it unless a newer full read did meanwhile; the events since it was read
// are applied by the next request.
func (d *daemonBackend) readIndexLater(now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x, err := d.readIndex(ctx, now)
	d.idxMu.Lock()
	defer d.idxMu.Unlock()
	d.idxReading = false
	if err != nil || d.idx == nil || d.idx.readAt.After(now) {
		return // a failed read leaves the index; a later request tries again
	}
	d.idx = x
}

// eventsSince returns the jobs named by the events after id and the
// newest event's id; complete is false when there were more than
// indexEventScan of them.
func (d *daemonBackend) eventsSince(ctx context.Context, id int64) (jobs map[string]bool, newest int64, complete bool, err error) {
	jobs, newest = map[string]bool{}, id
	// A small first page: most requests find no new event, or a few.
	p := store.EventListParams{Page: store.Page{Limit: 16}}
	for scanned := 0; scanned < indexEventScan; p.Limit = 250 {
		evs, next, err := d.cfg.Store.EventList(ctx, p)
		if err != nil {
			return nil, 0, false, err
		}
		for _, e := range evs {
			if e.ID <= id {
				return jobs, newest, true, nil
			}
			newest = max(newest, e.ID)
			if e.Job != "" {
				jobs[e.Job] = true
			}
		}
		scanned += len(evs)
		if next == 0 {
			return jobs, newest, true, nil
		}
		p.Cursor = next
	}
	return jobs, newest, false, nil
}

// newestEvent returns the id of the newest event (0 when there is none).
func (d *daemonBackend) newestEvent(ctx context.Context) (int64, error) {
	evs, _, err := d.cfg.Store.EventList(ctx, store.EventListParams{Page: store.Page{Limit: 1}})
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	return evs[0].ID, nil
}

// readIndex reads every job into a new index: the jobs, their statuses and
// active runs in a few listings, and the latest runs only of the jobs
// that failed or missed fires lately (found from the event log, as the
// overview finds them).
func (d *daemonBackend) readIndex(ctx context.Context, now time.Time) (*jobIndex, error) {
	event, err := d.newestEvent(ctx) // first: what changes while reading is applied later
	if err != nil {
		return nil, err
	}
	var jobs []store.Job
	for after := ""; ; {
		js, err := d.cfg.Store.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, js...)
		if len(js) < 1000 {
			break
		}
		after = js[len(js)-1].Spec.Name
	}
	sts, err := d.cfg.Jobs.JobStatuses(ctx, jobs)
	if err != nil {
		return nil, err
	}
	pending, err := d.jobsWithRuns(ctx, store.RunPending)
	if err != nil {
		return nil, err
	}
	running, err := d.jobsWithRuns(ctx, store.RunRunning)
	if err != nil {
		return nil, err
	}
	recent, err := d.recentOfTroubled(ctx)
	if err != nil {
		return nil, err
	}
	idx := make([]indexedJob, 0, len(jobs))
	for _, j := range jobs {
		name := j.Spec.Name
		r := recent[name]
		idx = append(idx, d.indexed(ctx, j, sts[name].NextScheduleTime, r, pending[name], running[name], now))
	}
	return newJobIndex(idx, now, event), nil
}

// refreshJobs reads the named jobs again into the index: their specs, one
// batch of statuses, and each one's latest runs.
func (d *daemonBackend) refreshJobs(ctx context.Context, names []string, now time.Time) error {
	if len(names) == 0 {
		return nil
	}
	var jobs []store.Job
	for _, name := range names {
		j, err := d.cfg.Store.JobGet(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			d.idx.remove(name)
			continue
		}
		if err != nil {
			return err
		}
		jobs = append(jobs, j)
	}
	sts, err := d.cfg.Jobs.JobStatuses(ctx, jobs)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		st := sts[j.Spec.Name]
		runs, _, err := d.cfg.Store.RunList(ctx, store.RunListParams{Job: j.Spec.Name, Page: store.Page{Limit: RecentRuns}})
		if err != nil {
			return err
		}
		waiting, err := d.pending(ctx, st.Active, runs)
		if err != nil {
			return err
		}
		d.idx.put(d.indexed(ctx, j, st.NextScheduleTime, runs, len(waiting), len(st.Active)-len(waiting), now))
	}
	return nil
}

// indexed is the index's entry of a job with its next schedule time,
// latest runs (those RecentRuns, or none when it has not failed or missed
// lately) and active runs, computed by the same Job methods the page's
// rows use.
func (d *daemonBackend) indexed(ctx context.Context, j store.Job, next time.Time, runs []store.Run, pending, running int, now time.Time) indexedJob {
	s := j.Spec
	v := Job{Name: s.Name, Suspended: s.Suspend, WavePaused: s.WavePaused, Nodes: s.Nodes, NextFire: next,
		Active: make([]int64, pending+running), Pending: make([]int64, pending)}
	for _, r := range runs {
		v.Recent = append(v.Recent, Run{State: string(r.State), Error: r.Error})
	}
	if v.FannedOut() && d.cfg.Waves != nil && len(runs) > 0 {
		if w, err := d.Wave(ctx, s.Name); err == nil {
			v.LastWave = &w
		}
	}
	return indexedJob{name: s.Name, gate: s.Gate, suspended: s.Suspend, next: v.UpcomingFire(), asOf: now,
		status: v.StatusRank(), failing: v.Failing(), missing: v.Missing(), pending: pending, running: running}
}

// jobsWithRuns counts the runs in state rs by job (an active state: there
// are few such runs).
func (d *daemonBackend) jobsWithRuns(ctx context.Context, rs store.RunState) (map[string]int, error) {
	out := map[string]int{}
	for cursor := int64(0); ; {
		runs, next, err := d.cfg.Store.RunList(ctx, store.RunListParams{States: []store.RunState{rs}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			out[r.Job]++
		}
		if next == 0 {
			return out, nil
		}
		cursor = next
	}
}

// recentOfTroubled returns the latest RecentRuns runs of each job named by
// the latest failureScan events of a run that failed, was killed or lost,
// and of those of a missed run: only those jobs can be failing, partly
// failing or missing (the event log keeps failures the run history has
// pruned).
func (d *daemonBackend) recentOfTroubled(ctx context.Context) (map[string][]store.Run, error) {
	cands := map[string]bool{}
	for _, kinds := range [][]store.EventKind{{store.EventRunFailed, store.EventRunKilled, store.EventRunLost}, {store.EventRunMissed}} {
		p := store.EventListParams{Kinds: kinds, Page: store.Page{Limit: 1000}}
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
	}
	out := map[string][]store.Run{}
	for _, name := range slices.Sorted(maps.Keys(cands)) {
		runs, _, err := d.cfg.Store.RunList(ctx, store.RunListParams{Job: name, Page: store.Page{Limit: RecentRuns}})
		if err != nil {
			return nil, err
		}
		out[name] = runs
	}
	return out, nil
}
