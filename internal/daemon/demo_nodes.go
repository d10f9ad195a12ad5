package daemon

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the simulated nodes of `serve --demo` on SQLite: four
// nodes beside the daemon's own, so the demo's fleet-wide jobs fan out and
// roll in waves in one process. The job controller lists the simulated
// nodes with this node (demoNodeSet is its job.NodeLister), and one
// goroutine per simulated node claims the runs targeted at it, as a real
// node would, and ends each after a simulated duration, without running
// its command. All their timing comes from the daemon's clock.

// demoFleetWideJobs are the fleet-wide jobs `serve --demo` adds: one on
// every node each minute, and a rolling one every five minutes, two nodes
// at a time, stopping after two failures. Each keeps its latest twenty
// instants on every node, for the job page's matrix.
func demoFleetWideJobs() []store.JobSpec {
	return []store.JobSpec{
		{
			Name:                       "rotate-logs",
			Cron:                       "* * * * *",
			Shell:                      `echo "rotating the logs of $ALMANAC_SCHEDULED_TIME"`,
			Nodes:                      "all",
			SuccessfulJobsHistoryLimit: ptr(20),
			FailedJobsHistoryLimit:     ptr(20),
		},
		{
			Name:                       "rolling-patch",
			Cron:                       "*/5 * * * *",
			Command:                    []string{"sh", "-c", "echo patching; sleep 12; echo patched"},
			Nodes:                      "all",
			MaxParallel:                "2",
			MaxFailures:                2,
			SuccessfulJobsHistoryLimit: ptr(20),
			FailedJobsHistoryLimit:     ptr(20),
		},
	}
}

// demoNode is one simulated node.
type demoNode struct {
	name   string
	labels map[string]string
}

// demoNodes are the simulated nodes: two web servers and two databases in
// two zones.
var demoNodes = []demoNode{
	{"demo-db-1", map[string]string{"role": "db", "zone": "zone-a"}},
	{"demo-db-2", map[string]string{"role": "db", "zone": "zone-b"}},
	{"demo-web-1", map[string]string{"role": "web", "zone": "zone-a"}},
	{"demo-web-2", map[string]string{"role": "web", "zone": "zone-b"}},
}

// demoFailingNode is the simulated node whose runs fail now and then
// (demoFails), so the demo's waves show failures.
const demoFailingNode = "demo-db-2"

// Timing of the simulated nodes.
const (
	// demoTick is how often a simulated node looks for runs to claim
	// and finish.
	demoTick = time.Second
	// demoBeat is how often it heart-beats its running runs (the
	// controller presumes a run dead after three of its own, 10 s,
	// heartbeat intervals).
	demoBeat = 5 * time.Second
	// A simulated run takes demoMinRun plus up to demoSpread seconds.
	demoMinRun = 5 * time.Second
	demoSpread = 16
	// demoTTL is how long a simulated node may go unseen and still be
	// alive in the cluster view, as the lease TTL is for real nodes.
	demoTTL = 5 * demoTick
)

// newDemoNodes returns the simulated nodes of `serve --demo` on SQLite,
// nil otherwise (on PostgreSQL the demo's fleet-wide jobs go to the
// cluster's real nodes). The daemon gives it to the job controller as its
// node lister and lists its nodes in the cluster view.
func (d *Daemon) newDemoNodes() *demoNodeSet {
	if !d.cfg.demo || d.cluster.node != nil {
		return nil
	}
	return newDemoNodes(d.backend, d.clk, d.cfg.node, d.cluster.labels, d.log.With("component", "demo-nodes"))
}

// startDemoNodes starts the simulated nodes, if any, and returns what
// stops them; they wake the controller when their runs end.
func (d *Daemon) startDemoNodes(ctx context.Context) (stop func()) {
	if d.demo == nil {
		return func() {}
	}
	return d.demo.start(ctx, d.ctrl.Notify)
}

// demoNodesStore is what the simulated nodes need of the store.
type demoNodesStore interface {
	JobGet(ctx context.Context, name string) (store.Job, error)
	RunList(ctx context.Context, p store.RunListParams) ([]store.Run, int64, error)
	RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error)
	RunHeartbeat(ctx context.Context, p store.RunHeartbeatParams) ([]int64, error)
	RunFinish(ctx context.Context, p store.RunFinishParams) (store.Run, error)
}

