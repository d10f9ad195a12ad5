package daemon

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// demoT0 is a whole minute, where the demo's jobs fire.
var demoT0 = time.Date(2025, 3, 12, 14, 7, 0, 0, time.UTC)

// demoNodesHarness is the simulated nodes over a real SQLite store with a
// fake clock, and a job fanned out to every node.
type demoNodesHarness struct {
	t   *testing.T
	st  store.Store
	clk *clock.Fake
	f   *demoNodeSet

	mu       sync.Mutex
	notified []string
}

func newDemoNodesHarness(t *testing.T) *demoNodesHarness {
	t.Helper()
	clk := clock.NewFake(demoT0)
	st, err := sqlitestore.Open(t.Context(), t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, spec := range append(demoFleetWideJobs(), store.JobSpec{Name: "plain", Cron: "* * * * *", Command: []string{"true"}}) {
		if _, err := st.JobCreate(t.Context(), store.JobCreateParams{Spec: spec, Source: store.SourceDemo, Now: demoT0}); err != nil {
			t.Fatal(err)
		}
	}
	h := &demoNodesHarness{t: t, st: st, clk: clk}
	h.f = newDemoNodes(st, clk, "self", map[string]string{"role": "scheduler"}, slog.New(slog.DiscardHandler))
	return h
}

// worker returns a simulated node's worker that records whom it wakes.
func (h *demoNodesHarness) worker(name string) *demoWorker {
	return &demoWorker{f: h.f, name: name, active: map[int64]demoRun{}, notify: func(job string) {
		h.mu.Lock()
		h.notified = append(h.notified, job)
		h.mu.Unlock()
	}}
}

// insert adds a pending run of job at instant for target, released at
// ready (zero: held).
func (h *demoNodesHarness) insert(job, target string, instant, ready time.Time) store.Run {
	h.t.Helper()
	r, err := h.st.RunInsert(h.t.Context(), store.RunInsertParams{Run: store.Run{Job: job, ScheduledTime: instant, Attempt: 1,
		Reason: store.ReasonSchedule, Target: target, ReadyAt: ready}, Now: h.clk.Now()})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *demoNodesHarness) get(id int64) store.Run {
	h.t.Helper()
	r, err := h.st.RunGet(h.t.Context(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func TestDemoFleetNodes(t *testing.T) {
	h := newDemoNodesHarness(t)
	nodes, err := h.f.ListNodes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
		if !n.Alive {
			t.Errorf("%s is not alive", n.Name)
		}
	}
	if want := "self demo-db-1 demo-db-2 demo-web-1 demo-web-2"; strings.Join(names, " ") != want {
		t.Errorf("nodes %v, want %s", names, want)
	}
	if nodes[0].Labels["role"] != "scheduler" || nodes[3].Labels["role"] != "web" || nodes[1].Labels["zone"] != "zone-a" {
		t.Errorf("labels %v", nodes)
	}
	nodes[3].Labels["role"] = "changed" // the caller's copy
	if again, _ := h.f.ListNodes(t.Context()); again[3].Labels["role"] != "web" {
		t.Error("ListNodes hands out the simulated nodes' own label maps")
	}

	h.clk.Advance(3 * time.Second)
	h.worker("demo-web-1").step(t.Context(), h.clk.Now())
	for _, n := range h.f.clusterNodes() {
		want := time.Time{}
		if n.ID == "demo-web-1" {
			want = h.clk.Now()
		}
		if !n.HeartbeatAt.Equal(want) || n.Host != "simulated by serve --demo" || n.StartedAt.IsZero() {
			t.Errorf("cluster node %+v, want heartbeat %v", n, want)
		}
	}
}

// TestDemoWorkerRuns: a simulated node claims only the released runs
// targeted at it, never a run for any node, and ends each
// after its simulated duration, waking the controller.
func TestDemoWorkerRuns(t *testing.T) {
	h := newDemoNodesHarness(t)
	ctx := t.Context()
	w := h.worker("demo-web-1")
	mine := h.insert("rotate-logs", "demo-web-1", demoT0, demoT0)
	held := h.insert("rolling-patch", "demo-web-1", demoT0, time.Time{})
	other := h.insert("rotate-logs", "demo-web-2", demoT0, demoT0)
	plain := h.insert("plain", "", demoT0, demoT0)

	w.step(ctx, demoT0)
	if r := h.get(plain.ID); r.State != store.RunPending {
		t.Fatalf("a simulated node took the run for any node: %s on %q", r.State, r.Node)
	}
	r := h.get(mine.ID)
	if r.State != store.RunRunning || r.Node != "demo-web-1" {
		t.Fatalf("its released run is %s on %q, want running on demo-web-1", r.State, r.Node)
	}
	for _, id := range []int64{held.ID, other.ID} {
		if r := h.get(id); r.State != store.RunPending {
			t.Errorf("run %d (%s, for %s) was claimed", id, r.Job, r.Target)
		}
	}
	due := r.StartedAt.Add(demoDuration("demo-web-1", r))
	if d := due.Sub(r.StartedAt); d < demoMinRun || d >= demoMinRun+demoSpread*time.Second {
		t.Errorf("simulated duration %v out of range", d)
	}
	for h.clk.Now().Add(demoTick).Before(due) {
		h.clk.Advance(demoTick)
		w.step(ctx, h.clk.Now())
		if r := h.get(mine.ID); r.State != store.RunRunning {
			t.Fatalf("ended %s before its time", r.State)
		} else if r.HeartbeatAt.Before(h.clk.Now().Add(-demoBeat)) {
			t.Fatalf("heartbeat %v is older than %v at %v", r.HeartbeatAt, demoBeat, h.clk.Now())
		}
	}
	h.clk.Set(due)
	w.step(ctx, due)
	r = h.get(mine.ID)
	if r.State != store.RunSucceeded || r.ExitCode == nil || *r.ExitCode != 0 || !r.FinishedAt.Equal(due) {
		t.Fatalf("after its time the run is %s (exit %v) at %v, want succeeded at %v", r.State, r.ExitCode, r.FinishedAt, due)
	}
	full, _, err := h.st.RunList(ctx, store.RunListParams{Job: "rotate-logs", Node: "demo-web-1", WithOutput: true, Page: store.Page{Limit: 5}})
	if err != nil || len(full) != 1 || !strings.Contains(string(full[0].Output), "simulated by serve --demo: the command of rotate-logs did not run") {
		t.Errorf("output %v, %v", full, err)
	}
	evs, _, err := h.st.EventList(ctx, store.EventListParams{Job: "rotate-logs", Kinds: []store.EventKind{store.EventRunSucceeded}})
	if err != nil || len(evs) != 1 || !strings.Contains(evs[0].Message, "succeeded on demo-web-1") {
		t.Errorf("run.succeeded events %v, %v", evs, err)
	}
	if j, _ := h.st.JobGet(ctx, "rotate-logs"); j.Status.Succeeded != 1 {
		t.Errorf("the job counts %d successes", j.Status.Succeeded)
	}
	if !slices.Equal(h.notified, []string{"rotate-logs"}) {
		t.Errorf("woke the controller for %v", h.notified)
	}
}

// TestDemoWorkerOutcomes: demo-db-2 fails one instant in three; an operator's kill reaches a simulated run at
// its next heartbeat; a restarted node ends the runs it left running.
func TestDemoWorkerOutcomes(t *testing.T) {
	h := newDemoNodesHarness(t)
	ctx := t.Context()
	fails := 0
	for m := range 30 {
		r := store.Run{Job: "rotate-logs", ScheduledTime: demoT0.Add(time.Duration(m) * time.Minute), Attempt: 1}
		if demoFails(demoFailingNode, r) {
			fails++
		}
		for _, n := range demoNodes {
			if n.name != demoFailingNode && demoFails(n.name, r) {
				t.Fatalf("%s fails", n.name)
			}
		}
		copyOf := r
		copyOf.ID = 99 // the outcome depends on the node, job, instant and attempt only
		if demoFails(demoFailingNode, r) != demoFails(demoFailingNode, copyOf) || demoDuration("demo-db-1", r) != demoDuration("demo-db-1", copyOf) {
			t.Fatal("a simulated outcome depends on more than the node, job, instant and attempt")
		}
	}
	if fails != 10 {
		t.Errorf("demo-db-2 fails %d of 30 instants, want a third", fails)
	}

	// A failing instant on demo-db-2.
	instant := demoT0
	for !demoFails(demoFailingNode, store.Run{Job: "rotate-logs", ScheduledTime: instant, Attempt: 1}) {
		instant = instant.Add(time.Minute)
	}
	h.clk.Set(instant)
	db2 := h.worker(demoFailingNode)
	failing := h.insert("rotate-logs", demoFailingNode, instant, instant)
	db2.step(ctx, instant)
	h.clk.Advance(demoMinRun + demoSpread*time.Second)
	db2.step(ctx, h.clk.Now())
	if r := h.get(failing.ID); r.State != store.RunFailed || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("demo-db-2's failing instant ended %s (exit %v)", r.State, r.ExitCode)
	}

	// A kill.
	web := h.worker("demo-web-2")
	killed := h.insert("rolling-patch", "demo-web-2", h.clk.Now(), h.clk.Now())
	web.step(ctx, h.clk.Now())
	if _, err := h.st.RunCancel(ctx, store.RunCancelParams{ID: killed.ID}); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(demoBeat)
	web.step(ctx, h.clk.Now())
	if r := h.get(killed.ID); r.State != store.RunKilled || r.Error != "killed on request" {
		t.Errorf("a cancelled simulated run is %s (%q), want killed", r.State, r.Error)
	}

	// A restart: the node's new worker takes its running run back.
	left := h.insert("rotate-logs", "demo-web-2", h.clk.Now(), h.clk.Now())
	web.step(ctx, h.clk.Now())
	started := h.get(left.ID).StartedAt
	again := h.worker("demo-web-2")
	again.adopt(ctx)
	if !slices.Equal(slices.Collect(maps.Keys(again.active)), []int64{left.ID}) {
		t.Fatalf("the restarted node holds %v, want run %d", again.active, left.ID)
	}
	h.clk.Set(started.Add(demoMinRun + demoSpread*time.Second))
	again.step(ctx, h.clk.Now())
	if r := h.get(left.ID); r.State != store.RunSucceeded {
		t.Errorf("the adopted run is %s, want succeeded", r.State)
	}
}

// TestDemoFleetStart: the workers step on the fake clock and stop when
// asked.
func TestDemoFleetStart(t *testing.T) {
	h := newDemoNodesHarness(t)
	var runs []store.Run
	for _, n := range demoNodes {
		runs = append(runs, h.insert("rotate-logs", n.name, demoT0, demoT0))
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stop := h.f.start(ctx, nil)
	deadline := time.Now().Add(20 * time.Second)
	for {
		done := 0
		for _, r := range runs {
			if h.get(r.ID).State.Terminal() {
				done++
			}
		}
		if done == len(runs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d simulated runs ended within 20 s", done, len(runs))
		}
		// Step the clock only once every worker waits on it again.
		if h.clk.PendingTimers() == len(demoNodes) {
			h.clk.Advance(demoTick)
		}
		time.Sleep(time.Millisecond) // polling the workers, not waiting for time to pass
	}
	stop()
	for _, r := range runs {
		got := h.get(r.ID)
		if got.Node != r.Target {
			t.Errorf("run for %s ran on %s", r.Target, got.Node)
		}
	}
}
