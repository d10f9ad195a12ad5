package job

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// fakeNodes is a NodeLister tests change as nodes come and go.
type fakeNodes struct {
	mu    sync.Mutex
	nodes []NodeInfo
}

func (f *fakeNodes) ListNodes(context.Context) ([]NodeInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.nodes), nil
}

func (f *fakeNodes) setAlive(name string, alive bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.nodes {
		if f.nodes[i].Name == name {
			f.nodes[i].Alive = alive
		}
	}
}

// fleet returns live nodes named names, labelled role=web, and this node
// ("local", role=ops).
func fleet(names ...string) *fakeNodes {
	f := &fakeNodes{nodes: []NodeInfo{{Name: "local", Labels: map[string]string{"role": "ops"}, Alive: true}}}
	for _, n := range names {
		f.nodes = append(f.nodes, NodeInfo{Name: n, Labels: map[string]string{"role": "web"}, Alive: true})
	}
	return f
}

// runFleet runs fn with a controller that sees nodes.
func runFleet(t *testing.T, nodes *fakeNodes, fn func(t *testing.T, b *bundle)) {
	t.Helper()
	runWith(t, func(c *Config) { c.Nodes = nodes }, fn)
}

// claimAs claims, as another node, what the store hands that node.
func (b *bundle) claimAs(node string) []store.Run {
	b.t.Helper()
	runs, err := b.st.RunClaim(b.ctx, store.RunClaimParams{Node: node, Now: b.clk.Now(), Limit: 100})
	if err != nil {
		b.t.Fatal(err)
	}
	return runs
}

// finishAs ends a run another node executes and tells the controller, as
// the cluster's wake-ups do.
func (b *bundle) finishAs(r store.Run, state store.RunState) {
	b.t.Helper()
	code := 0
	if state != store.RunSucceeded {
		code = 1
	}
	if _, err := b.st.RunFinish(b.ctx, store.RunFinishParams{ID: r.ID, State: state, ExitCode: &code, Now: b.clk.Now()}); err != nil {
		b.t.Fatal(err)
	}
	b.ctl.Notify("#wake")
	synctest.Wait()
}

// targets lists the job's runs as target:state, sorted.
func targets(runs []store.Run) []string {
	var out []string
	for _, r := range runs {
		s := string(r.State)
		if r.State == store.RunPending && !r.ReadyAt.IsZero() {
			s = "ready"
		}
		out = append(out, r.Target+":"+s)
	}
	slices.Sort(out)
	return out
}

func TestFanOut(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		want  []string
	}{
		{"all", "all", []string{"a:ready", "b:ready", "local:running"}},
		{"label selector", "role=web", []string{"a:ready", "b:ready"}},
		{"node name", "b", []string{"b:ready"}},
		{"not in", "role notin (web)", []string{"local:running"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runFleet(t, fleet("a", "b"), func(t *testing.T, b *bundle) {
				b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes = tt.nodes }))
				b.advance(time.Minute)
				if got := targets(b.runs("j")); !slices.Equal(got, tt.want) {
					t.Fatalf("runs = %v, want %v", got, tt.want)
				}
				for _, r := range b.runs("j") {
					if r.Target != "local" && r.Target != "" {
						if got := b.claimAs(r.Target); len(got) != 1 || got[0].ID != r.ID {
							t.Errorf("node %s claimed %v, want only run %d", r.Target, targets(got), r.ID)
						}
					}
				}
				if got := b.claimAs("stranger"); len(got) != 0 {
					t.Errorf("an unselected node claimed %v", targets(got))
				}
			})
		})
	}
}

func TestFanOutNoNodeMatches(t *testing.T) {
	runFleet(t, fleet("a"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes = "role=db" }))
		b.advance(time.Minute)
		if runs := b.runs("j"); len(runs) != 0 {
			t.Fatalf("runs = %v, want none", targets(runs))
		}
		ev := b.events("j", store.EventRunSkipped)
		if len(ev) != 1 || !strings.Contains(ev[0].Message, "no node matches role=db") {
			t.Fatalf("skip events = %+v", ev)
		}
		b.advance(time.Minute) // the instant was dealt with; the next one too
		if n := len(b.events("j", store.EventRunSkipped)); n != 2 {
			t.Errorf("%d skip events after two instants, want 2", n)
		}
	})
}

