package apitype

import "time"

// Wave node states: how far one node's run of a fanned-out instant has got.
// These and the wave states below are almanac's one set of names for
// them: the job controller derives them (job.WaveOf), and the API, the
// CLI and the web UI show them.
const (
	WaveNodeDone    = "done"    // its run succeeded
	WaveNodeRunning = "running" // started, or released and about to start
	WaveNodeWaiting = "waiting" // held: its turn, its window or its node has not come
	WaveNodeFailed  = "failed"  // failed or was killed after its retries
	WaveNodeSkipped = "skipped" // never started (missed, wave stopped or aborted)
)

// WaveNodeStates lists every wave node state, in the order a node goes
// through them.
var WaveNodeStates = []string{WaveNodeWaiting, WaveNodeRunning, WaveNodeDone, WaveNodeFailed, WaveNodeSkipped}

// Wave states.
const (
	WaveRunning = "running" // nodes are running or waiting
	WavePaused  = "paused"  // the job's waves are paused by an operator
	WaveStopped = "stopped" // max_failures was reached: the waiting nodes stay held
	WaveDone    = "done"    // every node has finished
)

// Wave is the body of GET /api/v1/jobs/{name}/wave: the progress of one
// instant of a fanned-out job (a job whose nodes selector is not any)
// across its nodes.
type Wave struct {
	Job string `json:"job"`
	// Instant is the scheduled instant the wave is for.
	Instant time.Time `json:"instant"`
	// State is running, paused, stopped or done.
	State string `json:"state"`
	// MaxParallel is how many nodes may be active at once, the job's
	// max_parallel resolved against this wave's node count; 0 = no limit.
	MaxParallel int `json:"max_parallel"`
	// MaxFailures stops the wave after that many failed nodes; 0 = never.
	MaxFailures int `json:"max_failures"`
	// Paused reports the job's wave_paused (an operator's wave pause).
	Paused bool `json:"paused"`
	// Counts is how many nodes are in each state.
	Counts WaveCounts `json:"counts"`
	// Nodes are the wave's nodes, by name, each with its latest attempt.
	Nodes []WaveNode `json:"nodes"`
}

// WaveCounts counts a wave's nodes by state; Total is all of them.
type WaveCounts struct {
	Total   int `json:"total"`
	Waiting int `json:"waiting"`
	Running int `json:"running"`
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// WaveNode is one node's part in a wave.
type WaveNode struct {
	Node string `json:"node"`
	// State is one of WaveNodeStates.
	State string `json:"state"`
	// RunID and Attempt identify the node's latest run for the instant.
	RunID   int64 `json:"run_id"`
	Attempt int   `json:"attempt"`
	// Error says why the run failed or was skipped, if it did.
	Error string `json:"error,omitempty"`
	// Waiting says why a waiting node's run is held, as on the run.
	Waiting *Waiting `json:"waiting,omitempty"`
}

// WaveAbortResult is the body of POST /api/v1/jobs/{name}/wave/abort.
type WaveAbortResult struct {
	Job string `json:"job"`
	// Skipped is how many waiting runs were ended as skipped; runs
	// already started go on.
	Skipped int `json:"skipped"`
}
