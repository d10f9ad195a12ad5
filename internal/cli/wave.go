package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

func init() {
	register("wave", "follow and steer the rolling waves of a job that fans out to nodes: wave status|pause|resume|abort JOB", escaped(runWave))
}

// waveUsage is the wave command's argument line.
const waveUsage = "almanac wave status JOB [--instant RFC3339] [-o json] | wave pause|resume|abort JOB"

// runWave shows a fanned-out job's wave, or pauses, resumes or aborts its
// waves.
func runWave(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("wave")
	instant := fs.String("instant", "", "status: the wave of this scheduled instant (RFC 3339; default the latest)")
	cf := addOutputFlags(fs)
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("wave: usage: %s", waveUsage)
	}
	action, name := pos[0], pos[1]
	switch action {
	case "status", "pause", "resume", "abort":
	default:
		return usagef("wave: unknown action %q (want status, pause, resume or abort)", action)
	}
	if action != "status" && *instant != "" {
		return usagef("wave %s: --instant applies to status (pause, resume and abort act on all the job's waves)", action)
	}
	if err := checkJobName("wave "+action, name); err != nil {
		return err
	}
	var at time.Time
	if *instant != "" {
		if at, err = time.Parse(time.RFC3339, *instant); err != nil {
			return usagef("wave status: --instant %q is not an RFC 3339 time like 2030-01-02T03:00:00Z", *instant)
		}
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	switch action {
	case "status":
		w, err := c.Wave(ctx, name, at)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, w)
		}
		return printWave(e, w)
	case "abort":
		res, err := c.WaveAbort(ctx, name)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, res)
		}
		fmt.Fprintf(e.stdout, "waves of job %s aborted: %s skipped; runs already started go on\n", name, countOf(res.Skipped, "waiting run"))
		return nil
	}
	var j apitype.Job
	if action == "pause" {
		j, err = c.WavePause(ctx, name)
	} else {
		j, err = c.WaveResume(ctx, name)
	}
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, j)
	}
	if action == "pause" {
		fmt.Fprintf(e.stdout, "waves of job %s paused: waiting runs are held, runs already started go on\n", name)
	} else {
		fmt.Fprintf(e.stdout, "waves of job %s resumed\n", name)
	}
	return nil
}

// printWave prints a wave: a header line with its state, counts and
// limits, then one row per node.
func printWave(e *env, w apitype.Wave) error {
	fmt.Fprintln(e.stdout, waveHeader(w))
	t := newTable(e.stdout, "NODE", "STATE", "RUN", "ATTEMPT", "ERROR")
	for _, n := range w.Nodes {
		// A waiting node has no error; the column says why it waits.
		why := n.Error
		if n.Waiting != nil && why == "" {
			why = waitingText(n.Waiting)
		}
		t.row(n.Node, nodeState(n), strconv.FormatInt(n.RunID, 10), strconv.Itoa(n.Attempt), why)
	}
	return t.flush()
}

// waveHeader is the one-line summary of a wave.
func waveHeader(w apitype.Wave) string {
	c := w.Counts
	counts := []string{countOf(c.Total, "node")}
	missed := 0
	for _, n := range w.Nodes {
		if nodeState(n) == apitype.RunMissed {
			missed++
		}
	}
	for _, x := range []struct {
		n     int
		state string
	}{{c.Done, "done"}, {c.Running, "running"}, {c.Waiting, "waiting"}, {c.Failed, "failed"}, {missed, "missed"}, {c.Skipped - missed, "skipped"}} {
		counts = append(counts, fmt.Sprintf("%d %s", x.n, x.state))
	}
	limit := func(n int, none string) string {
		if n == 0 {
			return none
		}
		return strconv.Itoa(n)
	}
	state := w.State
	if w.Paused && state != apitype.WavePaused {
		state += " (waves paused)"
	}
	return fmt.Sprintf("wave of %s at %s: %s; %s; max_parallel %s, max_failures %s",
		w.Job, fmtTime(&w.Instant), state, strings.Join(counts, ", "),
		limit(w.MaxParallel, "none"), limit(w.MaxFailures, "none"))
}

// countOf renders "1 node" or "2 nodes".
func countOf(n int, noun string) string {
	return strconv.Itoa(n) + " " + plural(n, noun, noun+"s")
}

// nodeState is a wave node's state in the words runs use: a node the
// wave counts as skipped is "missed" when its run was missed (its starting
// deadline passed first) and "skipped" only when an aborted or stopped
// wave never started it, as the web UI's matrix tells them apart.
func nodeState(n apitype.WaveNode) string {
	if n.State == apitype.WaveNodeSkipped && !strings.HasPrefix(n.Error, "skipped") {
		return apitype.RunMissed
	}
	return n.State
}
