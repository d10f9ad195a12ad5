package job

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// countStates counts runs by state, a released pending run as "ready".
func countStates(runs []store.Run) map[string]int {
	n := map[string]int{}
	for _, r := range runs {
		s := string(r.State)
		if r.State == store.RunPending && !r.ReadyAt.IsZero() {
			s = "ready"
		}
		n[s]++
	}
	return n
}

// minuteByMinute advances the clock a minute at a time, as a running
// daemon lives through them.
func (b *bundle) minuteByMinute(n int, each func()) {
	for range n {
		b.advance(time.Minute)
		if each != nil {
			each()
		}
	}
}

// TestCatchUpGateFlood: a per-minute job behind a gate that opens an hour
// later must not release a run per minute at the opening. With catch_up
// latest (the default) only the latest instant waits: at the opening one
// run starts; the others were missed as they were superseded, saying why.
// With all, every instant runs, one after another; with none, each is
// missed when it cannot start.
func TestCatchUpGateFlood(t *testing.T) {
	for _, policy := range []string{"", CatchUpAll, CatchUpNone} {
		t.Run(cmpOr(policy, "latest"), func(t *testing.T) {
			run(t, func(t *testing.T, b *bundle) {
				b.gates["w"] = window{10 * time.Hour, 11 * time.Hour} // t0 is 09:00
				b.put(spec("j", "1m", func(s *store.JobSpec) { s.Gate, s.CatchUp = "w", policy }))
				b.minuteByMinute(59, nil)
				held := countStates(b.runs("j"))
				b.advance(time.Minute) // 10:00: the gate opens
				runs := b.runs("j")
				n := countStates(runs)
				switch policy {
				case "":
					if held["pending"] != 1 {
						t.Errorf("before the opening: %v; want one run waiting", held)
					}
					if got := len(b.procs("j")); got != 1 {
						t.Fatalf("%d runs started at the opening, want 1 (states %v)", got, n)
					}
					// 59 earlier instants were missed; the history keeps the
					// newest (failed_jobs_history_limit 1) and the events all.
					if n["missed"] != 1 || len(runs) != 2 {
						t.Errorf("states %v: want the newest missed run kept beside the one started", n)
					}
					if ev := b.events("j", store.EventRunMissed); len(ev) != 59 {
						t.Errorf("%d run.missed events, want 59", len(ev))
					}
					for _, r := range runs {
						if r.State == store.RunMissed && !strings.Contains(r.Error, "superseded") {
							t.Errorf("run for %s missed with %q; want it superseded", r.ScheduledTime.Format("15:04"), r.Error)
							break
						}
					}
					if p := b.procs("j"); !p[0].run.ScheduledTime.Equal(t0.Add(time.Hour)) {
						t.Errorf("the run started is for %s, want the latest instant (10:00)", p[0].run.ScheduledTime)
					}
				case CatchUpAll:
					if held["pending"] != 59 {
						t.Errorf("before the opening: %v; want every instant waiting", held)
					}
					if got := len(b.procs("j")); got != 1 {
						t.Fatalf("%d runs started at the opening, want 1: the backlog runs one after another", got)
					}
					if p := b.procs("j"); !p[0].run.ScheduledTime.Equal(t0.Add(time.Minute)) {
						t.Errorf("the first run started is for %s, want the oldest instant", p[0].run.ScheduledTime)
					}
					b.exitAll("j", 0)
					if got := len(b.procs("j")); got != 2 {
						t.Errorf("after the first ended, %d runs started, want 2", got)
					}
				case CatchUpNone:
					if held["missed"] != 1 || held["pending"] != 0 || len(b.events("j", store.EventRunMissed)) != 59 {
						t.Errorf("before the opening: %v; want each instant missed at once", held)
					}
					if got := len(b.procs("j")); got != 1 {
						t.Errorf("%d runs started at the opening, want the on-time one", got)
					}
				}
			})
		})
	}
}

// TestCatchUpNodeBack: a rolling job's node that comes back after four
// minutes runs one instant, not its backlog plus the current one at once.
func TestCatchUpNodeBack(t *testing.T) {
	nodes := fleet("a", "b")
	runFleet(t, nodes, func(t *testing.T, b *bundle) {
		nodes.setAlive("b", false)
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes, s.MaxParallel = "role=web", "1" }))
		finishA := func() {
			for _, r := range b.claimAs("a") {
				b.finishAs(r, store.RunSucceeded)
			}
		}
		b.minuteByMinute(4, finishA)
		nodes.setAlive("b", true)
		b.advance(waveRecheck)
		var onB []store.Run
		for _, r := range b.runs("j") {
			if r.Target == "b" {
				onB = append(onB, r)
			}
		}
		n := countStates(onB)
		if n["ready"]+n["running"] != 1 {
			t.Fatalf("node b back: its runs %v; want one released, not a backlog", n)
		}
		if n["missed"] != 1 || len(b.events("j", store.EventRunMissed)) != 3 {
			t.Errorf("node b back: its runs %v; want the three older instants missed (the newest kept)", n)
		}
		claimed := b.claimAs("b")
		if len(claimed) != 1 || !claimed[0].ScheduledTime.Equal(t0.Add(4*time.Minute)) {
			t.Errorf("b claimed %v; want only the latest instant", states(claimed))
		}
	})
}

