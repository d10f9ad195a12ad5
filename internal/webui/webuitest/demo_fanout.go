package webuitest

import (
	"fmt"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/webui"
)

// DemoFanOutJob is the demo's fanned-out job: hourly on every cluster node,
// two nodes at a time.
const DemoFanOutJob = "rotate-logs"

// DemoFanOutNodes are the cluster nodes the demo's fanned-out job runs on,
// in name order.
var DemoFanOutNodes = []string{"node-a", "node-b", "node-c", "node-d", "node-e"}

// DemoFanOutInstants is how many instants of the fanned-out job the demo
// holds, the current one included.
const DemoFanOutInstants = 13

// DemoFanOutWave is the current wave's node states in DemoFanOutNodes order:
// two done, two running (max_parallel 2), one waiting its turn.
var DemoFanOutWave = []string{webui.RunSucceeded, webui.RunSucceeded, webui.RunRunning, webui.RunRunning, webui.RunPending}

// fanOutOutcome is one node's attempts at one past instant of the demo's
// fanned-out job, when they were not a single success.
type fanOutOutcome struct {
	states []string // one per attempt
	err    string   // the last attempt's error
}

// demoFanOutHistory maps hours before the current instant and a node to
// what befell it; every other node succeeded at its first attempt.
var demoFanOutHistory = map[int]map[string]fanOutOutcome{
	3:  {"node-e": {[]string{webui.RunFailed, webui.RunSucceeded}, ""}},
	5:  {"node-c": {[]string{webui.RunFailed, webui.RunFailed}, "exit status 1"}},
	7:  {"node-d": {[]string{webui.RunKilled}, "timed out after 10m0s"}},
	9:  {"node-b": {[]string{webui.RunMissed}, "node node-b did not return within the starting deadline"}},
	10: {"node-d": {[]string{webui.RunMissed}, "skipped: wave aborted"}, "node-e": {[]string{webui.RunMissed}, "skipped: wave aborted"}},
}

// addFanOutJob adds the fanned-out job with twelve past hourly instants on
// the five cluster nodes and the current one in progress.
func addFanOutJob(b *Backend, now time.Time) {
	b.AddJob(webui.Job{
		Name: DemoFanOutJob, Schedule: "0 * * * *", Description: "at minute 0 past every hour", Zone: "UTC",
		Command: "logrotate /etc/logrotate.conf", Source: "manifest", BackoffLimit: 1, Timeout: 10 * time.Minute,
		Nodes: "all", MaxParallel: "2", MaxFailures: 2, Succeeded: 58, Failed: 3,
		Window: map[string]string{"role=db": "nightly-reboots", "default": "weekend-maintenance"},
	}, Every{time.Hour})
	cur := now.Truncate(time.Hour)
	for k := DemoFanOutInstants - 1; k >= 1; k-- {
		at := cur.Add(-time.Duration(k) * time.Hour)
		for i, node := range DemoFanOutNodes {
			o, ok := demoFanOutHistory[k][node]
			if !ok {
				o = fanOutOutcome{states: []string{webui.RunSucceeded}}
			}
			start := at.Add(time.Duration(i/2) * 40 * time.Second) // two at a time
			for a, st := range o.states {
				r := webui.Run{Job: DemoFanOutJob, ScheduledTime: at, Attempt: a + 1, Reason: "schedule", State: st, Target: node}
				if a > 0 {
					r.Reason = "retry"
				}
				addFanOutRun(b, r, start.Add(time.Duration(a)*time.Minute), o.err)
			}
		}
	}
	for i, node := range DemoFanOutNodes {
		r := webui.Run{Job: DemoFanOutJob, ScheduledTime: cur, Attempt: 1, Reason: "schedule", State: DemoFanOutWave[i], Target: node}
		addFanOutRun(b, r, cur.Add(time.Duration(i/2)*40*time.Second), "")
	}
}

// addFanOutRun adds one attempt started at start (unless it never
// started), with the events of its failure or its start if it still
// runs: the sixty successes would drown the rest of the demo's log.
func addFanOutRun(b *Backend, r webui.Run, start time.Time, errText string) {
	switch r.State {
	case webui.RunPending:
		b.AddRun(r)
		return
	case webui.RunMissed:
		r.Error, r.FinishedAt = errText, start.Add(10*time.Minute)
		r = b.AddRun(r)
		kind := "run.missed"
		if strings.HasPrefix(errText, "skipped") {
			kind = "run.skipped"
		}
		b.AddEvent(webui.Event{Time: r.FinishedAt, Kind: kind, Job: r.Job, RunID: r.ID, Message: fmt.Sprintf("run %d on %s: %s", r.ID, r.Target, errText)})
		return
	}
	r.Node, r.StartedAt = r.Target, start
	r.Output = []byte("rotating /var/log/*.log\n")
	if r.State == webui.RunRunning {
		r = b.AddRun(r)
		b.AddEvent(webui.Event{Time: start, Kind: "run.started", Job: r.Job, RunID: r.ID, Message: fmt.Sprintf("started on %s", r.Node)})
		return
	}
	code := 0
	r.FinishedAt = start.Add(35 * time.Second)
	switch r.State {
	case webui.RunFailed:
		code, r.Error = 1, "exit status 1"
		r.Output = append(r.Output, "logrotate: error: compressing /var/log/app.log: No space left on device\n"...)
	case webui.RunKilled:
		r.FinishedAt, r.Error = start.Add(10*time.Minute), errText
	}
	if r.State != webui.RunKilled {
		r.ExitCode = &code
	}
	r = b.AddRun(r)
	if r.State != webui.RunSucceeded {
		b.AddEvent(webui.Event{Time: r.FinishedAt, Kind: "run." + r.State, Job: r.Job, RunID: r.ID, Message: fmt.Sprintf("on %s: %s", r.Node, r.Error)})
	}
}