// demoNodeSet is the simulated nodes: the node lister the controller uses
// in demo mode, and the simulated nodes' workers.
type demoNodeSet struct {
	st      demoNodesStore
	clk     clock.Clock
	self    string
	labels  map[string]string
	log     *slog.Logger
	started time.Time

	mu   sync.Mutex
	seen map[string]time.Time // each simulated node's latest step
}

// newDemoNodes returns the simulated nodes beside the daemon self (with its labels).
func newDemoNodes(st demoNodesStore, clk clock.Clock, self string, labels map[string]string, log *slog.Logger) *demoNodeSet {
	return &demoNodeSet{st: st, clk: clk, self: self, labels: labels, log: log, started: clk.Now(), seen: map[string]time.Time{}}
}

// ListNodes implements job.NodeLister: this node and the simulated ones,
// all alive.
func (f *demoNodeSet) ListNodes(context.Context) ([]job.NodeInfo, error) {
	out := []job.NodeInfo{{Name: f.self, Labels: maps.Clone(f.labels), Alive: true}}
	for _, n := range demoNodes {
		out = append(out, job.NodeInfo{Name: n.name, Labels: maps.Clone(n.labels), Alive: true})
	}
	return out, nil
}

// clusterNodes are the simulated nodes as the cluster view lists them,
// heart-beaten at their latest step.
func (f *demoNodeSet) clusterNodes() []apitype.ClusterNode {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]apitype.ClusterNode, 0, len(demoNodes))
	for _, n := range demoNodes {
		out = append(out, apitype.ClusterNode{ID: n.name, Host: "simulated by serve --demo", StartedAt: f.started.UTC(),
			HeartbeatAt: f.seen[n.name].UTC(), Labels: maps.Clone(n.labels)})
	}
	return out
}