// TestWaveMaxParallel: at most max_parallel nodes are active; the rest
// start in name order as slots free up, whoever runs them.
func TestWaveMaxParallel(t *testing.T) {
	runFleet(t, fleet("a", "b", "c", "d", "e"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes = "role=web"; s.MaxParallel = "2" }))
		b.advance(time.Hour)
		want := []string{"a:ready", "b:ready", "c:pending", "d:pending", "e:pending"}
		if got := targets(b.runs("j")); !slices.Equal(got, want) {
			t.Fatalf("runs = %v, want %v", got, want)
		}
		for _, step := range []struct {
			node string
			next []string
		}{
			{"a", []string{"a:succeeded", "b:ready", "c:ready", "d:pending", "e:pending"}},
			{"b", []string{"a:succeeded", "b:failed", "c:ready", "d:ready", "e:pending"}},
			{"c", []string{"a:succeeded", "b:failed", "c:succeeded", "d:ready", "e:ready"}},
		} {
			got := b.claimAs(step.node)
			if len(got) != 1 {
				t.Fatalf("node %s claimed %v", step.node, targets(got))
			}
			state := store.RunSucceeded
			if step.node == "b" {
				state = store.RunFailed
			}
			b.finishAs(got[0], state)
			if got := targets(b.runs("j")); !slices.Equal(got, step.next) {
				t.Fatalf("after %s ended: runs = %v, want %v", step.node, got, step.next)
			}
		}
		w, err := b.ctl.Wave(b.ctx, "j", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if w.State != apitype.WaveRunning || w.MaxParallel != 2 || w.Count(apitype.WaveNodeDone) != 2 || w.Count(apitype.WaveNodeFailed) != 1 || w.Count(apitype.WaveNodeRunning) != 2 {
			t.Errorf("wave = %+v", w)
		}
	})
}

// TestWavePercentAndRandomOrder: 40% of five nodes is two; a random order
// is the same for every look at one instant.
func TestWavePercentAndRandomOrder(t *testing.T) {
	runFleet(t, fleet("a", "b", "c", "d", "e"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) {
			s.Nodes, s.MaxParallel, s.WaveOrder = "role=web", "40%", "random"
		}))
		b.advance(time.Hour)
		var ready []string
		for _, r := range b.runs("j") {
			if !r.ReadyAt.IsZero() {
				ready = append(ready, r.Target)
			}
		}
		order := waveOrder(spec("j", "1h"), t0.Add(time.Hour), []string{"a", "b", "c", "d", "e"})
		order2 := waveOrder(store.JobSpec{Name: "j", WaveOrder: "random"}, t0.Add(time.Hour), []string{"e", "d", "c", "b", "a"})
		if !slices.Equal(order, []string{"a", "b", "c", "d", "e"}) {
			t.Errorf("name order = %v", order)
		}
		slices.Sort(ready)
		first := slices.Clone(order2[:2])
		slices.Sort(first)
		if !slices.Equal(ready, first) {
			t.Errorf("released %v, want the first two of the random order %v", ready, order2)
		}
		again := waveOrder(store.JobSpec{Name: "j", WaveOrder: "random"}, t0.Add(time.Hour), []string{"a", "b", "c", "d", "e"})
		if !slices.Equal(again, order2) {
			t.Errorf("random order not stable: %v then %v", order2, again)
		}
	})
}

// TestWaveMaxFailures: the wave stops once max_failures nodes failed; the
// waiting nodes are skipped and a wave.stopped event is recorded.
func TestWaveMaxFailures(t *testing.T) {
	runFleet(t, fleet("a", "b", "c", "d"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes, s.MaxParallel, s.MaxFailures = "role=web", "1", 1 }))
		b.advance(time.Hour)
		got := b.claimAs("a")
		b.finishAs(got[0], store.RunFailed)
		want := []string{"a:failed", "b:missed", "c:missed", "d:missed"}
		if got := targets(b.runs("j")); !slices.Equal(got, want) {
			t.Fatalf("runs = %v, want %v", got, want)
		}
		for _, r := range b.runs("j")[1:] {
			if !strings.Contains(r.Error, "wave stopped") {
				t.Errorf("run on %s error = %q", r.Target, r.Error)
			}
		}
		if ev := b.events("j", store.EventWaveStopped); len(ev) != 1 || !strings.Contains(ev[0].Message, "skipped b, c, d") {
			t.Errorf("wave.stopped events = %+v", ev)
		}
		if w, _ := b.ctl.Wave(b.ctx, "j", time.Time{}); w.State != apitype.WaveStopped || w.Count(apitype.WaveNodeSkipped) != 3 {
			t.Errorf("wave = %+v", w)
		}
	})
}

