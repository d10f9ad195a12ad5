// Package store defines almanac's persistence contract: jobs, their runs and an
// append-only event log. Backends live in sub-packages (sqlitestore, the
// default embedded one, and a PostgreSQL backend for several nodes); every
// backend passes the same conformance suite in storetest.
//
// The contract is shaped for both backends:
//
//   - Runs are unique on (job, scheduled time, attempt). RunInsert returns
//     ErrDuplicate for a second insert of the same key, whoever makes it, so
//     "exactly one run per scheduled instant" is a database guarantee, not a
//     check-then-insert in the controller.
//   - Every write the job controller makes carries a leadership term (the
//     Term field of the params). A multi-node backend rejects a write whose
//     term is older than the current leader's with ErrStaleTerm (fencing); a
//     single-node backend may ignore it. Term 0 means "not a controller
//     write" (API edits, workers) and is never fenced.
//   - Runs flow pending -> running -> succeeded|failed|killed. A pending run
//     is held by the controller (ReadyAt zero: waiting for a gate, an upstream
//     job or a concurrency slot) until it is released with RunRelease; then any
//     node may claim it with RunClaim once ReadyAt has passed. Running runs
//     are kept alive by RunHeartbeat; RunListStale finds the ones whose node
//     stopped heart-beating. A pending run that can never start is finished
//     as missed or killed.
//   - Writes that change state may append events in the same transaction
//     (the Events fields), so the log never disagrees with the tables.
//
// Times are stored with microsecond precision in UTC; callers should pass
// times already truncated (clock readings are truncated by the backend).
// All methods are safe for concurrent use.
package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
)

// Errors every backend returns (possibly wrapped; test with errors.Is).
var (
	// ErrNotFound: the job, run or event does not exist.
	ErrNotFound = errors.New("not found")
	// ErrDuplicate: a job with the same name, or a run with the same
	// (job, scheduled time, attempt), already exists.
	ErrDuplicate = errors.New("already exists")
	// ErrConflict: the row is not in the state the write expected (for
	// example finishing a run that already finished, or a job version
	// mismatch).
	ErrConflict = errors.New("conflict")
	// ErrStaleTerm: the write carried a leadership term older than the
	// current one; the caller is no longer the leader.
	ErrStaleTerm = errors.New("stale leadership term")
)

// ConcurrencyPolicy says what happens when a run is due while another run of
// the same job is active.
type ConcurrencyPolicy string

// Concurrency policies, as in Kubernetes CronJob.
const (
	Allow   ConcurrencyPolicy = "Allow"   // start the new run alongside
	Forbid  ConcurrencyPolicy = "Forbid"  // skip the new run
	Replace ConcurrencyPolicy = "Replace" // kill the active run, start the new one
)

// Source says where a job definition came from.
type Source string

// Job sources.
const (
	SourceAPI      Source = "api"      // created over the HTTP API or CLI
	SourceManifest Source = "manifest" // declared by a `job` resource in a manifest
	SourceDemo     Source = "demo"     // created by `serve --demo`
)

