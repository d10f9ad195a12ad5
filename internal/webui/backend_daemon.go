package webui

import (
	"github.com/almanac-sh/almanac/internal/access"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/oncalendar"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// JobController is what the daemon backend needs of the job controller: a
// subset of httpapi.Controller, so the daemon passes the controller it gives
// the API.
type JobController interface {
	Suspend(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	Trigger(ctx context.Context, name string) (store.Run, error)
	JobStatus(ctx context.Context, j store.Job) (job.Status, error)
	// JobStatuses computes the status of a page of jobs at once.
	JobStatuses(ctx context.Context, jobs []store.Job) (map[string]job.Status, error)
	JobFires(ctx context.Context, name string, from time.Time, n int) ([]job.Fire, error)
	// Kill stops an active run's process group; the run ends as killed.
	Kill(ctx context.Context, id int64) error
	// Upcoming merges the next fires of every job that is not suspended.
	Upcoming(ctx context.Context, from time.Time, limit int) ([]job.Fire, error)
}

// ResourceLister lists managed resources; *fleet.Scheduler satisfies it.
type ResourceLister interface {
	Resources() []fleet.Status
}

// DaemonConfig wires the UI to the daemon's parts. Store and Jobs are
// required; the others may be nil (the pages then show none).
type DaemonConfig struct {
	Store store.Store
	Jobs  JobController
	// Resources lists managed resources (the fleet scheduler).
	Resources ResourceLister
	// Windows lists the named windows and schedules, open state at now.
	// WeeklyWindow converts a weekly.Calendar.
	Windows func(ctx context.Context, now time.Time) ([]Window, error)
	// Cluster answers for the cluster page (the daemon's GET
	// /api/v1/cluster source); nil shows no nodes.
	Cluster httpapi.ClusterSource
	// Agent is agent mode's report keeper (serve --manifests); nil when
	// the daemon runs no agent.
	Agent httpapi.Agent
	// RebootGroups lists the FleetLock reboot groups; nil shows none.
	RebootGroups func(ctx context.Context) ([]apitype.RebootGroup, error)
	// Describe gives a cron expression's plain-English reading in a zone.
	Describe func(cron, zone string) string
	// Clock times the backend's caches; nil means the real clock.
	Clock clock.Clock
	// Waves answers for fanned-out jobs' waves and acts on them (the job
	// controller); nil shows no waves and refuses their actions.
	Waves WaveController
}

// NewDaemonBackend returns the Backend the daemon mounts the UI with: jobs,
// runs and events from the store, status, fires and actions from the job
// controller, resources from the fleet scheduler.
func NewDaemonBackend(cfg DaemonConfig) (Backend, error) {
	if cfg.Store == nil || cfg.Jobs == nil {
		return nil, errors.New("webui: DaemonConfig.Store and Jobs are required")
	}
	return &daemonBackend{cfg: cfg}, nil
}

type daemonBackend struct {
	cfg DaemonConfig

	// fires caches the merged upcoming fires of every job for a few
	// seconds: they change only when jobs change, and computing them reads
	// every job. Actions taken through the UI drop the cache.
	mu       sync.Mutex
	fires    []job.Fire
	firesAt  time.Time // when computed (the query's After)
	firesFor int       // the limit they were computed for
	// refreshing is set while a background refresh of the fires runs;
	// firesGen counts the drops of the cache, so that a refresh started
	// before one does not store what it computed.
	refreshing bool
	firesGen   int

	// idx is the job index (jobindex.go) for the jobs list, the windows
	// page and a confined token's counts; nil until first read.
	// idxReading is set while a full read runs in the background.
	idxMu      sync.Mutex
	idx        *jobIndex
	idxReading bool
}

// fireCacheTTL is how long the merged upcoming fires are reused before
// they are computed again, in the background.
const fireCacheTTL = 5 * time.Second

// fireCacheDepth is how many times the fires asked for the cache keeps, so
// that the fires passing between two refreshes leave enough.
const fireCacheDepth = 10

// notFound maps the store's ErrNotFound to the UI's.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w (%v)", ErrNotFound, err)
	}
	return err
}