// TestCatchUpWaveResume: after a wave resume, the waves of two instants do
// not overlap: max_parallel counts the job's nodes across instants.
func TestCatchUpWaveResume(t *testing.T) {
	for _, policy := range []string{"", CatchUpAll} {
		t.Run(cmpOr(policy, "latest"), func(t *testing.T) {
			runFleet(t, fleet("a", "b"), func(t *testing.T, b *bundle) {
				b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes, s.MaxParallel, s.CatchUp = "role=web", "1", policy }))
				if err := b.ctl.WavePause(b.ctx, "j"); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				b.minuteByMinute(2, nil)
				if err := b.ctl.WaveResume(b.ctx, "j"); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				n := countStates(b.runs("j"))
				if n["ready"] != 1 {
					t.Fatalf("after resume: %v; want one node released across both instants", n)
				}
				// Each run that ends frees the one slot for the next.
				for i := 0; i < 4; i++ {
					var r []store.Run
					for _, node := range []string{"a", "b"} {
						r = append(r, b.claimAs(node)...)
					}
					if len(r) == 0 {
						break
					}
					if len(r) > 1 {
						t.Fatalf("step %d: %d runs claimable at once, want 1", i, len(r))
					}
					b.finishAs(r[0], store.RunSucceeded)
					b.advance(waveRecheck)
				}
				want := map[string]int{"succeeded": 2, "missed": 2}
				if policy == CatchUpAll {
					want = map[string]int{"succeeded": 4}
				}
				if got := countStates(b.runs("j")); !mapsEqual(got, want) {
					t.Errorf("in the end: %v, want %v", got, want)
				}
			})
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func mapsEqual(a, b map[string]int) bool {
	ka, kb := make([]string, 0, len(a)), make([]string, 0, len(b))
	for k, v := range a {
		if v != 0 {
			ka = append(ka, k)
		}
	}
	for k, v := range b {
		if v != 0 {
			kb = append(kb, k)
		}
	}
	slices.Sort(ka)
	slices.Sort(kb)
	if !slices.Equal(ka, kb) {
		return false
	}
	for _, k := range ka {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// TestCatchUpAcrossRestart: a run a closed gate held is superseded by the
// next instant even when the gate opened while the daemon was down: the
// new controller reads why the run waited.
func TestCatchUpAcrossRestart(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.gates["w"] = window{10 * time.Hour, 11 * time.Hour} // t0 is 09:00
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.Gate = "w" }))
		b.advance(59*time.Minute + 30*time.Second) // 09:59:30, the 09:59 run waits
		b.stop()
		b.advance(time.Minute) // 10:00:30: down when the gate opened
		b.start()
		p := b.procs("j")
		if len(p) != 1 || !p[0].run.ScheduledTime.Equal(t0.Add(time.Hour)) {
			t.Fatalf("after the restart %d runs started (%v); want only the 10:00 one", len(p), states(b.runs("j")))
		}
		for _, r := range b.runs("j") {
			if r.ScheduledTime.Equal(t0.Add(59*time.Minute)) && (r.State != store.RunMissed || !strings.Contains(r.Error, "superseded")) {
				t.Errorf("the 09:59 run is %s %q; want it superseded", r.State, r.Error)
			}
		}
	})
}

// TestMissedInstantsNameNoRun: when a controller comes back after several
// instants and runs only the latest (catch_up latest), the run.missed event
// of the ones before names no run: it is not written with the catch-up
// run, whose id it would otherwise carry (as a run that itself ends
// missed does), on one node as across nodes.
func TestMissedInstantsNameNoRun(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
	}{
		{"one node", ""},
		{"fanned out", "local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runFleet(t, fleet(), func(t *testing.T, b *bundle) {
				b.put(spec("j", "1m", func(s *store.JobSpec) { s.Nodes = tt.nodes }))
				b.advance(time.Minute) // 09:01 runs
				b.exitAll("j", 0)
				b.stop()
				b.advance(3*time.Minute + 30*time.Second) // down at 09:02, 09:03, 09:04
				b.start()
				ev := b.events("j", store.EventRunMissed)
				if len(ev) != 1 {
					t.Fatalf("run.missed events = %+v, want one", ev)
				}
				if ev[0].RunID != 0 || !strings.Contains(string(ev[0].Data), `"count":2`) {
					t.Errorf("run.missed event = run %d, data %s; want no run and the two instants before the latest", ev[0].RunID, ev[0].Data)
				}
				var caught bool
				for _, r := range b.runs("j") {
					caught = caught || (r.Reason == store.ReasonCatchUp && r.ScheduledTime.Equal(t0.Add(4*time.Minute)))
				}
				if !caught {
					t.Errorf("no catch-up run for 09:04: %v", states(b.runs("j")))
				}
			})
		})
	}
}
