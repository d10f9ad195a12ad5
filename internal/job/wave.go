package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the operator's side of rolling waves: parsing
// max_parallel, the status of one instant's wave (derived from its runs,
// so any node can answer it), and pause, resume and abort. The scheduling
// side is in fanout.go and lifecycle.go.

// NodeInfo is one cluster node as fan-out sees it.
type NodeInfo struct {
	Name   string
	Labels map[string]string
	// Alive reports whether the node heart-beats within its lease: a run
	// targeted at a dead node is held until it returns or its deadline
	// passes.
	Alive bool
}

// NodeLister lists the cluster's registered nodes (live or presumed dead;
// a node that stopped cleanly is not listed).
type NodeLister interface {
	ListNodes(ctx context.Context) ([]NodeInfo, error)
}

// Wave is the progress of one instant of a fanned-out job across its nodes.
type Wave struct {
	Job     string
	Instant time.Time
	// State is one of the wave states of package apitype (apitype.WaveRunning,
	// ...), the one set the controller, the API, the CLI and the UI share.
	State string
	// MaxParallel is the resolved limit (0 = none); MaxFailures as in the spec.
	MaxParallel, MaxFailures int
	Paused                   bool
	Nodes                    []WaveNode
}

// WaveNode is one node's part in a wave: its latest attempt.
type WaveNode struct {
	Node string
	// State is one of apitype's node states (apitype.WaveNodeDone, ...).
	State   string
	RunID   int64
	Attempt int
	Error   string
}

// Count returns how many of the wave's nodes are in state.
func (w Wave) Count(state string) int {
	n := 0
	for _, x := range w.Nodes {
		if x.State == state {
			n++
		}
	}
	return n
}

// ParseMaxParallel reads a max_parallel value: "" (no limit), a positive
// count, or a percentage in 1..100 followed by %. pct reports which.
func ParseMaxParallel(s string) (n int, pct bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, nil
	}
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.Atoi(strings.TrimSpace(num))
	switch {
	case err != nil || v < 1:
		return 0, false, fmt.Errorf("max_parallel: want a positive count or a percentage such as 25%%, got %q", s)
	case pct && v > 100:
		return 0, false, fmt.Errorf("max_parallel: a percentage is at most 100%%, got %q", s)
	}
	return v, pct, nil
}

// WaveLimit is how many of targets nodes may be active at once under
// spec's max_parallel; 0 means no limit. A percentage rounds down but
// never below one node.
func WaveLimit(spec store.JobSpec, targets int) int {
	n, pct, err := ParseMaxParallel(spec.MaxParallel)
	if err != nil || n == 0 {
		return 0
	}
	if pct {
		return max(targets*n/100, 1)
	}
	return n
}

// waveNodeState classifies a target's latest attempt.
func waveNodeState(r store.Run) string {
	switch r.State {
	case store.RunSucceeded:
		return apitype.WaveNodeDone
	case store.RunRunning:
		return apitype.WaveNodeRunning
	case store.RunPending:
		if r.ReadyAt.IsZero() {
			return apitype.WaveNodeWaiting
		}
		return apitype.WaveNodeRunning
	case store.RunMissed:
		return apitype.WaveNodeSkipped
	}
	return apitype.WaveNodeFailed
}

// latestByTarget keeps each target's highest attempt among runs (of one
// job and instant), sorted by target name.
func latestByTarget(runs []store.Run) []store.Run {
	by := map[string]store.Run{}
	for _, r := range runs {
		if r.Target == "" {
			continue
		}
		if o, ok := by[r.Target]; !ok || r.Attempt > o.Attempt {
			by[r.Target] = r
		}
	}
	out := make([]store.Run, 0, len(by))
	for _, r := range by {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b store.Run) int { return cmp.Compare(a.Target, b.Target) })
	return out
}

// WaveOf derives the wave of one instant from the job's spec and the runs
// of that instant: each target's latest attempt, its node state, and the
// wave's state. It is the one rule for a wave's state; the controller's
// Wave and the web UI's test backend both apply it.
func WaveOf(spec store.JobSpec, instant time.Time, runs []store.Run) Wave {
	latest := latestByTarget(runs)
	w := Wave{Job: spec.Name, Instant: instant, MaxParallel: WaveLimit(spec, len(latest)),
		MaxFailures: spec.MaxFailures, Paused: spec.WavePaused}
	for _, r := range latest {
		w.Nodes = append(w.Nodes, WaveNode{Node: r.Target, State: waveNodeState(r), RunID: r.ID, Attempt: r.Attempt, Error: r.Error})
	}
	active := w.Count(apitype.WaveNodeRunning) + w.Count(apitype.WaveNodeWaiting)
	switch {
	case spec.MaxFailures > 0 && w.Count(apitype.WaveNodeFailed) >= spec.MaxFailures:
		w.State = apitype.WaveStopped
	case active == 0:
		w.State = apitype.WaveDone
	case spec.WavePaused:
		w.State = apitype.WavePaused
	default:
		w.State = apitype.WaveRunning
	}
	return w
}

