// Package webuitest provides an in-memory webui.Backend for tests, browser
// tests and screenshots, and a demo data set for it: jobs with a week of
// runs, named windows and the fleet package's demo resources.
package webuitest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
)

// Schedule computes a fake job's fire instants.
type Schedule interface {
	// Next returns the first fire strictly after t, or the zero time.
	Next(t time.Time) time.Time
}

// Backend is an in-memory webui.Backend. Its zero value is not usable; call
// New. All methods are safe for concurrent use.
type Backend struct {
	clock clock.Clock

	mu        sync.Mutex
	jobs      map[string]*fakeJob
	runs      []webui.Run // ascending ID
	events    []webui.Event
	resources []webui.Resource
	windows   []webui.Window
	cluster   apitype.Cluster
	agent     *agent.Status   // nil: no agent
	reports   []*agent.Report // ascending ID
	// Err, when set, is returned by every read (to test error pages).
	err error
	// ManualRunTime is how long a triggered run stays running.
	manualRunTime time.Duration
}

type fakeJob struct {
	job   webui.Job
	sched Schedule
}

// New returns an empty backend whose time comes from c.
func New(c clock.Clock) *Backend {
	return &Backend{clock: c, jobs: map[string]*fakeJob{}, manualRunTime: 3 * time.Second}
}

// SetError makes every later call fail with err (nil restores).
func (b *Backend) SetError(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.err = err
}

// AddJob adds a job firing on s (nil: never).
func (b *Backend) AddJob(j webui.Job, s Schedule) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobs[j.Name] = &fakeJob{job: j, sched: s}
}

// AddRun appends a run, assigning the next ID, and returns it.
func (b *Backend) AddRun(r webui.Run) webui.Run {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addRun(r)
}

func (b *Backend) addRun(r webui.Run) webui.Run {
	r.ID = int64(len(b.runs) + 1)
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	b.runs = append(b.runs, r)
	return r
}

// AddEvent appends a log entry, assigning the next ID.
func (b *Backend) AddEvent(e webui.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.addEvent(e)
}

func (b *Backend) addEvent(e webui.Event) {
	e.ID = int64(len(b.events) + 1)
	if e.Time.IsZero() {
		e.Time = b.clock.Now()
	}
	b.events = append(b.events, e)
}

// AddResource adds a managed resource.
func (b *Backend) AddResource(r webui.Resource) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resources = append(b.resources, r)
}

// AddWindow adds a named window; Open and Until are computed when asked.
func (b *Backend) AddWindow(w webui.Window) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.windows = append(b.windows, w)
}

// SetCluster sets what Cluster answers.
func (b *Backend) SetCluster(c apitype.Cluster) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cluster = c
}

// Cluster implements webui.Backend.
func (b *Backend) Cluster(context.Context) (apitype.Cluster, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return apitype.Cluster{}, b.err
	}
	c := b.cluster
	c.Nodes = slices.Clone(c.Nodes)
	return c, nil
}

// SetAgent turns agent mode on with status st (Applies reports it).
func (b *Backend) SetAgent(st agent.Status) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.agent = &st
}

// AddReport appends an apply report, assigning the next ID, and returns it.
func (b *Backend) AddReport(r agent.Report) *agent.Report {
	b.mu.Lock()
	defer b.mu.Unlock()
	r.ID = int64(len(b.reports) + 1)
	b.reports = append(b.reports, &r)
	return &r
}

// Applies implements webui.Backend: summaries without resources and
// events, newest first.
func (b *Backend) Applies(_ context.Context, q webui.ApplyQuery) (webui.ApplyPage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return webui.ApplyPage{}, b.err
	}
	if b.agent == nil {
		return webui.ApplyPage{}, nil
	}
	p := webui.ApplyPage{Enabled: true, Agent: *b.agent}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	for i := len(b.reports) - 1; i >= 0; i-- {
		r := b.reports[i]
		if q.Cursor != 0 && r.ID >= q.Cursor {
			continue
		}
		if len(p.Reports) == limit {
			p.Next = p.Reports[limit-1].ID
			break
		}
		sum := *r
		sum.Resources, sum.Events = nil, nil
		p.Reports = append(p.Reports, &sum)
	}
	return p, nil
}

// Apply implements webui.Backend.
func (b *Backend) Apply(_ context.Context, id int64) (*agent.Report, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, b.err
	}
	if id < 1 || id > int64(len(b.reports)) {
		return nil, fmt.Errorf("%w: apply report %d", webui.ErrNotFound, id)
	}
	r := *b.reports[id-1]
	return &r, nil
}

