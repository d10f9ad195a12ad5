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
	"context"
	"encoding/json"
	"errors"
	"time"
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
	// Kubernetes, if set, runs each run as a Kubernetes Job instead of a
	// local command; exclusive with Command and Shell.
	Kubernetes *KubernetesSpec `json:"kubernetes,omitempty"`
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
	// Gate names a schedule gate; a due run waits until the gate is open.
	Gate string `json:"schedule,omitempty"`
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

// KubernetesSpec is where and what a job runs on Kubernetes: each run is
// one batch/v1 Job made from JobTemplate in Namespace of the cluster that
// Context names (docs/kubernetes.md).
type KubernetesSpec struct {
	// Namespace is the namespace the Jobs are created in.
	Namespace string `json:"namespace"`
	// Context is the kubeconfig context naming the cluster and the
	// credentials; empty = the kubeconfig's current context.
	Context string `json:"context,omitempty"`
	// JobTemplate is a batch/v1 JobTemplateSpec (metadata and spec), as
	// YAML or JSON text.
	JobTemplate string `json:"job_template"`
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

// Store is the persistence contract. Implementations: sqlitestore (and the
// PostgreSQL backend). Every method takes ctx first and is safe for
// concurrent use.
type Store interface {
	// JobCreate inserts a job; ErrDuplicate if the name exists.
	JobCreate(ctx context.Context, p JobCreateParams) (Job, error)
	// JobCreateBatch inserts the jobs in one transaction, all or none;
	// ErrDuplicate if any name exists (or repeats). A manifest of
	// thousands of new jobs costs one commit per batch, not per job.
	JobCreateBatch(ctx context.Context, ps []JobCreateParams) error
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