// start runs a worker per simulated node until ctx ends; stop waits for
// them. notify, if set, wakes the job controller when a simulated run
// ends, so the wave goes on at once.
func (f *demoNodeSet) start(ctx context.Context, notify func(job string)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, n := range demoNodes {
		w := &demoWorker{f: f, name: n.name, notify: notify, active: map[int64]demoRun{}}
		wg.Go(func() { w.run(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}

// demoRun is a run a simulated node is running.
type demoRun struct {
	run store.Run
	due time.Time // when it ends
}

// demoWorker is one simulated node's worker. Only its goroutine uses it.
type demoWorker struct {
	f        *demoNodeSet
	name     string
	notify   func(string)
	active   map[int64]demoRun
	nextBeat time.Time
}

// run steps the node every demoTick until ctx ends.
func (w *demoWorker) run(ctx context.Context) {
	w.adopt(ctx)
	t := w.f.clk.NewTimer(demoTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		w.step(ctx, w.f.clk.Now())
		t.Reset(demoTick)
	}
}

// adopt takes back the runs this node left running in the daemon's
// previous life: they end as if they had run all along.
func (w *demoWorker) adopt(ctx context.Context) {
	runs, _, err := w.f.st.RunList(ctx, store.RunListParams{Node: w.name, States: []store.RunState{store.RunRunning}, Page: store.Page{Limit: 1000}})
	if err != nil {
		w.f.log.Warn("demo node: list its running runs", "node", w.name, "err", err)
		return
	}
	for _, r := range runs {
		if r.Node == w.name {
			w.active[r.ID] = demoRun{run: r, due: r.StartedAt.Add(demoDuration(w.name, r))}
		}
	}
}

// step ends the runs whose time has come, heart-beats the others, and
// claims the runs released for this node.
func (w *demoWorker) step(ctx context.Context, now time.Time) {
	w.f.mu.Lock()
	w.f.seen[w.name] = now
	w.f.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(w.active)) {
		if a := w.active[id]; !now.Before(a.due) {
			w.finish(ctx, a.run, now, demoOutcome(w.name, a.run))
		}
	}
	if !now.Before(w.nextBeat) {
		w.beat(ctx, now)
		w.nextBeat = now.Add(demoBeat)
	}
	w.claim(ctx, now)
}

// beat heart-beats the running runs; those an operator asked to stop
// end killed.
func (w *demoWorker) beat(ctx context.Context, now time.Time) {
	if len(w.active) == 0 {
		return
	}
	ids := slices.Sorted(maps.Keys(w.active))
	cancel, err := w.f.st.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: w.name, IDs: ids, Now: now})
	if err != nil {
		w.f.log.Warn("demo node: heartbeat", "node", w.name, "err", err)
		return
	}
	for _, id := range cancel {
		if a, ok := w.active[id]; ok {
			w.finish(ctx, a.run, now, store.RunFinishParams{State: store.RunKilled, Error: "killed on request",
				Output: demoOutput(w.name, a.run, "stopped on request\n")})
		}
	}
}

// claim claims the runs released for this node, and only those: a
// simulated node runs no commands, so runs for any node are left to the
// daemon's own controller.
func (w *demoWorker) claim(ctx context.Context, now time.Time) {
	runs, err := w.f.st.RunClaim(ctx, store.RunClaimParams{Node: w.name, Now: now, Limit: 100, TargetedOnly: true})
	if err != nil {
		w.f.log.Warn("demo node: claim", "node", w.name, "err", err)
		return
	}
	for _, r := range runs {
		w.active[r.ID] = demoRun{run: r, due: now.Add(demoDuration(w.name, r))}
	}
}

// finish records a simulated run's end with its event and the job's
// history limits, as the controller records its own.
func (w *demoWorker) finish(ctx context.Context, r store.Run, now time.Time, p store.RunFinishParams) {
	delete(w.active, r.ID)
	p.ID, p.Now = r.ID, now
	msg := fmt.Sprintf("run %d %s on %s", r.ID, p.State, w.name)
	if p.ExitCode != nil {
		msg += fmt.Sprintf(" (exit %d)", *p.ExitCode)
	}
	if p.Error != "" {
		msg += ": " + p.Error
	}
	p.Events = []store.Event{{Kind: store.EventRunFinished(p.State), Message: msg}}
	if j, err := w.f.st.JobGet(ctx, r.Job); err == nil {
		ok, failed := j.Spec.HistoryLimits()
		p.Prune = &store.HistoryLimits{KeepSucceeded: ok, KeepFailed: failed}
	}
	if _, err := w.f.st.RunFinish(ctx, p); err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		w.f.log.Warn("demo node: finish run", "node", w.name, "run", r.ID, "err", err)
		return
	}
	if w.notify != nil {
		w.notify(r.Job)
	}
}

// demoHash mixes a node, a job, an instant and an attempt into a
// number, so a simulated run's duration is the same whenever it is
// computed.
func demoHash(node string, r store.Run) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", node, r.Job, r.ScheduledTime.Unix(), r.Attempt)
	return h.Sum64()
}

// demoDuration is how long node takes over r.
func demoDuration(node string, r store.Run) time.Duration {
	return demoMinRun + time.Duration(demoHash(node, r)%demoSpread)*time.Second
}

// demoFails reports whether r fails on node: on demoFailingNode, the
// instants whose minute count since the epoch is a multiple of three (one
// in three of a job every minute, or every five).
func demoFails(node string, r store.Run) bool {
	return node == demoFailingNode && r.ScheduledTime.Unix()/60%3 == 0
}

// demoOutcome is how r ends on node.
func demoOutcome(node string, r store.Run) store.RunFinishParams {
	code := 0
	if demoFails(node, r) {
		code = 1
		return store.RunFinishParams{State: store.RunFailed, ExitCode: &code,
			Output: demoOutput(node, r, "error: /var/log is full on "+node+"\n")}
	}
	return store.RunFinishParams{State: store.RunSucceeded, ExitCode: &code, Output: demoOutput(node, r, "done\n")}
}

// demoOutput is a simulated run's output: it says that no command ran.
func demoOutput(node string, r store.Run, last string) []byte {
	return fmt.Appendf(nil, "[%s is a node simulated by serve --demo: the command of %s did not run]\n%s", node, r.Job, last)
}