// settle finishes triggered runs whose time has come. Called with mu held.
func (b *Backend) settle() {
	now := b.clock.Now()
	for i := range b.runs {
		r := &b.runs[i]
		if r.Reason == "manual" && r.State == webui.RunRunning && !now.Before(r.StartedAt.Add(b.manualRunTime)) {
			zero := 0
			r.State, r.FinishedAt, r.ExitCode = webui.RunSucceeded, r.StartedAt.Add(b.manualRunTime), &zero
			r.Output = append(r.Output, "done\n"...)
			b.addEvent(webui.Event{Time: r.FinishedAt, Kind: "run.succeeded", Job: r.Job, RunID: r.ID, Message: "exited 0"})
		}
	}
}

// jobView returns a job with its computed status. Called with mu held.
func (b *Backend) jobView(fj *fakeJob) webui.Job {
	j := fj.job
	j.Active, j.Pending, j.LastRun, j.NextFire, j.Recent = nil, nil, nil, time.Time{}, nil
	for i := len(b.runs) - 1; i >= 0; i-- {
		r := b.runs[i]
		if r.Job != j.Name {
			continue
		}
		if j.LastRun == nil {
			r.Output = nil
			j.LastRun = &r
		}
		if len(j.Recent) < webui.RecentRuns {
			r.Output = nil
			j.Recent = append(j.Recent, r)
		}
		if r.Active() {
			j.Active = append(j.Active, r.ID)
			if r.State == webui.RunPending {
				j.Pending = append(j.Pending, r.ID)
			}
		}
		if r.Reason != "manual" && r.ScheduledTime.After(j.LastScheduleTime) {
			j.LastScheduleTime = r.ScheduledTime
		}
		if r.State == webui.RunSucceeded && r.FinishedAt.After(j.LastSuccessfulTime) {
			j.LastSuccessfulTime = r.FinishedAt
		}
	}
	if !j.Suspended && fj.sched != nil {
		j.NextFire = fj.sched.Next(b.clock.Now())
	}
	if j.FannedOut() {
		if w, err := b.wave(fj); err == nil {
			j.LastWave = &w
		}
	}
	return j
}

// Jobs implements webui.Backend.
func (b *Backend) Jobs(_ context.Context, q webui.JobQuery) (webui.JobPage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return webui.JobPage{}, b.err
	}
	b.settle()
	byName := map[string]webui.Job{}
	var keys []webui.JobKey
	for _, fj := range b.jobs {
		if j := b.jobView(fj); strings.Contains(j.Name, q.Filter) && j.InState(q.State) {
			byName[j.Name] = j
			keys = append(keys, webui.KeyOf(j))
		}
	}
	slices.SortFunc(keys, q.Sort.Compare)
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	var p webui.JobPage
	for _, n := range webui.Paginate(names, q.After, q.Limit, q.Sort, &p) {
		p.Jobs = append(p.Jobs, byName[n])
	}
	return p, nil
}

// JobSummary implements webui.Backend.
func (b *Backend) JobSummary(context.Context) (webui.JobSummary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return webui.JobSummary{}, b.err
	}
	b.settle()
	var s webui.JobSummary
	for _, fj := range b.jobs {
		j := b.jobView(fj)
		s.Jobs++
		if j.Suspended {
			s.Suspended++
		}
		s.ActiveRuns += len(j.Active)
	}
	return s, nil
}

// lookup returns the fake job called name, or the error every call is
// set to fail with (SetError); with settle, the runs due by now have
// advanced first. Called with mu held.
func (b *Backend) lookup(name string, settle bool) (*fakeJob, error) {
	if b.err != nil {
		return nil, b.err
	}
	if settle {
		b.settle()
	}
	fj, ok := b.jobs[name]
	if !ok {
		return nil, fmt.Errorf("job %q: %w", name, webui.ErrNotFound)
	}
	return fj, nil
}

// Job implements webui.Backend.
func (b *Backend) Job(_ context.Context, name string) (webui.Job, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fj, err := b.lookup(name, true)
	if err != nil {
		return webui.Job{}, err
	}
	return b.jobView(fj), nil
}