// TestWaveDownNode: a run for a node that is down waits for it within
// the starting deadline and is missed after it; a node that returns in
// time gets its run.
func TestWaveDownNode(t *testing.T) {
	nodes := fleet("a", "b", "c")
	runFleet(t, nodes, func(t *testing.T, b *bundle) {
		nodes.setAlive("b", false) // here: every backend starts with b and c down
		nodes.setAlive("c", false)
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes = "role=web"; s.StartingDeadlineSeconds = ptr(int64(60)) }))
		b.advance(time.Hour)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:ready", "b:pending", "c:pending"}) {
			t.Fatalf("runs = %v", got)
		}
		nodes.setAlive("c", true)
		b.advance(waveRecheck)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:ready", "b:pending", "c:ready"}) {
			t.Fatalf("after c returned: runs = %v", got)
		}
		b.advance(time.Minute)
		runs := b.runs("j")
		if got := targets(runs); !slices.Equal(got, []string{"a:ready", "b:missed", "c:ready"}) {
			t.Fatalf("after the deadline: runs = %v", got)
		}
		for _, r := range runs {
			if r.Target == "b" && !strings.Contains(r.Error, "node b was down") {
				t.Errorf("b's run error = %q", r.Error)
			}
		}
	})
}

// TestWaveReleasedThenDown: a run released to a node that dies before
// claiming it is missed at the starting deadline.
func TestWaveReleasedThenDown(t *testing.T) {
	nodes := fleet("a")
	runFleet(t, nodes, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes = "a"; s.StartingDeadlineSeconds = ptr(int64(30)) }))
		b.advance(time.Hour)
		nodes.setAlive("a", false)
		b.advance(time.Minute) // past the deadline, and a heartbeat
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:missed"}) {
			t.Fatalf("runs = %v", got)
		}
	})
}

// TestWaveNodeWindow: each node's run waits for its own window, from the
// job's window map or the node's label, keeping its place in the wave.
func TestWaveNodeWindow(t *testing.T) {
	nodes := fleet("a", "b", "c")
	nodes.nodes[3].Labels[WindowLabel] = "late" // c brings its own window
	runFleet(t, nodes, func(t *testing.T, b *bundle) {
		// The instant is 10:00; "early" is open now, "late" from 10:30.
		b.gates["early"] = window{9 * time.Hour, 11 * time.Hour}
		b.gates["late"] = window{10*time.Hour + 30*time.Minute, 11 * time.Hour}
		b.put(spec("j", "1h", func(s *store.JobSpec) {
			s.Nodes, s.MaxParallel = "role=web", "1"
			s.Window = map[string]string{"a": "late", "role=db": "early"}
		}))
		b.advance(time.Hour)
		// a waits for "late"; b (no window) goes first; c waits for its
		// own "late".
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:pending", "b:ready", "c:pending"}) {
			t.Fatalf("runs = %v", got)
		}
		b.finishAs(b.claimAs("b")[0], store.RunSucceeded)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:pending", "b:succeeded", "c:pending"}) {
			t.Fatalf("after b: runs = %v", got)
		}
		b.advance(30 * time.Minute)
		// "late" opened: a, first in the wave, goes before c.
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:ready", "b:succeeded", "c:pending"}) {
			t.Fatalf("after late opened: runs = %v", got)
		}
		b.finishAs(b.claimAs("a")[0], store.RunSucceeded)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:succeeded", "b:succeeded", "c:ready"}) {
			t.Fatalf("after a: runs = %v", got)
		}
	})
}

