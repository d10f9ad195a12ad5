package webui

import (
	"github.com/almanac-sh/almanac/internal/audit"

	"context"
	"errors"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// ErrNotFound is returned (possibly wrapped) by a Backend when the job, run
// or resource asked for does not exist; the UI answers 404.
var ErrNotFound = errors.New("not found")

// Backend is everything the UI reads and changes. The daemon implements it
// over its job controller, store and fleet scheduler; tests use
// webuitest.Backend. Every method takes ctx first and must be safe for
// concurrent use.
type Backend interface {
	// Jobs returns a page of jobs in the order q.Sort: at most q.Limit,
	// after q.After, whose names contain q.Filter, and the name to
	// continue from ("" when there are no more).
	Jobs(ctx context.Context, q JobQuery) (JobPage, error)
	// JobSummary counts the jobs, the suspended ones and the active runs
	// without listing the jobs.
	JobSummary(ctx context.Context) (JobSummary, error)
	// Job returns one job; ErrNotFound if there is none of that name.
	Job(ctx context.Context, name string) (Job, error)
	// Fires returns up to q.Limit scheduled instants strictly after q.After,
	// earliest first: of one job, or merged across every job that is not
	// suspended when q.Job is empty.
	Fires(ctx context.Context, q FireQuery) ([]Fire, error)
	// Runs returns runs newest first and the cursor of the next page (0 when
	// there is none). Output is left empty.
	Runs(ctx context.Context, q RunQuery) (runs []Run, next int64, err error)
	// Run returns one run with its captured output; ErrNotFound.
	Run(ctx context.Context, id int64) (Run, error)
	// Events returns log entries newest first and the next page's cursor.
	Events(ctx context.Context, q EventQuery) (events []Event, next int64, err error)
	// SetSuspended suspends (true) or resumes (false) a job; ErrNotFound.
	SetSuspended(ctx context.Context, job string, suspended bool) error
	// RebootGroups returns the FleetLock reboot groups and their holders.
	RebootGroups(ctx context.Context) ([]apitype.RebootGroup, error)
	// Kill stops an active run (it ends as killed); ErrNotFound, or another
	// error when the run has already ended.
	Kill(ctx context.Context, id int64) error
	// Trigger starts a manual run of a job now and returns it; ErrNotFound.
	Trigger(ctx context.Context, job string) (Run, error)
	// Resources returns every managed resource, ordered by name.
	Resources(ctx context.Context) ([]Resource, error)
	// Windows returns every named window or schedule, ordered by name, with
	// its open/closed state at now.
	Windows(ctx context.Context, now time.Time) ([]Window, error)
	// Cluster returns the nodes sharing the store, who leads and in which
	// term, as GET /api/v1/cluster answers; a Cluster without nodes when
	// the backend knows of none.
	Cluster(ctx context.Context) (apitype.Cluster, error)
	// Applies returns agent apply reports newest first, as summaries
	// (without resources and events), with the agent's status, as GET
	// /api/v1/applies answers; Enabled is false when no agent runs.
	Applies(ctx context.Context, q ApplyQuery) (ApplyPage, error)
	// Apply returns one full apply report; ErrNotFound.
	Apply(ctx context.Context, id int64) (*agent.Report, error)
	// Wave returns the progress of the latest instant of a fanned-out job
	// across its nodes; ErrNotFound when there is no such job, ErrNoWave
	// (wrapped) when it has no targeted runs.
	Wave(ctx context.Context, job string) (Wave, error)
	// SetWavesPaused pauses (true) or resumes (false) a job's waves: a
	// paused job's waiting targeted runs are held, started ones go on;
	// ErrNotFound.
	SetWavesPaused(ctx context.Context, job string, paused bool) error
	// AbortWaves ends every waiting targeted run of a job as skipped and
	// returns how many; started runs go on. ErrNotFound.
	AbortWaves(ctx context.Context, job string) (int, error)
}

// ErrNoWave is returned (wrapped) by Backend.Wave for a job without
// fanned-out runs.
var ErrNoWave = errors.New("the job has no fanned-out runs")

// Wave is the progress of one instant of a fanned-out job across its
// target nodes, as job.Controller.Wave derives it.
type Wave struct {
	Instant time.Time
	// State is one of the WaveState constants: running, paused, stopped or done.
	State string
	// MaxParallel is the resolved limit of nodes active at once (0 = none);
	// MaxFailures the failures that stop the wave (0 = never).
	MaxParallel, MaxFailures int
	Paused                   bool
	// The nodes of the wave by their latest attempt's state.
	Done, Running, Waiting, Failed, Skipped int
}

// Nodes counts the wave's nodes.
func (w Wave) Nodes() int { return w.Done + w.Running + w.Waiting + w.Failed + w.Skipped }

// ApplyQuery selects apply reports.
type ApplyQuery struct {
	Cursor int64 // only reports with ID < Cursor; 0 starts at the newest
	Limit  int   // 0: the backend's default page size
}

// ApplyPage is one page of apply reports.
type ApplyPage struct {
	// Enabled is false when the daemon runs no agent (no --manifests).
	Enabled bool
	Agent   agent.Status
	Reports []*agent.Report
	// Next is the cursor of the following (older) page; 0 when there is none.
	Next int64
}

// Job is a job as the UI shows it.
type Job struct {
	Name string
	// Schedule is the cron expression, the systemd calendar events (joined
	// by "; "), or "at <RFC 3339>" for a one-shot job.
	Schedule string
	// Dialect names the schedule's language when it is not almanac's cron:
	// "kubernetes cron" or "systemd calendar".
	Dialect string
	// RandomizedDelay is the fixed offset each fire is delayed by; zero
	// when the job has none.
	RandomizedDelay time.Duration
	// Description is the schedule's plain-English reading ("at 02:00 every
	// day"); empty when the backend has none.
	Description string
	// Zone is the IANA time zone the schedule is read in.
	Zone    string
	Command string
	Env     map[string]string
	Cwd     string
	// Source says where the job was defined (api, manifest, demo).
	Source    string
	Suspended bool
	// SuspendedBy and WavePausedBy say who suspended the job or paused
	// its waves, how and from where ("alice (ui, 10.0.0.7)"), when the
	// event log knows; filled in for the job's own page only.
	SuspendedBy, WavePausedBy string
	ConcurrencyPolicy         string
	// StartingDeadline bounds how late a run may start; zero means no bound.
	StartingDeadline time.Duration
	BackoffLimit     int
	// Timeout kills a run that takes longer; zero means none.
	Timeout time.Duration
	// Gate names the schedule gate the job's runs wait for, if any.
	Gate     string
	Requires []string
	// Nodes is the job's node selector: empty or "any" runs each instant
	// once on any node; otherwise the instant fans out into one run per
	// matching node.
	Nodes string
	// MaxParallel ("2", "25%"), MaxFailures and WaveOrder shape a
	// fanned-out job's rolling waves; WavePaused holds them.
	MaxParallel string
	MaxFailures int
	WaveOrder   string
	WavePaused  bool
	// CatchUp is the job's catch_up policy as set ("" = the default,
	// latest): what happens to instants a run could not start at.
	CatchUp string
	// Window maps node label selectors, or "default", to the window a
	// matching node's runs of this job wait for (the job's window map).
	Window map[string]string

	// Active holds the ids of the job's active runs: executing now, or
	// pending (waiting for a gate, an upstream job or a retry).
	Active []int64
	// Pending holds the ids among Active that have not started.
	Pending            []int64
	Succeeded          int64
	Failed             int64
	LastScheduleTime   time.Time
	LastSuccessfulTime time.Time
	// NextFire is the next scheduled instant; zero when there is none
	// (suspended, or a one-shot already done).
	NextFire time.Time
	// LastRun is the most recent run, if any.
	LastRun *Run
	// LastWave is the latest instant's wave of a fanned-out job (nil for
	// other jobs and before the first fanned-out run): its "last result".
	LastWave *Wave
	// Recent are the job's latest runs, newest first (at most
	// RecentRuns), for the coloured strip of outcomes.
	Recent []Run
}

// FannedOut reports whether the job runs each instant on several nodes
// (its node selector is neither empty nor any).
func (j Job) FannedOut() bool { return j.Nodes != "" && j.Nodes != "any" }

// RecentRuns is how many of a job's latest runs its strip shows.
const RecentRuns = 10

// Failing reports whether the job's finished runs among the recent ones
// all failed: at least one, and the latest finished one failed.
func (j Job) Failing() bool {
	finished := 0
	for _, r := range j.Recent {
		switch r.State {
		case RunFailed:
			finished++
		case RunSucceeded:
			return false
		}
		if finished >= 3 {
			break
		}
	}
	return finished > 0
}

// Missing reports whether every finished run among the recent ones was
// missed (at least one): the job is scheduled but nothing of it runs (a
// gate that never opens, a deadline behind a closed gate, a node always
// outside its window). Runs skipped by an aborted or stopped wave do not
// count, nor do they clear it.
func (j Job) Missing() bool {
	missed := 0
	for _, r := range j.Recent {
		switch {
		case r.State == RunMissed && strings.HasPrefix(r.Error, "skipped"):
		case r.State == RunMissed:
			missed++
		case r.State == RunSucceeded || r.State == RunFailed || r.State == RunKilled:
			return false
		}
	}
	return missed > 0
}

// PartlyFailing reports whether some node of a fanned-out job failed in
// its latest wave while others did not.
func (j Job) PartlyFailing() bool {
	w := j.LastWave
	return w != nil && w.Failed > 0 && w.Done > 0
}

// Health is the job's state in one word, most urgent first: suspended,
// failing (its latest finished runs failed), partly-failing (a node failed
// in its latest wave), missing (every recent fire was missed) or
// scheduled.
func (j Job) Health() string {
	switch {
	case j.Suspended:
		return "suspended"
	case j.PartlyFailing():
		return "partly-failing"
	case j.Failing():
		return "failing"
	case j.Missing():
		return "missing"
	}
	return "scheduled"
}

// JobQuery selects a page of jobs.
type JobQuery struct {
	After  string // names sorting after this one
	Filter string // names containing this
	// State keeps the jobs in one of the JobStates ("" keeps all).
	State string
	Limit int // at most this many; 0 = all
	// Sort is the order of the list (After counts in it); the zero
	// JobSort is by name.
	Sort JobSort
}

// JobPage is a page of jobs and the name the next page starts after.
type JobPage struct {
	Jobs []Job
	Next string
	// Total counts the jobs matching the query on every page; Offset
	// how many of them come before this page.
	Total, Offset int
	// HasPrev is set when a page comes before this one; it starts after
	// Prev ("" for the first page).
	HasPrev bool
	Prev    string
}

// JobSummary is what the overview counts.
type JobSummary struct {
	Jobs, Suspended, ActiveRuns int
}

// FireQuery selects upcoming scheduled instants.
type FireQuery struct {
	Job   string // empty: every job that is not suspended
	After time.Time
	Limit int
}

// Fire is one upcoming scheduled instant of a job.
type Fire struct {
	Job  string
	Time time.Time
	// Zone is the job's zone, for showing the instant as the job reads it.
	Zone string
	// Outlook is what the job's gate will do to the fire: OutlookOnTime
	// (or empty), OutlookWaits (until Until, if set) or OutlookWillMiss.
	Outlook string
	Until   time.Time
	// Reason says why the run waits or will be missed.
	Reason string
	// Overlaps is the active run of a Forbid job that is expected to
	// still run at the fire, which is then skipped if it still does (set
	// by the job page, not the backend); 0 for none.
	Overlaps int64
}

// Fire outlooks, as the job controller names them.
const (
	OutlookOnTime   = "on-time"
	OutlookWaits    = "waits"
	OutlookWillMiss = "will-miss"
)

// Run states as the UI knows them; a backend may use others, shown as they are.
const (
	RunPending   = "pending"
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunKilled    = "killed"
	RunMissed    = "missed"
	// RunLost: the run's machine was lost, and its outcome with it.
	RunLost = "lost"
)

// Run is one execution of a job.
type Run struct {
	ID            int64
	Job           string
	ScheduledTime time.Time
	Attempt       int
	// Reason says why the run exists: schedule, catch-up, manual, retry.
	Reason string
	State  string
	// Node is the node that claimed the run; Target the node a fanned-out
	// run is for (empty: any node).
	Node       string
	Target     string
	StartedAt  time.Time
	FinishedAt time.Time
	// ExitCode is nil when the process did not exit normally (or has not yet).
	ExitCode *int
	// Error explains a failure that is not just an exit status.
	Error string
	// Output is the captured tail of stdout and stderr (only from Backend.Run).
	Output []byte
	// NodeLiveness is set by the pages (not the backend) on an active run
	// whose node is suspect or down (apitype.NodeSuspect, NodeDown).
	NodeLiveness string
	// Waiting says why a pending run has not been released to start; nil
	// when it is not held (or not pending).
	Waiting *Waiting
	// Kubernetes names the Kubernetes Job of a started run of a Kubernetes
	// job (only from Backend.Run); nil for any other run.
	Kubernetes *KubernetesRun
}

// KubernetesRun is where a run of a Kubernetes job executes: the
// kubeconfig context (empty: the current one), the namespace and the Job,
// and its Pods with their phases while a node follows it.
type KubernetesRun struct {
	Context, Namespace, Job string
	Pods                    []KubernetesPod
}

// KubernetesPod is one Pod of a run's Job and its phase.
type KubernetesPod struct{ Name, Phase string }

// Waiting is why a held pending run waits, as the lifecycle decided it:
// the same reason the API serves as a run's `waiting`.
type Waiting struct {
	// Kind is one of gate, window, node-down, upstream, backoff, slot,
	// max-parallel, paused, catch-up.
	Kind string
	// Detail says it in words ("schedule gate \"x\" is closed").
	Detail string
	// Until is when it ends; zero when that depends on something else.
	Until time.Time
}

// In says the reason in words with its end in loc: "schedule gate "x" is
// closed, until Tue 2026-12-01 02:00:00 CET".
func (w *Waiting) In(loc *time.Location) string {
	if w == nil {
		return ""
	}
	if w.Until.IsZero() {
		return w.Detail
	}
	return w.Detail + ", until " + when(w.Until, loc)
}

// Active reports whether the run has not finished yet.
func (r Run) Active() bool { return r.State == RunPending || r.State == RunRunning }

// RunQuery selects runs.
type RunQuery struct {
	Job    string   // empty: every job
	States []string // empty: every state
	// ScheduledTime, when set, keeps the runs of that instant.
	ScheduledTime time.Time
	// Node, when set, keeps the runs for that node or taken by it.
	Node string
	// Since and Until, when set, keep the runs scheduled at or after
	// Since and before Until.
	Since, Until time.Time
	Cursor       int64 // only runs with ID < Cursor; 0 starts at the newest
	Limit        int   // 0: the backend's default page size
}

// Event is one entry of the event log.
type Event struct {
	ID   int64
	Time time.Time
	Kind string
	// Job and Resource name what the event is about, when anything.
	Job      string
	Resource string
	RunID    int64
	Message  string
	// Count is how many scheduled instants a run.missed event stands for
	// (one event records a stretch of missed instants); 0 means one.
	Count int
	// Actor, Via and Remote say who caused the event, how and from where
	// (empty for what the daemon did on its own).
	Actor, Via, Remote string
}

// By reads who caused the event as the log shows it: "alice (ui,
// 10.0.0.7)"; empty when the daemon did it on its own.
func (e Event) By() string {
	return audit.Actor{Name: e.Actor, Via: e.Via, Remote: e.Remote}.String()
}

// EventQuery selects log entries; empty fields match everything.
type EventQuery struct {
	Job      string
	Resource string
	Kind     string
	// Since and Until bound the events' time; zero = unbounded.
	Since, Until time.Time
	Cursor       int64 // only events with ID < Cursor; 0 starts at the newest
	Limit        int
}

// Resource is a managed resource (a machine or service started and stopped
// on a weekly schedule).
type Resource struct {
	ID    string
	Name  string
	State string // running, stopped, hibernated
	// Validation is ok, warnings, errors or unscheduled.
	Validation string
	Zone       string
	// Start and Stop are the schedules in weekly event syntax.
	Start, Stop string
	// StartTimes and StopTimes are the schedules' events in minutes since
	// Monday 00:00 in Zone, for drawing the week.
	StartTimes, StopTimes []int
	NextStart, NextStop   time.Time // zero when none
	Hibernate             bool
	Notify                string
	Errors, Warnings      []string
	// Retry describes a failed action waiting for another attempt; empty if none.
	Retry  string
	Tags   map[string]string
	SeenAt time.Time
}

// Up reports whether the resource is running.
func (r Resource) Up() bool { return r.State == "running" }

// Window is a named weekly window or schedule.
type Window struct {
	Name string
	// Kind says what defines it: "window" (Zincati-style windows),
	// "schedule" (a Puppet schedule gate), and so on.
	Kind string
	Zone string
	// Intervals are the open periods in minutes since Monday 00:00 in Zone,
	// half-open [Start, End).
	Intervals []Interval
	// Description says in words what Intervals cannot (repeat limits, periods).
	Description string
	// Open tells whether the window is open at the time asked; Until is when
	// it closes (open) or next opens (closed), zero if never.
	Open  bool
	Until time.Time
	// Gates names jobs whose schedule gate this window is (at most ten,
	// by name); GatedJobs counts them all.
	Gates     []string
	GatedJobs int
}

// MoreGated is how many gated jobs Gates leaves out.
func (w Window) MoreGated() int { return w.GatedJobs - len(w.Gates) }

// WeeklyMinutes returns how many minutes a week the window is open.
func (w Window) WeeklyMinutes() int {
	n := 0
	for _, iv := range w.Intervals {
		n += iv.End - iv.Start
	}
	return n
}

// Interval is a half-open span [Start, End) of minutes since Monday 00:00.
type Interval struct {
	Start, End int
}