// Fires implements webui.Backend.
func (b *Backend) Fires(_ context.Context, q webui.FireQuery) ([]webui.Fire, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, b.err
	}
	var out []webui.Fire
	for name, fj := range b.jobs {
		if (q.Job != "" && name != q.Job) || (q.Job == "" && fj.job.Suspended) || fj.sched == nil {
			continue
		}
		t := q.After
		for range q.Limit {
			if t = fj.sched.Next(t); t.IsZero() {
				break
			}
			out = append(out, b.gated(webui.Fire{Job: name, Time: t, Zone: fj.job.Zone}, fj.job))
		}
	}
	if q.Job != "" {
		if _, ok := b.jobs[q.Job]; !ok {
			return nil, fmt.Errorf("job %q: %w", q.Job, webui.ErrNotFound)
		}
	}
	slices.SortFunc(out, func(a, b webui.Fire) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Job, b.Job))
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// Runs implements webui.Backend.
func (b *Backend) Runs(_ context.Context, q webui.RunQuery) ([]webui.Run, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, 0, b.err
	}
	b.settle()
	out, next := newestFirst(b.runs, q.Cursor, q.Limit, func(r webui.Run) int64 { return r.ID }, func(r webui.Run) bool {
		return (q.Job == "" || r.Job == q.Job) && (len(q.States) == 0 || slices.Contains(q.States, r.State)) &&
			(q.ScheduledTime.IsZero() || r.ScheduledTime.Equal(q.ScheduledTime)) &&
			(q.Node == "" || r.Node == q.Node || r.Target == q.Node) &&
			(q.Since.IsZero() || !r.ScheduledTime.Before(q.Since)) && (q.Until.IsZero() || r.ScheduledTime.Before(q.Until))
	})
	for i := range out {
		out[i].Output = nil
	}
	return out, next, nil
}

// newestFirst pages items (oldest first, as stored) from the newest end:
// up to limit (default 100) of those keep accepts whose id is below cursor
// (any, if 0), and the cursor of the next page, 0 when there is none.
func newestFirst[T any](items []T, cursor int64, limit int, id func(T) int64, keep func(T) bool) ([]T, int64) {
	if limit <= 0 {
		limit = 100
	}
	var out []T
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if (cursor > 0 && id(it) >= cursor) || !keep(it) {
			continue
		}
		if len(out) == limit {
			return out, id(out[len(out)-1])
		}
		out = append(out, it)
	}
	return out, 0
}

// Run implements webui.Backend.
func (b *Backend) Run(_ context.Context, id int64) (webui.Run, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return webui.Run{}, b.err
	}
	b.settle()
	if id < 1 || id > int64(len(b.runs)) {
		return webui.Run{}, fmt.Errorf("run %d: %w", id, webui.ErrNotFound)
	}
	r := b.runs[id-1]
	r.Output = slices.Clone(r.Output)
	return r, nil
}

// Events implements webui.Backend.
func (b *Backend) Events(_ context.Context, q webui.EventQuery) ([]webui.Event, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, 0, b.err
	}
	b.settle()
	out, next := newestFirst(b.events, q.Cursor, q.Limit, func(e webui.Event) int64 { return e.ID }, func(e webui.Event) bool {
		return (q.Job == "" || e.Job == q.Job) && (q.Resource == "" || e.Resource == q.Resource) && (q.Kind == "" || e.Kind == q.Kind || strings.HasPrefix(e.Kind, q.Kind+".")) &&
			(q.Since.IsZero() || !e.Time.Before(q.Since)) && (q.Until.IsZero() || e.Time.Before(q.Until))
	})
	return out, next, nil
}

// SetSuspended implements webui.Backend.
func (b *Backend) SetSuspended(_ context.Context, name string, suspended bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	fj, err := b.lookup(name, false)
	if err != nil {
		return err
	}
	if fj.job.Suspended == suspended {
		return nil
	}
	fj.job.Suspended = suspended
	kind, msg := "job.resumed", "resumed from the web UI"
	if suspended {
		kind, msg = "job.suspended", "suspended from the web UI"
	}
	b.addEvent(webui.Event{Kind: kind, Job: name, Message: msg})
	return nil
}

// Trigger implements webui.Backend: the run is running at once and succeeds
// a few seconds later (by the backend's clock).
func (b *Backend) Trigger(_ context.Context, name string) (webui.Run, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fj, err := b.lookup(name, false)
	if err != nil {
		return webui.Run{}, err
	}
	now := b.clock.Now()
	r := b.addRun(webui.Run{
		Job: name, ScheduledTime: now, Reason: "manual", State: webui.RunRunning, Node: "demo",
		StartedAt: now, Output: []byte("$ " + fj.job.Command + "\nstarted by hand\n"),
	})
	b.addEvent(webui.Event{Time: now, Kind: "run.started", Job: name, RunID: r.ID, Message: "manual trigger"})
	return r, nil
}