// ErrNoWave is returned by Wave for a job that has no targeted runs.
var ErrNoWave = errors.New("the job has no fanned-out runs")

// Wave returns the wave of job's instant; a zero instant means the latest
// instant that has targeted runs. store.ErrNotFound if there is no such
// job, ErrNoWave if it has no targeted runs (kept in its history).
func (c *Controller) Wave(ctx context.Context, job string, instant time.Time) (Wave, error) {
	j, err := c.st.JobGet(ctx, job)
	if err != nil {
		return Wave{}, err
	}
	if instant.IsZero() {
		runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: job, Page: store.Page{Limit: 1000}})
		if err != nil {
			return Wave{}, err
		}
		for _, r := range runs {
			if r.Target != "" && r.ScheduledTime.After(instant) {
				instant = r.ScheduledTime
			}
		}
		if instant.IsZero() {
			return Wave{}, fmt.Errorf("job %q: %w", job, ErrNoWave)
		}
	}
	runs, err := c.instantRuns(ctx, job, instant)
	if err != nil {
		return Wave{}, err
	}
	if len(latestByTarget(runs)) == 0 {
		return Wave{}, fmt.Errorf("job %q at %s: %w", job, instant.UTC().Format(time.RFC3339), ErrNoWave)
	}
	return WaveOf(j.Spec, instant, runs), nil
}

// instantRuns lists every run of job for one instant.
func (c *Controller) instantRuns(ctx context.Context, job string, instant time.Time) ([]store.Run, error) {
	var out []store.Run
	var cursor int64
	for {
		runs, next, err := c.st.RunList(ctx, store.RunListParams{Job: job, ScheduledTime: instant, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return nil, fmt.Errorf("list runs of %q at %s: %w", job, instant.UTC().Format(time.RFC3339), err)
		}
		out = append(out, runs...)
		if next == 0 {
			return out, nil
		}
		cursor = next
	}
}

// WavePause holds back the job's waiting targeted runs until WaveResume;
// runs already started go on. The pause is operator state, kept beside the
// job's spec (store.JobSetWavePaused), so it holds across restarts, on
// every node, and across a replacement of the spec (a PUT, a manifest
// reload).
func (c *Controller) WavePause(ctx context.Context, job string) error {
	return c.setWavePaused(ctx, job, true)
}

// WaveResume lets a paused job's waves go on.
func (c *Controller) WaveResume(ctx context.Context, job string) error {
	return c.setWavePaused(ctx, job, false)
}

func (c *Controller) setWavePaused(ctx context.Context, name string, paused bool) error {
	kind, verb := store.EventWaveResumed, "resumed"
	if paused {
		kind, verb = store.EventWavePaused, "paused"
	}
	changed, err := c.st.JobSetWavePaused(ctx, store.JobSetWavePausedParams{Name: name, Paused: paused, Now: c.clock.Now(),
		Events: []store.Event{{Kind: kind, Message: fmt.Sprintf("waves of %s %s", name, verb)}}})
	if err == nil && changed {
		c.Notify(name)
	}
	return err
}

// WaveAbort ends every waiting targeted run of job (all instants) as
// skipped ("wave aborted") and returns how many; started runs go on.
func (c *Controller) WaveAbort(ctx context.Context, job string) (int, error) {
	j, err := c.st.JobGet(ctx, job)
	if err != nil {
		return 0, err
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: job, States: []store.RunState{store.RunPending}, Page: store.Page{Limit: 1000}})
	if err != nil {
		return 0, err
	}
	n := 0
	now := c.clock.Now()
	for _, r := range runs {
		if r.Target == "" || !r.ReadyAt.IsZero() {
			continue
		}
		_, err := c.st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunMissed, Error: "skipped: wave aborted", Now: now,
			Events: []store.Event{{Kind: store.EventRunSkipped, Message: fmt.Sprintf("run %d on %s skipped: wave aborted", r.ID, r.Target)}},
			Prune:  historyLimits(j.Spec)})
		switch {
		case errors.Is(err, store.ErrConflict):
			continue // it started or ended meanwhile
		case err != nil:
			return n, err
		}
		n++
	}
	c.Notify(job)
	return n, nil
}