// TestWavePauseResumeAbort: a paused wave releases nothing more; resume
// goes on; abort skips the waiting nodes.
func TestWavePauseResumeAbort(t *testing.T) {
	runFleet(t, fleet("a", "b", "c", "d"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes, s.MaxParallel = "role=web", "1" }))
		b.advance(time.Hour)
		if err := b.ctl.WavePause(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		b.finishAs(b.claimAs("a")[0], store.RunSucceeded)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:succeeded", "b:pending", "c:pending", "d:pending"}) {
			t.Fatalf("paused: runs = %v", got)
		}
		if w, _ := b.ctl.Wave(b.ctx, "j", time.Time{}); w.State != apitype.WavePaused || !w.Paused {
			t.Errorf("paused wave = %+v", w)
		}
		if err := b.ctl.WaveResume(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:succeeded", "b:ready", "c:pending", "d:pending"}) {
			t.Fatalf("resumed: runs = %v", got)
		}
		n, err := b.ctl.WaveAbort(b.ctx, "j")
		if err != nil || n != 2 {
			t.Fatalf("WaveAbort = %d, %v; want 2", n, err)
		}
		synctest.Wait()
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:succeeded", "b:ready", "c:missed", "d:missed"}) {
			t.Fatalf("aborted: runs = %v", got)
		}
		kinds := map[store.EventKind]int{}
		for _, e := range b.events("j", store.EventWavePaused, store.EventWaveResumed) {
			kinds[e.Kind]++
		}
		if kinds[store.EventWavePaused] != 1 || kinds[store.EventWaveResumed] != 1 {
			t.Errorf("wave events = %v", kinds)
		}
	})
}

// TestFanOutForbidPerNode: Forbid compares runs on the same node only.
func TestFanOutForbidPerNode(t *testing.T) {
	runFleet(t, fleet("a", "b"), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes, s.ConcurrencyPolicy = "role=web", store.Forbid }))
		b.advance(time.Minute)
		b.claimAs("a") // a's first run keeps running; b's ends
		b.finishAs(b.claimAs("b")[0], store.RunSucceeded)
		b.advance(time.Minute)
		var second []string
		for _, r := range b.runs("j") {
			if r.ScheduledTime.Equal(t0.Add(2 * time.Minute)) {
				second = append(second, r.Target+":"+string(r.State))
			}
		}
		slices.Sort(second)
		if !slices.Equal(second, []string{"a:missed", "b:pending"}) {
			t.Errorf("second instant's runs = %v, want a skipped (its previous run is active), b released", second)
		}
	})
}

// TestFanOutRetryKeepsTarget: a failed attempt on a node is retried on
// that node.
func TestFanOutRetryKeepsTarget(t *testing.T) {
	runFleet(t, fleet(), func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes, s.BackoffLimit = "local", 1 }))
		b.advance(time.Hour)
		b.exitAll("j", 1)
		runs := b.runs("j")
		if len(runs) != 2 || runs[1].Attempt != 2 || runs[1].Target != "local" {
			t.Fatalf("runs = %+v", runs)
		}
		if got := b.claimAs("other"); len(got) != 0 {
			t.Errorf("another node claimed the retry: %v", targets(got))
		}
	})
}

// fakeSlots is a reboot group of max slots.
type fakeSlots struct {
	mu      sync.Mutex
	max     int
	holders []string
	grants  int
}

func (f *fakeSlots) Acquire(_ context.Context, group, holder string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.holders, holder) {
		return nil
	}
	if len(f.holders) >= f.max {
		return errors.New("all slots taken")
	}
	f.holders = append(f.holders, holder)
	f.grants++
	return nil
}

func (f *fakeSlots) Release(_ context.Context, group, holder string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holders = slices.DeleteFunc(f.holders, func(h string) bool { return h == holder })
	return nil
}

func (f *fakeSlots) held() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.holders)
}