// JobSpec is a job's definition, as validated by package job and stored
// verbatim (backends keep it as one JSON document, so adding a field needs no
// migration). The JSON names are the manifest attribute names.
type JobSpec struct {
	// Name identifies the job; unique.
	Name string `json:"name"`
	// Cron is the cron expression of a repeating job; empty for a one-shot
	// or an on_calendar job.
	Cron string `json:"cron,omitempty"`
	// At is the instant of a one-shot job; nil for a repeating job.
	At *time.Time `json:"at,omitempty"`
	// Manual marks a job with no schedule at all: it runs only when
	// triggered (`almanac trigger`, the API, the UI). Exclusive with Cron,
	// OnCalendar and At, one of which every other job has.
	Manual bool `json:"manual,omitempty"`
	// CronDialect says which rules read Cron: "" or "vixie" (almanac's
	// cron, docs/cron.md) or "kubernetes" (a Kubernetes CronJob's).
	CronDialect string `json:"cron_dialect,omitempty"`
	// OnCalendar holds systemd calendar events (systemd.time(7)); the job
	// fires at the union of their instants. Exclusive with Cron and At.
	OnCalendar []string `json:"on_calendar,omitempty"`
	// TimeZone is the IANA zone (or tag form) the cron expression is read in; empty = UTC.
	TimeZone string `json:"time_zone,omitempty"`
	// RandomizedDelaySeconds, if positive, delays every fire by a fixed
	// offset in [0, RandomizedDelaySeconds) derived from the job's name,
	// so jobs sharing a schedule across a fleet do not start at once.
	RandomizedDelaySeconds int64 `json:"randomized_delay_seconds,omitempty"`
	// Command is the argv to execute directly; exclusive with Shell.
	Command []string `json:"command,omitempty"`
	// Shell is a command line run by /bin/sh -c; exclusive with Command.
	Shell string `json:"shell,omitempty"`
	// Env holds extra environment variables for the process.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the working directory; empty = the daemon's.
	Cwd string `json:"cwd,omitempty"`
	// StartingDeadlineSeconds bounds how late a run may start; nil = no bound.
	StartingDeadlineSeconds *int64 `json:"starting_deadline_seconds,omitempty"`
	// ConcurrencyPolicy defaults to Allow.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrency_policy,omitempty"`
	// Suspend stops future runs; active runs continue.
	Suspend bool `json:"suspend,omitempty"`
	// BackoffLimit is the number of retries after a failed attempt.
	BackoffLimit int `json:"backoff_limit,omitempty"`
	// TimeoutSeconds kills a run that takes longer; 0 = no timeout.
	TimeoutSeconds int64 `json:"timeout_seconds,omitempty"`
	// SuccessfulJobsHistoryLimit is how many succeeded runs to keep (nil = 3).
	SuccessfulJobsHistoryLimit *int `json:"successful_jobs_history_limit,omitempty"`
	// FailedJobsHistoryLimit is how many failed, killed or missed runs to keep (nil = 1).
	FailedJobsHistoryLimit *int `json:"failed_jobs_history_limit,omitempty"`
	// Schedule names a schedule gate; a due run waits until the gate is open.
	Schedule string `json:"schedule,omitempty"`
	// Requires lists upstream jobs whose run for the same scheduled instant
	// must succeed before a run of this job starts.
	Requires []string `json:"require,omitempty"`
	// Before lists downstream jobs that wait for this job's run of the same
	// instant (the reverse of Requires, as Puppet's before/require).
	Before []string `json:"before,omitempty"`
	// Notify lists where to report the job's runs: mailto:ADDRESS, an
	// http(s) webhook URL (JSON), or a Slack-compatible incoming webhook.
	Notify []string `json:"notify,omitempty"`
	// NotifyOn lists the outcomes reported: failure, missed, recovered,
	// success (empty means failure and missed).
	NotifyOn []string `json:"notify_on,omitempty"`
	// AlertAfterSeconds, if positive, makes the job "overdue" when its last
	// success (or its creation) is older than that: one notification is
	// sent, whatever happened to the runs (a dead-man check).
	AlertAfterSeconds int64 `json:"alert_after_seconds,omitempty"`
	// RunAs is the user (and optionally the group, "user:group") the
	// command runs as; empty means the daemon's user.
	RunAs string `json:"run_as,omitempty"`
	// Nodes selects the cluster nodes the job runs on, in the grammar of
	// package nodeselect: "" or "any" (one run on any node), "all", a node
	// name or a label selector such as "role=db,zone!=eu".
	Nodes string `json:"nodes,omitempty"`
	// Window maps label selectors (package nodeselect) to the name of the
	// window (a schedule gate) a targeted run must wait for on a node that
	// matches; the key "default" applies to nodes no selector matches and
	// without a window of their own (serve --node-window). Only meaningful
	// with Nodes other than any (docs/fleet-jobs.md).
	Window map[string]string `json:"window,omitempty"`
	// MaxParallel limits how many of an instant's targeted runs are active
	// at once: a count ("2") or a percentage of the targeted nodes
	// ("25%"); empty = no limit (every node at once).
	MaxParallel string `json:"max_parallel,omitempty"`
	// MaxFailures stops a rolling wave once that many nodes have failed
	// (after their retries); 0 = never stop.
	MaxFailures int `json:"max_failures,omitempty"`
	// WaveOrder orders a wave's nodes: "" or "name" (by node name) or
	// "random" (shuffled, seeded by the job and the instant).
	WaveOrder string `json:"wave_order,omitempty"`
	// RebootGroup names a FleetLock reboot group: each node's run takes
	// one of the group's slots (holder: the node's name) before it starts
	// and gives it back when it ends, so jobs that reboot their machine
	// and Zincati share the group's limit and window. Fanned-out jobs only.
	RebootGroup string `json:"reboot_group,omitempty"`
	// WavePaused holds back the job's waiting targeted runs (an operator's
	// `almanac wave pause`); runs already started continue. It is operator
	// state, not part of the spec: the stores keep it beside the spec
	// (JobSetWavePaused) and fill it in when they read a job, and a
	// JobCreate or JobUpdate neither stores nor changes it, so replacing a
	// job's spec (a PUT, a manifest reload) keeps its waves paused.
	WavePaused bool `json:"wave_paused,omitempty"`
	// CatchUp says what happens to the instants a run could not start at
	// (daemon down, gate or window closed, wave paused, node away):
	// "latest" (or "", the default) keeps only the latest waiting and
	// records the others missed, "all" keeps every one (they run one after
	// another per node), "none" misses them all.
	CatchUp string `json:"catch_up,omitempty"`
}