func (d *daemonBackend) JobSummary(ctx context.Context) (JobSummary, error) {
	var s JobSummary
	prefix := access.From(ctx).JobPrefix
	if prefix == "" {
		c, err := d.cfg.Store.JobCounts(ctx)
		if err != nil {
			return JobSummary{}, err
		}
		s = JobSummary{Jobs: int(c.Total), Suspended: int(c.Suspended)}
	} else {
		// A token confined to some jobs counts only those.
		err := d.withIndex(ctx, d.now(), func(x *jobIndex) {
			for _, j := range x.jobs {
				if strings.HasPrefix(j.name, prefix) {
					s.Jobs++
					if j.suspended {
						s.Suspended++
					}
				}
			}
		})
		if err != nil {
			return JobSummary{}, err
		}
	}
	for cursor := int64(0); ; {
		runs, next, err := d.cfg.Store.RunList(ctx, store.RunListParams{JobPrefix: prefix,
			States: []store.RunState{store.RunPending, store.RunRunning}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return JobSummary{}, err
		}
		s.ActiveRuns += len(runs)
		if next == 0 {
			return s, nil
		}
		cursor = next
	}
}

func (d *daemonBackend) Job(ctx context.Context, name string) (Job, error) {
	if !access.From(ctx).SeesJob(name) {
		return Job{}, fmt.Errorf("%w (job %q)", ErrNotFound, name)
	}
	j, err := d.cfg.Store.JobGet(ctx, name)
	if err != nil {
		return Job{}, notFound(err)
	}
	v, err := d.view(ctx, j)
	if err != nil {
		return v, err
	}
	if v.Suspended {
		v.SuspendedBy = d.lastBy(ctx, name, store.EventJobSuspended)
	}
	if v.WavePaused {
		v.WavePausedBy = d.lastBy(ctx, name, store.EventWavePaused)
	}
	return v, nil
}

// lastBy says who caused the job's latest event of kind; "" when the log
// has none or does not know (a failure to read it only loses the note).
func (d *daemonBackend) lastBy(ctx context.Context, job string, kind store.EventKind) string {
	evs, _, err := d.cfg.Store.EventList(ctx, store.EventListParams{Job: job, Kinds: []store.EventKind{kind}, Page: store.Page{Limit: 1}})
	if err != nil || len(evs) == 0 {
		return ""
	}
	return eventView(evs[0]).By()
}

// view converts a stored job, adding the controller's status and the last run.
func (d *daemonBackend) view(ctx context.Context, j store.Job) (Job, error) {
	// A job whose spec no longer compiles still shows; it has no status.
	st, err := d.cfg.Jobs.JobStatus(ctx, j)
	if errors.Is(err, context.Canceled) {
		return Job{}, err
	}
	return d.viewWith(ctx, j, st, err == nil)
}

// viewWith converts a stored job with its status (if known) and last run.
func (d *daemonBackend) viewWith(ctx context.Context, j store.Job, st job.Status, hasStatus bool) (Job, error) {
	s := j.Spec
	v := Job{
		Name: s.Name, Zone: s.TimeZone, Command: commandText(s), Env: s.Env, Cwd: s.Cwd, Source: string(j.Source),
		Suspended: s.Suspend, ConcurrencyPolicy: string(s.ConcurrencyPolicy), BackoffLimit: s.BackoffLimit,
		Timeout: time.Duration(s.TimeoutSeconds) * time.Second, Gate: s.Gate, Requires: s.Requires,
		Nodes: s.Nodes, MaxParallel: s.MaxParallel, MaxFailures: s.MaxFailures, WaveOrder: s.WaveOrder, WavePaused: s.WavePaused,
		CatchUp: s.CatchUp, Window: s.Window, Succeeded: j.Status.Succeeded, Failed: j.Status.Failed,
		LastScheduleTime: j.Status.LastScheduleTime, LastSuccessfulTime: j.Status.LastSuccessfulTime,
	}
	if v.Zone == "" {
		v.Zone = "UTC"
	}
	if s.StartingDeadlineSeconds != nil {
		v.StartingDeadline = time.Duration(*s.StartingDeadlineSeconds) * time.Second
	}
	switch {
	case s.Manual:
		v.Schedule, v.Description = "manual", "no schedule: runs only when triggered"
	case s.At != nil:
		v.Schedule = "at " + s.At.Format(time.RFC3339)
		v.Description = "once, at " + s.At.In(zoneOf(v.Zone)).Format("Mon 2 Jan 2006 15:04 MST")
	case len(s.OnCalendar) > 0:
		v.Schedule, v.Dialect = strings.Join(s.OnCalendar, "; "), "systemd calendar"
		v.Description = calendarReading(s.OnCalendar, v.Zone)
	case s.CronDialect == job.DialectKubernetes:
		v.Schedule, v.Dialect = s.Cron, "kubernetes cron"
		if c, err := cron.Parse(s.Cron, cron.WithLocation(zoneOf(v.Zone)), cron.WithDialect(cron.Kubernetes)); err == nil {
			v.Description = c.Describe()
		}
	default:
		v.Schedule = s.Cron
		if d.cfg.Describe != nil {
			v.Description = d.cfg.Describe(s.Cron, v.Zone)
		}
	}
	if s.RandomizedDelaySeconds > 0 {
		v.RandomizedDelay = job.RandomizedDelay(s)
	}
	if hasStatus {
		v.Active, v.NextFire = st.Active, st.NextScheduleTime
	}
	runs, _, err := d.cfg.Store.RunList(ctx, store.RunListParams{Job: s.Name, Page: store.Page{Limit: RecentRuns}})
	if err != nil {
		return Job{}, err
	}
	for _, r := range runs {
		v.Recent = append(v.Recent, runView(r))
	}
	if err := d.addWaiting(ctx, runs, v.Recent); err != nil {
		return Job{}, err
	}
	if v.Pending, err = d.pending(ctx, v.Active, runs); err != nil {
		return Job{}, err
	}
	if len(runs) > 0 {
		r := v.Recent[0]
		v.LastRun = &r
	}
	if v.FannedOut() && d.cfg.Waves != nil {
		if w, err := d.Wave(ctx, s.Name); err == nil {
			v.LastWave = &w
		}
	}
	return v, nil
}

// pending returns the ids among active whose runs have not started:
// looked up in the job's latest runs, and in the store for an active run
// older than those (rare: a run waiting behind ten newer ones).
func (d *daemonBackend) pending(ctx context.Context, active []int64, recent []store.Run) ([]int64, error) {
	var out []int64
	for _, id := range active {
		i := slices.IndexFunc(recent, func(r store.Run) bool { return r.ID == id })
		state := store.RunState("")
		if i >= 0 {
			state = recent[i].State
		} else {
			r, err := d.cfg.Store.RunGet(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			state = r.State
		}
		if state == store.RunPending {
			out = append(out, id)
		}
	}
	return out, nil
}

// commandText shows an argv with arguments quoted where needed.
func commandText(s store.JobSpec) string {
	if s.Shell != "" {
		return s.Shell
	}
	parts := make([]string, len(s.Command))
	for i, a := range s.Command {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = strconv.Quote(a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func runView(r store.Run) Run {
	return Run{
		ID: r.ID, Job: r.Job, ScheduledTime: r.ScheduledTime, Attempt: r.Attempt, Reason: string(r.Reason),
		State: string(r.State), Node: r.Node, Target: r.Target, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		ExitCode: r.ExitCode, Error: r.Error, Output: r.Output,
	}
}

func (d *daemonBackend) Fires(ctx context.Context, q FireQuery) ([]Fire, error) {
	who := access.From(ctx)
	if q.Job != "" && !who.SeesJob(q.Job) {
		return nil, fmt.Errorf("%w (job %q)", ErrNotFound, q.Job)
	}
	if q.Job != "" {
		fs, err := d.cfg.Jobs.JobFires(ctx, q.Job, q.After, q.Limit)
		if err != nil {
			return nil, notFound(err)
		}
		out := make([]Fire, len(fs))
		for i, f := range fs {
			out[i] = fireView(f)
		}
		return out, nil
	}
	fs, err := d.upcoming(ctx, q.After, q.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]Fire, 0, q.Limit)
	for _, f := range fs {
		if f.Time.After(q.After) && len(out) < q.Limit && who.SeesJob(f.Job) {
			out = append(out, fireView(f))
		}
	}
	return out, nil
}

// fireView converts one of the controller's fires.
func fireView(f job.Fire) Fire {
	return Fire{Job: f.Job, Time: f.Time, Zone: f.Time.Location().String(),
		Outlook: f.Outlook.State, Until: f.Outlook.Until, Reason: f.Outlook.Reason}
}

// upcoming returns the merged upcoming fires after from. Merging every
// job's next fires reads every job (about 300 ms with 10,000 jobs on a
// busy machine), so the result is kept, fireCacheDepth times as many as
// asked for: a request is answered from it while it still holds limit
// fires after from, and one that finds it older than fireCacheTTL, or
// with fewer than half its fires left, starts a refresh in the background
// and does not wait for it. Only a request that finds too few fires (the
// first, one after an action dropped them, or one after a great many
// passed at once) computes them while it waits.
func (d *daemonBackend) upcoming(ctx context.Context, from time.Time, limit int) ([]job.Fire, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.firesAt.IsZero() && !from.Before(d.firesAt) && d.firesFor >= limit {
		left := 0
		for _, f := range d.fires {
			if f.Time.After(from) {
				left++
			}
		}
		exhaustive := len(d.fires) < d.firesFor*fireCacheDepth // every fire there is
		if left >= limit || exhaustive {
			if !d.refreshing && (from.Sub(d.firesAt) >= fireCacheTTL || (!exhaustive && 2*left < len(d.fires))) {
				d.refreshing = true
				go d.refreshFires(from, limit, d.firesGen)
			}
			return d.fires, nil
		}
	}
	fs, err := d.cfg.Jobs.Upcoming(ctx, from, fireCacheDepth*limit)
	if err != nil {
		return nil, err
	}
	d.fires, d.firesAt, d.firesFor = fs, from, limit
	return d.fires, nil
}

// refreshFires computes the upcoming fires after from in the background
// and keeps them, unless the cache was dropped meanwhile (gen changed).
func (d *daemonBackend) refreshFires(from time.Time, limit, gen int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fs, err := d.cfg.Jobs.Upcoming(ctx, from, fireCacheDepth*limit)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshing = false
	if err != nil || gen != d.firesGen || from.Before(d.firesAt) {
		return // a failed refresh leaves the cache; the next request tries again
	}
	d.fires, d.firesAt, d.firesFor = fs, from, limit
}

// forget drops cached fires after an action that changes them. (The job
// index follows the action's event.)
func (d *daemonBackend) forget() {
	d.mu.Lock()
	d.fires, d.firesAt = nil, time.Time{}
	d.firesGen++
	d.mu.Unlock()
}

func (d *daemonBackend) Runs(ctx context.Context, q RunQuery) ([]Run, int64, error) {
	p := store.RunListParams{Job: q.Job, ScheduledTime: q.ScheduledTime, Node: q.Node, Since: q.Since, Until: q.Until,
		JobPrefix: access.From(ctx).JobPrefix,
		Page:      store.Page{Cursor: q.Cursor, Limit: q.Limit}}
	for _, s := range q.States {
		p.States = append(p.States, store.RunState(s))
	}
	runs, next, err := d.cfg.Store.RunList(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Run, len(runs))
	for i, r := range runs {
		out[i] = runView(r)
		out[i].Output = nil
	}
	if err := d.addWaiting(ctx, runs, out); err != nil {
		return nil, 0, err
	}
	return out, next, nil
}

// addWaiting fills in why the held ones among runs wait (out[i] is
// runs[i]), with one store read for the lot: the reasons the lifecycle
// recorded, as the API serves them.
func (d *daemonBackend) addWaiting(ctx context.Context, runs []store.Run, out []Run) error {
	waits, err := store.WaitingOf(ctx, d.cfg.Store, runs)
	if err != nil {
		return err
	}
	for i, r := range runs {
		if w, ok := waits[r.ID]; ok {
			out[i].Waiting = &Waiting{Kind: string(w.Kind), Detail: w.Detail, Until: w.Until}
		}
	}
	return nil
}

func (d *daemonBackend) Run(ctx context.Context, id int64) (Run, error) {
	r, err := d.cfg.Store.RunGet(ctx, id)
	if err == nil && !access.From(ctx).SeesJob(r.Job) {
		err = fmt.Errorf("run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return Run{}, notFound(err)
	}
	// While the run executes on this node its output so far comes from the
	// process, so the run page shows it as it is written.
	if lo, ok := d.cfg.Jobs.(httpapi.LiveOutputter); ok && !r.State.Terminal() {
		if out, _, live := lo.LiveOutput(r.ID, 0); live {
			r.Output = out
		}
	}
	out := []Run{runView(r)}
	if err := d.addWaiting(ctx, []store.Run{r}, out); err != nil {
		return Run{}, err
	}
	out[0].Kubernetes = d.runKubernetes(ctx, r)
	return out[0], nil
}

// eventScan bounds how many events one page of a resource-filtered listing
// reads (the store filters by job and kind, not by resource).
const eventScan = 5000

func (d *daemonBackend) Events(ctx context.Context, q EventQuery) ([]Event, int64, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	p := store.EventListParams{Job: q.Job, Since: q.Since, Until: q.Until, Page: store.Page{Cursor: q.Cursor, Limit: limit},
		JobPrefix: access.From(ctx).JobPrefix}
	if q.Kind != "" {
		p.Kinds = kindsOf(q.Kind)
	}
	if q.Resource == "" {
		evs, next, err := d.cfg.Store.EventList(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		out := make([]Event, len(evs))
		for i, e := range evs {
			out[i] = eventView(e)
		}
		return out, next, nil
	}
	var out []Event
	p.Limit = 500
	for scanned := 0; scanned < eventScan; {
		evs, next, err := d.cfg.Store.EventList(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		scanned += len(evs)
		for _, e := range evs {
			if e.Resource != q.Resource {
				continue
			}
			out = append(out, eventView(e))
			if len(out) == limit {
				return out, e.ID, nil
			}
		}
		if next == 0 {
			return out, 0, nil
		}
		p.Cursor = next
	}
	return out, p.Cursor, nil // scanned enough for one page; the next one continues
}

// kindsOf resolves an event kind filter as the API does: an exact kind,
// or a family ("run") meaning every kind in it.
func kindsOf(name string) []store.EventKind {
	out := []store.EventKind{store.EventKind(name)}
	if strings.Contains(name, ".") {
		return out
	}
	for _, k := range httpapi.EventKinds {
		if strings.HasPrefix(string(k), name+".") {
			out = append(out, k)
		}
	}
	return out
}

func eventView(e store.Event) Event {
	v := Event{ID: e.ID, Time: e.Time, Kind: string(e.Kind), Job: e.Job, Resource: e.Resource, RunID: e.RunID, Message: e.Message,
		Actor: e.Actor, Via: e.Via, Remote: e.Remote}
	if e.Kind == store.EventRunMissed && len(e.Data) > 0 {
		var d struct {
			Count int `json:"count"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.Count > 0 {
			v.Count = d.Count
		}
	}
	return v
}

func (d *daemonBackend) SetSuspended(ctx context.Context, name string, suspended bool) error {
	defer d.forget()
	if suspended {
		return notFound(d.cfg.Jobs.Suspend(ctx, name))
	}
	return notFound(d.cfg.Jobs.Resume(ctx, name))
}

func (d *daemonBackend) RebootGroups(ctx context.Context) ([]apitype.RebootGroup, error) {
	if d.cfg.RebootGroups == nil {
		return nil, nil
	}
	return d.cfg.RebootGroups(ctx)
}

func (d *daemonBackend) Kill(ctx context.Context, id int64) error {
	return notFound(d.cfg.Jobs.Kill(ctx, id))
}

func (d *daemonBackend) Trigger(ctx context.Context, name string) (Run, error) {
	r, err := d.cfg.Jobs.Trigger(ctx, name)
	if err != nil {
		return Run{}, notFound(err)
	}
	return runView(r), nil
}

func (d *daemonBackend) Resources(context.Context) ([]Resource, error) {
	if d.cfg.Resources == nil {
		return nil, nil
	}
	sts := d.cfg.Resources.Resources()
	out := make([]Resource, len(sts))
	for i, st := range sts {
		out[i] = FleetResource(st)
	}
	return out, nil
}

func (d *daemonBackend) Windows(ctx context.Context, now time.Time) ([]Window, error) {
	if d.cfg.Windows == nil {
		return nil, nil
	}
	ws, err := d.cfg.Windows(ctx, now)
	if err != nil {
		return nil, err
	}
	gates, err := d.gatedJobs(ctx, now)
	if err != nil {
		return nil, err
	}
	for i := range ws {
		names := gates[ws[i].Name]
		ws[i].GatedJobs = len(names)
		ws[i].Gates = names[:min(len(names), maxGateNames)]
	}
	return ws, nil
}

// maxGateNames caps the job names listed under a window; the count says
// how many there are in all.
const maxGateNames = 10

// gatedJobs maps each schedule gate to the names of the jobs it holds,
// in name order, from the job index.
func (d *daemonBackend) gatedJobs(ctx context.Context, now time.Time) (map[string][]string, error) {
	who := access.From(ctx)
	gates := make(map[string][]string)
	err := d.withIndex(ctx, now, func(x *jobIndex) {
		for _, j := range x.orders[JobSortName] {
			if j.gate != "" && who.SeesJob(j.name) {
				gates[j.gate] = append(gates[j.gate], j.name)
			}
		}
	})
	return gates, err
}

func (d *daemonBackend) Cluster(ctx context.Context) (apitype.Cluster, error) {
	if d.cfg.Cluster == nil {
		return apitype.Cluster{}, nil
	}
	return d.cfg.Cluster.Cluster(ctx)
}

func (d *daemonBackend) Applies(ctx context.Context, q ApplyQuery) (ApplyPage, error) {
	if d.cfg.Agent == nil {
		return ApplyPage{}, nil
	}
	reps, err := d.cfg.Agent.ListReports(ctx, agent.ReportFilter{Before: q.Cursor, Limit: q.Limit})
	if err != nil {
		return ApplyPage{}, err
	}
	p := ApplyPage{Enabled: true, Agent: d.cfg.Agent.Status(), Reports: reps}
	if q.Limit > 0 && len(reps) == q.Limit {
		p.Next = reps[len(reps)-1].ID
	}
	return p, nil
}

func (d *daemonBackend) Apply(ctx context.Context, id int64) (*agent.Report, error) {
	if d.cfg.Agent == nil {
		return nil, fmt.Errorf("%w: apply report %d (the daemon runs no agent)", ErrNotFound, id)
	}
	r, err := d.cfg.Agent.GetReport(ctx, id)
	if errors.Is(err, agent.ErrNotFound) {
		return nil, fmt.Errorf("%w: apply report %d", ErrNotFound, id)
	}
	return r, err
}

// WeeklyWindow describes a weekly calendar as a named window at now. A
// window that runs over Sunday midnight, which the calendar keeps as two
// intervals, is drawn as one block.
func WeeklyWindow(name, kind string, cal *weekly.Calendar, now time.Time) Window {
	w := Window{Name: name, Kind: kind, Zone: cal.Location().String()}
	for _, iv := range cal.JoinedIntervals() {
		w.Intervals = append(w.Intervals, Interval{iv.Start, iv.End})
	}
	if cal.Contains(now) {
		w.Open = true
		if end, ok := cal.CurrentEnd(now); ok {
			w.Until = end
		}
	} else if at, ok := cal.NextOpen(now); ok {
		w.Until = at
	}
	return w
}

// calendarReading shows a job's calendar events in systemd's normalized
// form ("Mon..Fri *-*-* 09:00:00"), as systemd-analyze prints them.
func calendarReading(events []string, zone string) string {
	var forms []string
	for _, e := range events {
		c, err := oncalendar.Parse(e, zoneOf(zone))
		if err != nil {
			return ""
		}
		forms = append(forms, c.String())
	}
	return "normalized: " + strings.Join(forms, "; ")
}