// TestWaveRebootGroup: a node's run starts only with a slot of the job's
// reboot group, and gives it back when it ends.
func TestWaveRebootGroup(t *testing.T) {
	nodes := fleet("a")
	nodes.nodes[0].Labels["role"] = "web" // local too
	slots := &fakeSlots{max: 1}
	runWith(t, func(c *Config) { c.Nodes, c.Slots = nodes, slots }, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes, s.RebootGroup = "role=web", "db" }))
		b.advance(time.Hour)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:ready", "local:pending"}) {
			t.Fatalf("runs = %v; want a with the one slot, local waiting", got)
		}
		if h := slots.held(); !slices.Equal(h, []string{"a"}) {
			t.Fatalf("slot holders = %v", h)
		}
		b.finishAs(b.claimAs("a")[0], store.RunSucceeded)
		slots.Release(b.ctx, "db", "a") // as a's own controller does when its run ends
		b.advance(waveRecheck)
		if got := targets(b.runs("j")); !slices.Equal(got, []string{"a:succeeded", "local:running"}) {
			t.Fatalf("after a released its slot: runs = %v", got)
		}
		b.exitAll("j", 0)
		if h := slots.held(); len(h) != 0 {
			t.Errorf("slot holders after local's run ended = %v, want none", h)
		}
	})
}

// TestFanOutRetryWaitsForWindow: a node's retry waits out its backoff
// and then for the node's window, like a first attempt.
func TestFanOutRetryWaitsForWindow(t *testing.T) {
	runFleet(t, fleet(), func(t *testing.T, b *bundle) {
		// The instant is midnight; the window is open 00:00-00:05 daily.
		b.gates["w"] = window{0, 5 * time.Minute}
		b.put(spec("j", "24h", func(s *store.JobSpec) {
			s.Nodes, s.BackoffLimit, s.Window = "local", 1, map[string]string{"default": "w"}
		}))
		b.advance(15 * time.Hour) // t0 is 09:00
		if len(b.procs("j")) != 1 {
			t.Fatalf("first attempt did not start: %v", states(b.runs("j")))
		}
		b.advance(4*time.Minute + 55*time.Second) // fail at 00:04:55
		b.exitAll("j", 1)
		runs := b.runs("j")
		if len(runs) != 2 || runs[1].State != store.RunPending || !runs[1].ReadyAt.IsZero() {
			t.Fatalf("retry = %+v; want held", runs)
		}
		b.advance(10 * time.Second) // backoff over, but the window closed at 00:05
		if len(b.procs("j")) != 1 {
			t.Fatalf("retry started outside its window")
		}
		b.advance(24*time.Hour - 5*time.Minute) // 00:00:05 the next day
		// The next day's first attempt starts in the same window, and the
		// two may start in either order: look for the retry by attempt.
		if !slices.ContainsFunc(b.procs("j"), func(p *fakeProc) bool { return p.run.Attempt == 2 }) {
			t.Fatalf("retry did not start when the window opened again: %v", states(b.runs("j")))
		}
	})
}