// EncodeSpec encodes a spec as the stores keep it: JSON without the
// operator state (WavePaused) that lives beside it.
func EncodeSpec(spec JobSpec) ([]byte, error) {
	spec.WavePaused = false
	return json.Marshal(spec)
}

// JobSetWavePausedParams sets a job's wave pause (operator state).
// Events are appended only when it changes.
type JobSetWavePausedParams struct {
	Name   string
	Paused bool
	Now    time.Time
	Term   int64
	Events []Event
}

// JobStatus is what the store remembers about a job's runs beyond the runs
// themselves (which are pruned). Active runs and the next schedule time are
// computed, not stored.
type JobStatus struct {
	// LastScheduleTime is the latest scheduled instant the controller has
	// dealt with (run, missed or skipped); the controller never looks at
	// instants at or before it again. Zero = none yet.
	LastScheduleTime time.Time `json:"last_schedule_time,omitzero"`
	// LastSuccessfulTime is when the latest succeeded run finished.
	LastSuccessfulTime time.Time `json:"last_successful_time,omitzero"`
	// Succeeded and Failed count finished runs over the job's life
	// (failed includes killed; missed runs are not counted).
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
}

// Job is a stored job.
type Job struct {
	Spec   JobSpec
	Status JobStatus
	Source Source
	// Version starts at 1 and increases on every JobUpdate.
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// RunState is where a run is in its life.
type RunState string

// Run states. Succeeded, Failed, Killed, Missed and Lost are terminal.
const (
	RunPending   RunState = "pending"
	RunRunning   RunState = "running"
	RunSucceeded RunState = "succeeded"
	RunFailed    RunState = "failed"
	RunKilled    RunState = "killed"
	RunMissed    RunState = "missed"
	// RunLost: the machine executing the run was lost (it rebooted, or
	// its node stayed away past the lease with its supervisor out of
	// reach), and the command's outcome with it. Counted as a failure
	// and retried per backoff_limit.
	RunLost RunState = "lost"
)

// Terminal reports whether s is a final state.
func (s RunState) Terminal() bool {
	return s == RunSucceeded || s == RunFailed || s == RunKilled || s == RunMissed || s == RunLost
}

// Reason says why a run exists.
type Reason string

// Run reasons.
const (
	ReasonSchedule Reason = "schedule" // due on time
	ReasonCatchUp  Reason = "catch-up" // the latest instant missed during downtime, still inside the deadline
	ReasonManual   Reason = "manual"   // `almanac trigger`
	ReasonRetry    Reason = "retry"    // a later attempt after a failure
)

// Run is one execution attempt of a job for one scheduled instant.
type Run struct {
	ID  int64
	Job string
	// ScheduledTime is the nominal instant (for a manual run, the trigger time).
	ScheduledTime time.Time
	// Attempt is 1 for the first attempt, 2 for the first retry, and so on.
	Attempt int
	Reason  Reason
	State   RunState
	// Node is the node that claimed the run; empty while pending.
	Node string
	// Target is the node a fanned-out run is for (a job whose nodes
	// selector is not any): only that node may claim it. Empty = any
	// node. Set at insert, never changed.
	Target string
	// ReadyAt: a pending run may be claimed once ReadyAt has passed; zero
	// while the controller holds it.
	ReadyAt    time.Time
	CreatedAt  time.Time
	StartedAt  time.Time // zero until claimed
	FinishedAt time.Time // zero until terminal
	// HeartbeatAt is the last sign of life from the executing node.
	HeartbeatAt time.Time
	// CancelRequested asks the executing node to kill the run (Replace,
	// deletion, shutdown on another node).
	CancelRequested bool
	// ExitCode is the process exit status; nil if it did not exit normally.
	ExitCode *int
	// Output is the tail of stdout+stderr, bounded by the executor. Listing
	// methods leave it nil unless asked for.
	Output []byte
	// Error explains a failure that is not just an exit status
	// ("timed out after 30s", "node lost", "replaced by run 42").
	Error string
	// Process is the process group the run's command was started in, as
	// recorded by RunSetProcess; zero if not recorded.
	Process RunProcess
}

// WaitKind names what a held pending run waits for.
type WaitKind string

// Wait kinds.
const (
	WaitGate        WaitKind = "gate"         // the job's schedule gate is closed
	WaitWindow      WaitKind = "window"       // the node's maintenance window is closed
	WaitNodeDown    WaitKind = "node-down"    // the run's node is down
	WaitUpstream    WaitKind = "upstream"     // a required job has not succeeded for the instant
	WaitBackoff     WaitKind = "backoff"      // a retry waits out its backoff
	WaitSlot        WaitKind = "slot"         // no slot of the job's reboot group is free
	WaitMaxParallel WaitKind = "max-parallel" // max_parallel of the job's nodes are active
	WaitPaused      WaitKind = "paused"       // the job is suspended or its waves are paused
	WaitCatchUp     WaitKind = "catch-up"     // an earlier instant's run of the node goes first
)

// Waiting is why a held pending run has not started, and until when (zero:
// until something changes).
type Waiting struct {
	Kind   WaitKind  `json:"kind"`
	Detail string    `json:"detail"`
	Until  time.Time `json:"until"`
}

// RunWaiting is one run's waiting reason; a nil Waiting clears it.
type RunWaiting struct {
	ID      int64
	Waiting *Waiting
}

// RunSetWaitingParams records the waiting reasons of held runs. Items of
// runs that are no longer pending are ignored.
type RunSetWaitingParams struct {
	Items []RunWaiting
	Term  int64
}

// RunProcess identifies a run's process group on its node's machine.
type RunProcess struct {
	// ID is the run (in RunSetProcessParams).
	ID int64 `json:"-"`
	// PGID is the process group id (the pid of its first process).
	PGID int
	// Start is when that first process started, in clock ticks since boot
	// (field 22 of /proc/PID/stat); 0 if unknown. It tells the process
	// apart from a later one that reuses the pid.
	Start int64
}

// RunSetProcessParams records the process groups of runs Node executes.
type RunSetProcessParams struct {
	Node  string
	Items []RunProcess
}

// EventKind classifies events.
type EventKind string

// Event kinds written by the job controller and the API.
const (
	EventJobCreated   EventKind = "job.created"
	EventJobUpdated   EventKind = "job.updated"
	EventJobDeleted   EventKind = "job.deleted"
	EventJobSuspended EventKind = "job.suspended"
	EventJobResumed   EventKind = "job.resumed"
	EventRunScheduled EventKind = "run.scheduled"
	EventRunStarted   EventKind = "run.started"
	EventRunSucceeded EventKind = "run.succeeded"
	EventRunFailed    EventKind = "run.failed"
	EventRunRetry     EventKind = "run.retry"
	EventRunKilled    EventKind = "run.killed"
	EventRunMissed    EventKind = "run.missed"
	EventRunLost      EventKind = "run.lost"
	// EventClockStepped: the wall clock stepped back (clock steps,
	// docs/jobs.md).
	EventClockStepped EventKind = "clock.stepped"
	EventRunSkipped   EventKind = "run.skipped"
	EventNotifySent   EventKind = "notify.sent"
	EventNotifyFailed EventKind = "notify.failed"
	EventJobOverdue   EventKind = "job.overdue"
	// EventJobGateMissing: a job's schedule gate stopped existing (the
	// manifests no longer declare it).
	EventJobGateMissing EventKind = "job.gate-missing"
	// EventJobUnrunnable: a manifest job was accepted that cannot run on
	// this host as it stands (its run_as user does not exist here).
	EventJobUnrunnable EventKind = "job.unrunnable"
	// FleetLock reboot slots (Resource is "reboot-group/NAME").
	EventRebootLocked   EventKind = "reboot.locked"
	EventRebootUnlocked EventKind = "reboot.unlocked"
	EventRebootHeldLong EventKind = "reboot.held-long"
	// EventNodeLabels: a node started with other labels than it last
	// had (Resource is "node/NAME"; Data holds "labels" and "previous").
	EventNodeLabels EventKind = "node.labels"
	// EventWavePaused and EventWaveResumed: an operator paused or resumed
	// a job's rolling waves; EventWaveStopped: a wave reached its
	// max_failures and its waiting nodes were skipped.
	EventWavePaused  EventKind = "wave.paused"
	EventWaveResumed EventKind = "wave.resumed"
	EventWaveStopped EventKind = "wave.stopped"
	// EventTokenCreated and EventTokenRevoked: an admin created or
	// revoked a named API token (Resource is "token/NAME").
	EventTokenCreated EventKind = "token.created"
	EventTokenRevoked EventKind = "token.revoked"
	// EventDaemonReloaded: a SIGHUP applied changed settings (Resource is
	// "node/NAME"; Data holds "applied" and "restart", setting keys).
	EventDaemonReloaded EventKind = "daemon.reloaded"
)

// Event is one entry of the append-only log.
type Event struct {
	ID   int64
	Time time.Time
	Kind EventKind
	// Job is the job the event is about, if any.
	Job string
	// Resource names another subject (a managed resource, a node), if any.
	Resource string
	// RunID is the run the event is about, if any.
	RunID   int64
	Message string
	// Data holds kind-specific details as a JSON object, or nil.
	Data json.RawMessage
	// Actor, Via and Remote say who caused the event, how and from where
	// (see package audit); empty for what the daemon does on its own. A
	// backend fills them from the writing context's audit.Actor when the
	// caller leaves Actor empty (see StampActor).
	Actor, Via, Remote string
}

// StampActor fills e's Actor, Via and Remote from the audit actor ctx
// carries, unless e names its own actor. Backends call it on every event
// they write.
func StampActor(ctx context.Context, e *Event) {
	if e.Actor != "" {
		return
	}
	if a, ok := audit.From(ctx); ok {
		e.Actor, e.Via, e.Remote = a.Name, a.Via, a.Remote
	}
}

// Page bounds a listing. Listings return newest first (highest ID first);
// pass the previous result's NextCursor as Cursor for the following page.
type Page struct {
	// Cursor: return only rows with ID < Cursor; 0 = start at the newest.
	Cursor int64
	// Limit caps the rows returned; 0 means 100, more than 1000 means 1000.
	Limit int
}

// JobCreateParams creates a job.
type JobCreateParams struct {
	Spec   JobSpec
	Source Source
	// Status seeds the job's status; zero for a new job.
	Status JobStatus
	Now    time.Time
	Events []Event
}

// JobUpdateParams replaces a job's spec (its status is kept).
type JobUpdateParams struct {
	Spec   JobSpec
	Source Source
	// IfVersion, when non-zero, makes the update fail with ErrConflict
	// unless the stored version equals it.
	IfVersion int64
	Now       time.Time
	Events    []Event
}

// JobDeleteParams deletes a job and all its runs.
type JobDeleteParams struct {
	Name   string
	Events []Event
}

// JobListParams filters a job listing (ordered by name).
type JobListParams struct {
	// After returns only jobs whose name sorts after it (paging).
	After string
	// Limit caps the rows; 0 = all.
	Limit int
	// Source, if set, selects only jobs from that source (a manifest reload
	// deletes the manifest jobs it no longer declares).
	Source Source
	// NameContains, if set, selects only jobs whose name contains it
	// (case-sensitive), for searching a long list.
	NameContains string
	// NamePrefix, if set, selects only jobs whose names start with it.
	NamePrefix string
	// WithAlertAfter selects only jobs with a dead-man limit
	// (AlertAfterSeconds > 0), so the minutely dead-man check reads those
	// and not every job.
	WithAlertAfter bool
}

// RebootLockParams asks for a reboot slot.
type RebootLockParams struct {
	Group, Holder string
	// Max is the most holders the group may have.
	Max int
	// Now is when the slot is taken, if it is.
	Now time.Time
}

// RebootLock is a reboot slot held.
type RebootLock struct {
	Group, Holder string
	Since         time.Time
}

// JobCounts are aggregate numbers of jobs, counted by the store.
type JobCounts struct {
	Total, Suspended int64
}

// JobAdvanceParams records that the controller dealt with scheduled instants
// up to LastScheduleTime without creating a run (missed, skipped, suspended).
type JobAdvanceParams struct {
	Name             string
	LastScheduleTime time.Time
	Term             int64
	Events           []Event
}

// RunInsertParams inserts a run. Run.ID, CreatedAt are assigned by the store.
type RunInsertParams struct {
	Run Run
	// Advance also sets the job's LastScheduleTime to Run.ScheduledTime
	// (never moving it backwards), atomically with the insert.
	Advance bool
	Term    int64
	Now     time.Time
	Events  []Event
}

// RunInsertBatchParams inserts several runs in one transaction: the
// controller's fires that fall due together cost one commit, not one each.
type RunInsertBatchParams struct {
	// Items are written in (job, scheduled time, attempt) order, whatever
	// their order here, so concurrent batches take row locks in one order
	// and cannot deadlock. Each item's Run, Advance and Events mean what
	// they mean for RunInsert; its Term and Now are ignored in favour of the
	// batch's.
	Items []RunInsertParams
	// Term fences the whole batch: a stale term fails it with ErrStaleTerm
	// and nothing is written.
	Term int64
	Now  time.Time
}

// RunInsertResult is the outcome of one item of a batch insert.
type RunInsertResult struct {
	// Run is the inserted run; zero if Err is set.
	Run Run
	// Err is ErrDuplicate (the item's (job, scheduled time, attempt) key
	// already exists) or ErrNotFound (its job does not exist), possibly
	// wrapped. Nothing of a failed item is written (neither its advance nor
	// its events); the other items are.
	Err error
}

// RunReleaseParams makes a held pending run claimable from ReadyAt on.
type RunReleaseParams struct {
	ID      int64
	ReadyAt time.Time
	Term    int64
	Events  []Event
}

// RunClaimParams claims up to Limit ready pending runs (oldest ReadyAt
// first) for Node: they become running, started and heart-beaten at Now,
// and a run.started event is appended for each in the same transaction.
// Concurrent claimers never get the same run.
type RunClaimParams struct {
	Node  string
	Now   time.Time
	Limit int
	// TargetedOnly claims only runs targeted at Node, none meant for any
	// node (a node that cannot run arbitrary commands, such as the demo's
	// simulated ones).
	TargetedOnly bool
	// Skip lists runs not to claim now (targeted runs whose node's window
	// has closed since they were released).
	Skip []int64
}

// RunHeartbeatParams refreshes HeartbeatAt of the running runs IDs owned by Node.
type RunHeartbeatParams struct {
	Node string
	IDs  []int64
	Now  time.Time
}

// RunFinishParams moves a pending or running run to a terminal state.
// It fails with ErrConflict if the run is already terminal, so a run is
// finished (and counted in the job status) exactly once.
type RunFinishParams struct {
	ID       int64
	State    RunState // succeeded, failed, killed, missed or lost
	ExitCode *int
	Output   []byte
	Error    string
	Now      time.Time
	// FinishedAt, if set, is when the run really ended (its command's
	// end, seen by its supervisor, perhaps while the daemon was down);
	// zero means Now (the batch's Now for RunFinishBatch).
	FinishedAt time.Time
	Term       int64
	Events     []Event
	// Prune, if set, also deletes the job's oldest finished runs beyond
	// these limits in the same transaction (see RunPruneParams).
	Prune *HistoryLimits
}

// RunFinishBatchParams finishes several runs in one transaction: the runs
// whose processes ended together cost one commit, not one each.
type RunFinishBatchParams struct {
	// Items mean what they mean for RunFinish; their Term and Now are
	// ignored in favour of the batch's. Their history pruning is done once
	// per job, after every item, with the limits of the job's last item
	// that has them (the outcome is the same as pruning after each).
	Items []RunFinishParams
	// Term fences the whole batch: a stale term fails it with ErrStaleTerm
	// and nothing is written.
	Term int64
	Now  time.Time
}

// RunFinishResult is the outcome of one item of a batch finish.
type RunFinishResult struct {
	// Run is the finished run, without its Output; zero if Err is set.
	Run Run
	// Err is ErrNotFound (no such run) or ErrConflict (the run is already
	// terminal, or an earlier item of the batch finished it), possibly
	// wrapped. Nothing of a failed item is written; the other items are.
	Err error
}

// HistoryLimits says how many finished runs of a job to keep, per target
// node (a job that does not fan out has one target, "").
type HistoryLimits struct {
	KeepSucceeded int // succeeded runs
	KeepFailed    int // failed, killed, missed and lost runs
}

// RunCancelParams sets CancelRequested on a non-terminal run.
type RunCancelParams struct {
	ID     int64
	Term   int64
	Events []Event
}

// RunListParams filters a run listing.
type RunListParams struct {
	// Job restricts to one job; empty = all jobs.
	Job string
	// States restricts to these states; empty = all.
	States []RunState
	// ScheduledTime, if non-zero, restricts to runs of that instant.
	ScheduledTime time.Time
	// Node, if set, restricts to runs targeted at that node or claimed by
	// it.
	Node string
	// Since and Until, when set, keep the runs whose scheduled time is
	// at or after Since and before Until.
	Since, Until time.Time
	// WithOutput includes Run.Output.
	WithOutput bool
	// JobPrefix, if set, selects only runs of jobs whose names start with it.
	JobPrefix string
	Page
}

// RunListStaleParams finds running runs presumed dead.
type RunListStaleParams struct {
	// HeartbeatBefore: runs whose HeartbeatAt is before it.
	HeartbeatBefore time.Time
	// Node, if set, selects all running runs claimed by that node regardless
	// of heartbeat (a node restarting finds the runs its previous life left).
	Node  string
	Limit int
}

// RunPruneParams deletes a job's oldest finished runs beyond the limits.
type RunPruneParams struct {
	Job string
	// KeepSucceeded succeeded runs and KeepFailed failed/killed/missed runs
	// are kept (newest by scheduled time, then ID).
	KeepSucceeded int
	KeepFailed    int
	Term          int64
}

// EventListParams filters an event listing (newest first).
type EventListParams struct {
	Job   string      // empty = all
	Kinds []EventKind // empty = all
	// Resource selects the events about one managed resource (the Resource
	// field); empty = all.
	Resource string
	// Actor selects the events caused by one actor (a token's name,
	// "manifest:FILE"); empty = all.
	Actor string
	// JobPrefix, if set, selects only events about jobs whose names start
	// with it (events about no job are left out).
	JobPrefix string
	// Since and Until select events at or after Since and before Until;
	// zero = unbounded.
	Since, Until time.Time
	Page
}

// EventPruneParams bounds the event log: EventPrune deletes the events
// older than Before and those beyond the Keep newest. A zero field sets no
// bound of its kind; both zero deletes nothing.
type EventPruneParams struct {
	Before time.Time
	Keep   int
}

// Store is the persistence contract. Implementations: sqlitestore (and the
// PostgreSQL backend). Every method takes ctx first and is safe for
// concurrent use.
type Store interface {
	// JobCreate inserts a job; ErrDuplicate if the name exists.
	JobCreate(ctx context.Context, p JobCreateParams) (Job, error)
	// JobUpdate replaces a job's spec; ErrNotFound, ErrConflict (IfVersion).
	JobUpdate(ctx context.Context, p JobUpdateParams) (Job, error)
	// JobDelete removes a job and its runs; ErrNotFound.
	JobDelete(ctx context.Context, p JobDeleteParams) error
	// JobGet returns one job; ErrNotFound.
	JobGet(ctx context.Context, name string) (Job, error)
	// JobList returns jobs ordered by name.
	JobList(ctx context.Context, p JobListParams) ([]Job, error)
	// JobCounts counts the jobs and the suspended ones without listing them.
	JobCounts(ctx context.Context) (JobCounts, error)

	// RebootLockAcquire takes a reboot slot in a group for holder, unless
	// the group already has max holders; a holder that already has a slot
	// keeps it (granted, whatever max says). It is atomic across nodes.
	RebootLockAcquire(ctx context.Context, p RebootLockParams) (granted bool, err error)
	// RebootLockRelease gives a holder's slot back; releasing a slot not
	// held is no error.
	RebootLockRelease(ctx context.Context, group, holder string) error
	// RebootLocks lists the slots held, by group then holder.
	RebootLocks(ctx context.Context) ([]RebootLock, error)
	// JobSetWavePaused pauses or resumes a job's waves, kept apart from
	// its spec; changed reports whether it was not so already. ErrNotFound.
	JobSetWavePaused(ctx context.Context, p JobSetWavePausedParams) (changed bool, err error)
	// JobAdvance moves a job's LastScheduleTime forward (never back); ErrNotFound.
	JobAdvance(ctx context.Context, p JobAdvanceParams) error

	// RunInsert inserts a run; ErrDuplicate on the (job, scheduled time,
	// attempt) key, ErrNotFound if the job does not exist.
	RunInsert(ctx context.Context, p RunInsertParams) (Run, error)
	// RunInsertBatch inserts several runs in one transaction and returns
	// one result per item, in order. Per-item duplicates and missing jobs
	// are reported in the results; the error is for the whole batch
	// (ErrStaleTerm, a database failure), and then nothing was written.
	RunInsertBatch(ctx context.Context, p RunInsertBatchParams) ([]RunInsertResult, error)
	// RunGet returns one run with its output; ErrNotFound.
	RunGet(ctx context.Context, id int64) (Run, error)
	// RunList returns runs newest first and the cursor of the next page (0 = no more).
	RunList(ctx context.Context, p RunListParams) (runs []Run, next int64, err error)
	// RunRelease makes a held pending run claimable; ErrConflict if not pending.
	RunRelease(ctx context.Context, p RunReleaseParams) (Run, error)
	// RunClaim claims ready pending runs for a node: those meant for any
	// node (Target empty) or for that node.
	RunClaim(ctx context.Context, p RunClaimParams) ([]Run, error)
	// RunHeartbeat refreshes running runs and returns the IDs among them
	// whose cancellation was requested.
	RunHeartbeat(ctx context.Context, p RunHeartbeatParams) (cancel []int64, err error)
	// RunFinish records a terminal state and updates the job status;
	// ErrConflict if already terminal, ErrNotFound.
	RunFinish(ctx context.Context, p RunFinishParams) (Run, error)
	// RunFinishBatch finishes several runs in one transaction and returns
	// one result per item, in order. Per-item conflicts and missing runs
	// are reported in the results; the error is for the whole batch
	// (ErrStaleTerm, a database failure), and then nothing was written.
	RunFinishBatch(ctx context.Context, p RunFinishBatchParams) ([]RunFinishResult, error)
	// RunSetProcess records the process groups of running runs of a node
	// in one transaction; items of runs that are not running on that node
	// are ignored.
	RunSetProcess(ctx context.Context, p RunSetProcessParams) error
	// RunCancel requests that a run be killed; ErrConflict if terminal.
	RunCancel(ctx context.Context, p RunCancelParams) (Run, error)
	// RunListStale returns running runs presumed dead (see RunListStaleParams).
	RunListStale(ctx context.Context, p RunListStaleParams) ([]Run, error)
	// RunPrune deletes finished runs beyond the history limits and reports how many.
	RunPrune(ctx context.Context, p RunPruneParams) (int, error)
	// RunSetWaiting records why held runs wait, in one transaction.
	RunSetWaiting(ctx context.Context, p RunSetWaitingParams) error
	// RunWaiting returns the recorded waiting reasons of those of ids that
	// are pending and have one. A run's reason goes with the run: released,
	// claimed or finished, it has none.
	RunWaiting(ctx context.Context, ids []int64) (map[int64]Waiting, error)

	// EventAppend appends events; IDs and zero times are assigned by the store.
	EventAppend(ctx context.Context, events ...Event) error
	// EventList returns events newest first and the next page's cursor.
	EventList(ctx context.Context, p EventListParams) (events []Event, next int64, err error)
	// EventPrune deletes events beyond the retention p gives, oldest
	// first in bounded transactions, and reports how many.
	EventPrune(ctx context.Context, p EventPruneParams) (int, error)

	// ResourceStore keeps the managed-resource scheduler's memory.
	ResourceStore
	// TokenStore keeps the named API tokens.
	TokenStore

	// Close releases the store's resources.
	Close() error
}

// Size normalises a page limit: 0 -> 100, capped at 1000.
func (p Page) Size() int {
	switch {
	case p.Limit <= 0:
		return 100
	case p.Limit > 1000:
		return 1000
	}
	return p.Limit
}

// Default history limits (Kubernetes CronJob's).
const (
	DefaultSuccessfulJobsHistoryLimit = 3
	DefaultFailedJobsHistoryLimit     = 1
)

// BatchOrder returns the indexes of items in the order RunInsertBatch
// writes them: by job, scheduled time, target, then attempt (0 counting as
// 1), the order of the unique key, so concurrent batches lock rows in one
// order.
func BatchOrder(items []RunInsertParams) []int {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		a, b := items[x].Run, items[y].Run
		return cmp.Or(cmp.Compare(a.Job, b.Job), a.ScheduledTime.Compare(b.ScheduledTime),
			cmp.Compare(a.Target, b.Target), cmp.Compare(max(a.Attempt, 1), max(b.Attempt, 1)))
	})
	return idx
}

// HistoryLimits returns the spec's history limits with defaults applied.
func (s JobSpec) HistoryLimits() (succeeded, failed int) {
	succeeded, failed = DefaultSuccessfulJobsHistoryLimit, DefaultFailedJobsHistoryLimit
	if s.SuccessfulJobsHistoryLimit != nil {
		succeeded = *s.SuccessfulJobsHistoryLimit
	}
	if s.FailedJobsHistoryLimit != nil {
		failed = *s.FailedJobsHistoryLimit
	}
	return succeeded, failed
}

// EventRunFinished returns the event kind recording a run reaching state s.
func EventRunFinished(s RunState) EventKind {
	switch s {
	case RunSucceeded:
		return EventRunSucceeded
	case RunKilled:
		return EventRunKilled
	case RunMissed:
		return EventRunMissed
	case RunLost:
		return EventRunLost
	default:
		return EventRunFailed
	}
}
