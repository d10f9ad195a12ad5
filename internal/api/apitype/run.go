package apitype

import "time"

// Run states.
const (
	RunPending   = "pending"   // recorded, waiting to start (gate, dependency, retry backoff)
	RunRunning   = "running"   // the process is running
	RunSucceeded = "succeeded" // exited 0
	RunFailed    = "failed"    // exited non-zero, timed out, could not start, or was interrupted
	RunKilled    = "killed"    // killed by a Replace policy, deletion or shutdown
	RunMissed    = "missed"    // never started: its starting deadline passed first
	RunLost      = "lost"      // its machine was lost (rebooted, or its node stayed away past the lease) and the outcome with it
)

// RunStates lists every run state, in life order.
var RunStates = []string{RunPending, RunRunning, RunSucceeded, RunFailed, RunKilled, RunMissed, RunLost}

// Why a run exists.
const (
	ReasonSchedule = "schedule" // its scheduled instant came
	ReasonCatchUp  = "catch-up" // the latest instant missed during downtime, still inside the deadline
	ReasonManual   = "manual"   // triggered through the API or CLI
	ReasonRetry    = "retry"    // a retry of a failed run
)

// Run is one execution of a job for one scheduled instant.
type Run struct {
	ID  int64  `json:"id"`
	Job string `json:"job"`
	// ScheduledTime is the nominal instant the run is for; for a manual run,
	// the time it was triggered.
	ScheduledTime time.Time `json:"scheduled_time"`
	Reason        string    `json:"reason"`
	State         string    `json:"state"`
	// Attempt is 1 for the first attempt, 2 for the first retry, and so on.
	Attempt int `json:"attempt"`
	// Node is the daemon that executes the run; empty while pending.
	Node string `json:"node,omitempty"`
	// Target is the node a fanned-out run is for (a job whose nodes
	// selector is not any); only that node may start it.
	Target     string     `json:"target,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	ExitCode   *int       `json:"exit_code,omitempty"`
	// Error says why a run failed or was killed when it is more than an exit
	// status ("timed out after 30s", "daemon restarted during the run").
	Error string `json:"error,omitempty"`
	// NodeLiveness is set on an active run whose node is not alive: the
	// node that claimed it (running) or the node it is for (pending), as
	// the cluster view judges it, NodeSuspect or NodeDown. Absent while
	// that node is alive, for a run of any node not yet claimed, and on
	// finished runs.
	NodeLiveness string `json:"node_liveness,omitempty"`
	// Waiting says why a pending run has not been released to start yet;
	// null when it is not waiting (released, started or finished).
	Waiting *Waiting `json:"waiting"`
	// Kubernetes names the Kubernetes Job of a run of a Kubernetes job,
	// once the run has started.
	Kubernetes *RunKubernetes `json:"kubernetes,omitempty"`
}

// Wait kinds: what a pending run waits for.
const (
	WaitGate        = "gate"         // the job's schedule gate is closed
	WaitWindow      = "window"       // its node's maintenance window is closed
	WaitNodeDown    = "node-down"    // its node is down
	WaitUpstream    = "upstream"     // a required job has not succeeded for the instant
	WaitBackoff     = "backoff"      // a retry waits out its backoff
	WaitSlot        = "slot"         // no slot of the job's reboot group is free
	WaitMaxParallel = "max-parallel" // max_parallel of the job's nodes are active
	WaitPaused      = "paused"       // the job is suspended or its waves are paused
	WaitCatchUp     = "catch-up"     // an earlier instant's run of the node goes first
)

// Waiting is why a pending run waits and until when.
type Waiting struct {
	Kind string `json:"kind"`
	// Detail says it in a sentence ("schedule gate \"tue\" is closed").
	Detail string `json:"detail"`
	// Until is when the obstacle is expected to go (a gate's or window's
	// next opening, the end of a backoff); null when unknown (a node's
	// return, a slot freeing).
	Until *time.Time `json:"until"`
}

// LivenessNode is the node whose liveness bears on the run: the node that
// claimed it, else the node it is for; "" for a run of any node that no
// node has claimed.
func (r *Run) LivenessNode() string {
	if r.Node != "" {
		return r.Node
	}
	return r.Target
}

// Finished reports whether the run reached a final state.
func (r *Run) Finished() bool {
	switch r.State {
	case RunSucceeded, RunFailed, RunKilled, RunMissed, RunLost:
		return true
	}
	return false
}

// TriggerResult is the body of a successful POST /api/v1/jobs/{name}/trigger.
type TriggerResult struct {
	Run Run `json:"run"`
}

// NextFires is the body of GET /api/v1/jobs/{name}/next: the instants at
// which a job is next scheduled (whether or not it is suspended), in its zone.
type NextFires struct {
	Job      string      `json:"job"`
	TimeZone string      `json:"time_zone"`
	Next     []time.Time `json:"next"`
	// Fires repeats Next with what the job's `schedule` gate will do to
	// each instant.
	Fires []Fire `json:"fires"`
}

// Fire is one upcoming instant of a job and what its gate will do to it.
type Fire struct {
	Time time.Time `json:"time"`
	// Outlook is "on-time" (the run starts at its time), "waits" (its gate
	// is closed then: it starts at Until, or when the gate comes to exist
	// if Until is absent) or "will-miss" (the gate does not open before
	// the starting deadline).
	Outlook string     `json:"outlook"`
	Until   *time.Time `json:"until,omitempty"`
	// Reason says why a run waits or will be missed.
	Reason string `json:"reason,omitempty"`
}