// RebootGroups implements webui.Backend: two groups, one member holding
// a slot.
func (b *Backend) RebootGroups(context.Context) ([]apitype.RebootGroup, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, b.err
	}
	now := b.clock.Now()
	next := now.Add(26 * time.Hour).Truncate(time.Hour)
	return []apitype.RebootGroup{
		{Name: "workers", Max: 2, Open: true, Auth: "secret", Holders: []apitype.RebootHolder{{ID: "worker-3", Since: now.Add(-12 * time.Minute)}}},
		{Name: "db", Max: 1, Window: "weekend-maintenance", NextOpen: &next, Auth: "allow-list", Holders: []apitype.RebootHolder{}},
	}, nil
}

// Kill implements webui.Backend: an active run ends as killed at once.
func (b *Backend) Kill(_ context.Context, id int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	if id < 1 || id > int64(len(b.runs)) {
		return fmt.Errorf("run %d: %w", id, webui.ErrNotFound)
	}
	r := &b.runs[id-1]
	if !r.Active() {
		return fmt.Errorf("run %d has already ended (%s)", id, r.State)
	}
	now := b.clock.Now()
	r.State, r.FinishedAt, r.Error = webui.RunKilled, now, "killed on request"
	b.addEvent(webui.Event{Time: now, Kind: "run.killed", Job: r.Job, RunID: id, Message: "killed on request"})
	return nil
}

// Resources implements webui.Backend.
func (b *Backend) Resources(context.Context) ([]webui.Resource, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, b.err
	}
	out := slices.Clone(b.resources)
	slices.SortStableFunc(out, func(a, b webui.Resource) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// Windows implements webui.Backend, computing Open and Until from the
// intervals on the wall clock of each window's zone.
func (b *Backend) Windows(_ context.Context, now time.Time) ([]webui.Window, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil, b.err
	}
	out := slices.Clone(b.windows)
	for i := range out {
		out[i].Open, out[i].Until = openUntil(out[i], now)
		for _, fj := range b.jobs {
			if fj.job.Gate == out[i].Name {
				out[i].Gates = append(out[i].Gates, fj.job.Name)
			}
		}
		slices.Sort(out[i].Gates)
		out[i].GatedJobs = len(out[i].Gates)
	}
	slices.SortStableFunc(out, func(a, b webui.Window) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out, nil
}

// gated fills in what the job's gate, when it names one of the windows,
// does to the fire: nothing when the window is open at its time, a wait
// until it opens, or a miss when that is past the starting deadline.
func (b *Backend) gated(f webui.Fire, j webui.Job) webui.Fire {
	f.Outlook = webui.OutlookOnTime
	for _, w := range b.windows {
		if w.Name != j.Gate {
			continue
		}
		open, until := openUntil(w, f.Time)
		switch {
		case open:
		case until.IsZero() || (j.StartingDeadline > 0 && until.Sub(f.Time) > j.StartingDeadline):
			f.Outlook, f.Reason = webui.OutlookWillMiss, fmt.Sprintf("schedule gate %q opens only after the starting deadline", w.Name)
		default:
			f.Outlook, f.Until, f.Reason = webui.OutlookWaits, until, fmt.Sprintf("schedule gate %q is closed", w.Name)
		}
	}
	return f
}

// openUntil says whether w is open at now and when that changes, looking at
// most one week ahead; it counts wall-clock minutes, ignoring DST changes.
func openUntil(w webui.Window, now time.Time) (bool, time.Time) {
	loc, err := time.LoadLocation(w.Zone)
	if err != nil {
		loc = time.UTC
	}
	t := now.In(loc)
	m := (int(t.Weekday())+6)%7*1440 + t.Hour()*60 + t.Minute()
	inside := func(x int) bool {
		for _, iv := range w.Intervals {
			for _, shift := range []int{0, 10080, -10080} {
				if x >= iv.Start+shift && x < iv.End+shift {
					return true
				}
			}
		}
		return false
	}
	open := inside(m)
	base := t.Truncate(time.Minute)
	for d := 1; d <= 10080; d++ {
		if inside(m+d) != open {
			return open, base.Add(time.Duration(d) * time.Minute)
		}
	}
	return open, time.Time{}
}
