package store

import (
	"cmp"
	"slices"
	"time"
)

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