func TestNodeWindow(t *testing.T) {
	web := NodeInfo{Name: "w1", Labels: map[string]string{"role": "web", WindowLabel: "own"}}
	bare := NodeInfo{Name: "w2", Labels: map[string]string{"role": "web"}}
	tests := []struct {
		name   string
		window map[string]string
		node   NodeInfo
		want   string
	}{
		{"no job window: the node's own", nil, web, "own"},
		{"no window at all", nil, bare, ""},
		{"a matching selector wins", map[string]string{"role=web": "sel", "default": "def"}, web, "sel"},
		{"the job's default before the node's own", map[string]string{"role=db": "sel", "default": "def"}, web, "def"},
		{"by node name", map[string]string{"w1": "mine"}, web, "mine"},
		{"first selector in key order", map[string]string{"role=web": "b", "role in (web)": "a"}, bare, "a"},
		{"anytime opts out", map[string]string{"default": "anytime"}, web, "anytime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nodeWindow(store.JobSpec{Window: tt.window}, tt.node); got != tt.want {
				t.Errorf("nodeWindow = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestClaimWaitsForOwnWindow: a run released to this node while its
// window was open (say, while the node was away) is not started once the
// window has closed: it starts when the window opens again, or is missed
// at its deadline.
func TestClaimWaitsForOwnWindow(t *testing.T) {
	for _, tt := range []struct {
		name     string
		deadline *int64
		want     store.RunState
	}{
		{"window opens in time", nil, store.RunRunning},
		{"deadline first", ptr(int64(60)), store.RunMissed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := fleet()
			nodes.nodes[0].Labels[WindowLabel] = "w" // as the node registered itself
			runWith(t, func(c *Config) {
				c.Nodes = nodes
				c.Labels = nodes.nodes[0].Labels
			}, func(t *testing.T, b *bundle) {
				b.gates["w"] = window{10 * time.Hour, 11 * time.Hour} // opens at 10:00; t0 is 09:00
				b.put(spec("j", "24h", func(s *store.JobSpec) { s.Nodes, s.StartingDeadlineSeconds = "local", tt.deadline }))
				// As if an earlier leader had released it for this node.
				r, err := b.st.RunInsert(b.ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: t0,
					Attempt: 1, Reason: store.ReasonSchedule, Target: "local", ReadyAt: t0}, Now: t0})
				if err != nil {
					t.Fatal(err)
				}
				b.ctl.Notify("#wake")
				synctest.Wait()
				if got, _ := b.st.RunGet(b.ctx, r.ID); got.State != store.RunPending {
					t.Fatalf("run %s while the node's window is closed", got.State)
				}
				b.advance(61 * time.Second) // the deadline, if any, passes
				b.advance(time.Hour - 61*time.Second)
				got, _ := b.st.RunGet(b.ctx, r.ID)
				if got.State != tt.want {
					t.Fatalf("at 10:00 the run is %s (%s), want %s", got.State, got.Error, tt.want)
				}
				if tt.want == store.RunMissed && !strings.Contains(got.Error, "window of node local closed") {
					t.Errorf("missed for %q", got.Error)
				}
			})
		})
	}
}

// fakeSchema answers FanOutReady as a PostgreSQL store does before and
// after its contraction.
type fakeSchema struct{ ready atomic.Bool }

func (f *fakeSchema) FanOutReady(context.Context) (bool, error) { return f.ready.Load(), nil }

// TestFanOutWaitsForContraction: while the store's schema still has the
// previous release's run key (nodes of that release may be live), a
// fanned-out job's instants are skipped with that reason; once it is
// contracted they fan out.
func TestFanOutWaitsForContraction(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { testFanOutWaitsForContraction(t, be) })
	}
}

// testFanOutWaitsForContraction is TestFanOutWaitsForContraction on one
// backend, with a schema gate of its own.
func testFanOutWaitsForContraction(t *testing.T, be backend) {
	schema := &fakeSchema{}
	nodes := fleet("a", "b")
	runOn(t, be, func(c *Config) { c.Nodes, c.Schema = nodes, schema }, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes = "role=web" }))
		b.advance(time.Minute)
		if runs := b.runs("j"); len(runs) != 0 {
			t.Fatalf("runs before the contraction = %v, want none", targets(runs))
		}
		ev := b.events("j", store.EventRunSkipped)
		if len(ev) != 1 || !strings.Contains(ev[0].Message, "schema is not contracted") {
			t.Fatalf("skip events = %+v, want one naming the contraction", ev)
		}
		schema.ready.Store(true)
		b.advance(time.Minute)
		if runs := b.runs("j"); len(runs) != 2 {
			t.Fatalf("runs after the contraction = %v, want one per node", targets(runs))
		}
	})
}

// TestFanOutLogsOnlyWhatItCreates: a controller whose runs of an instant
// another node (the leader before it) created already says nothing of
// scheduling them; the one that creates them says how many.
func TestFanOutLogsOnlyWhatItCreates(t *testing.T) {
	runFleet(t, fleet("a"), func(t *testing.T, b *bundle) {
		var buf syncBuffer
		b.stop()
		b.cfg.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
		b.start()
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Nodes = "role=web" }))
		b.advance(time.Hour) // 10:00, created here
		at := t0.Add(2 * time.Hour)
		if _, err := b.st.RunInsert(b.ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: at, Attempt: 1,
			Reason: store.ReasonSchedule, Target: "a"}, Now: b.clk.Now()}); err != nil {
			t.Fatal(err)
		}
		b.advance(time.Hour) // 11:00, created before by another node
		var logged []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if strings.Contains(line, `"msg":"runs scheduled on nodes"`) {
				logged = append(logged, line)
			}
		}
		if len(logged) != 1 || !strings.Contains(logged[0], `"nodes":1`) || !strings.Contains(logged[0], t0.Add(time.Hour).Format("15:04")) {
			t.Errorf("runs scheduled on nodes logged %d times, want once, for 10:00: %v", len(logged), logged)
		}
	})
}
