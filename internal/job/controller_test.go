package job

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestRunsOnSchedule(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("tick", "1m"))
		if got := b.runs("tick"); len(got) != 0 {
			t.Fatalf("runs before the first instant: %v", states(got))
		}
		b.advance(time.Minute)
		ps := b.procs("tick")
		if len(ps) != 1 {
			t.Fatalf("started %d processes at the first instant, want 1", len(ps))
		}
		if !ps[0].run.ScheduledTime.Equal(t0.Add(time.Minute)) || ps[0].run.Reason != store.ReasonSchedule {
			t.Errorf("run = %+v", ps[0].run)
		}
		b.exitAll("tick", 0)
		b.advance(time.Minute)
		b.exitAll("tick", 0)
		want := []string{"schedule@09:01:00#1:succeeded", "schedule@09:02:00#1:succeeded"}
		if got := states(b.runs("tick")); !reflect.DeepEqual(got, want) {
			t.Errorf("runs = %v, want %v", got, want)
		}
		st, err := b.ctl.Status(b.ctx, "tick")
		if err != nil {
			t.Fatal(err)
		}
		if st.Succeeded != 2 || !st.LastScheduleTime.Equal(t0.Add(2*time.Minute)) ||
			!st.NextScheduleTime.Equal(t0.Add(3*time.Minute)) || st.LastSuccessfulTime.IsZero() || len(st.Active) != 0 {
			t.Errorf("status = %+v", st)
		}
		// The controller sleeps on one timer until the next instant: no polling.
		if d, ok := b.clk.NextDeadline(); !ok || !d.Equal(t0.Add(3*time.Minute)) {
			t.Errorf("next timer = %v %v, want %v", d, ok, t0.Add(3*time.Minute))
		}
	})
}

// TestExactlyOncePerInstant: repeated wake-ups, reloads, restarts and a
// second controller on the same store never create a second run for an
// instant.
func TestExactlyOncePerInstant(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("once", "1m"))
		b.advance(time.Minute)
		for i := 0; i < 5; i++ {
			b.ctl.Notify("")
			b.ctl.Notify("once")
			synctest.Wait()
		}
		b.stop()
		b.start() // restart at the same instant
		cfg := b.cfg
		cfg.Store = b.st // a second process on the same database
		second, err := NewController(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := contextWithCancel(b)
		done := make(chan error, 1)
		go func() { done <- second.Run(ctx) }()
		synctest.Wait()
		b.advance(time.Minute) // both controllers see 09:02
		for _, p := range b.ex.started() {
			p.exit(0)
		}
		synctest.Wait()
		cancel()
		<-done
		counts := map[time.Time]int{}
		for _, r := range b.runs("once") {
			counts[r.ScheduledTime]++
		}
		want := map[time.Time]int{t0.Add(time.Minute): 1, t0.Add(2 * time.Minute): 1}
		if !reflect.DeepEqual(counts, want) {
			t.Errorf("runs per instant = %v, want one each for 09:01 and 09:02", counts)
		}
	})
}

// TestDowntime: after a long outage the missed instants are counted
// exactly, the latest one inside the deadline runs, and the rest become
// one missed event.
func TestDowntime(t *testing.T) {
	tests := []struct {
		name      string
		sched     func(Schedule) Schedule
		period    string
		down      time.Duration
		deadline  *int64
		wantRun   bool
		wantCount int64
	}{
		{"ten hours, latest inside deadline", nil, "1m", 10*time.Hour + 20*time.Second, ptr(int64(60)), true, 599},
		{"latest outside deadline", nil, "1m", 10*time.Hour + 45*time.Second, ptr(int64(30)), false, 600},
		{"no deadline", nil, "1m", 10 * time.Hour, nil, true, 599},
		{"a year of seconds, counted not enumerated", nil, "1s", 365 * 24 * time.Hour, ptr(int64(5)), true, 365*24*3600 - 1},
		{"enumeration fallback", func(s Schedule) Schedule { return enumOnly{s} }, "1m", 10*time.Hour + 20*time.Second, ptr(int64(60)), true, 599},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run(t, func(t *testing.T, b *bundle) {
				if tc.sched != nil {
					b.cfg.Parse = func(n, e string, l *time.Location) (Schedule, error) {
						s, err := parseEvery(n, e, l)
						return tc.sched(s), err
					}
					b.stop()
					b.start()
				}
				b.put(spec("nightly", tc.period, func(s *store.JobSpec) { s.StartingDeadlineSeconds = tc.deadline }))
				b.crash()
				b.clk.Advance(tc.down)
				b.start()
				runs := b.runs("nightly")
				period, _ := time.ParseDuration(tc.period)
				latest := t0.Add(tc.down).Truncate(period)
				if tc.wantRun {
					if len(runs) != 1 || !runs[0].ScheduledTime.Equal(latest) || runs[0].Reason != store.ReasonCatchUp {
						t.Fatalf("runs = %v, want one catch-up run for %v", states(runs), latest)
					}
				} else if len(runs) != 0 {
					t.Fatalf("runs = %v, want none", states(runs))
				}
				missed := b.events("nightly", store.EventRunMissed)
				if len(missed) != 1 {
					t.Fatalf("missed events = %+v, want exactly one", missed)
				}
				var d missedData
				if err := json.Unmarshal(missed[0].Data, &d); err != nil {
					t.Fatal(err)
				}
				wantLast := latest
				if tc.wantRun {
					wantLast = latest.Add(-period)
				}
				if d.Count != tc.wantCount || !d.First.Equal(t0.Add(period)) || !d.Last.Equal(wantLast) {
					t.Errorf("missed = %+v, want count %d from %v to %v", d, tc.wantCount, t0.Add(period), wantLast)
				}
				j, _ := b.st.JobGet(b.ctx, "nightly")
				if !j.Status.LastScheduleTime.Equal(latest) {
					t.Errorf("last schedule time = %v, want %v", j.Status.LastScheduleTime, latest)
				}
			})
		})
	}
}

func TestConcurrencyPolicies(t *testing.T) {
	t.Run("Allow", func(t *testing.T) {
		run(t, func(t *testing.T, b *bundle) {
			b.put(spec("j", "1m"))
			b.advance(time.Minute)
			b.advance(time.Minute)
			if ps := b.procs("j"); len(ps) != 2 || ps[0].exited() {
				t.Fatalf("Allow: %d processes, want 2 side by side", len(ps))
			}
		})
	})
	t.Run("Forbid", func(t *testing.T) {
		run(t, func(t *testing.T, b *bundle) {
			b.put(spec("j", "1m", func(s *store.JobSpec) { s.ConcurrencyPolicy = store.Forbid }))
			b.advance(time.Minute)
			b.advance(time.Minute)
			if ps := b.procs("j"); len(ps) != 1 {
				t.Fatalf("Forbid: %d processes, want 1", len(ps))
			}
			skipped := b.events("j", store.EventRunSkipped)
			if len(skipped) != 1 || !strings.Contains(skipped[0].Message, "previous run active") {
				t.Errorf("skipped events = %+v", skipped)
			}
			b.exitAll("j", 0)
			b.advance(time.Minute)
			if ps := b.procs("j"); len(ps) != 2 || !ps[1].run.ScheduledTime.Equal(t0.Add(3*time.Minute)) {
				t.Errorf("Forbid: after the run ended the next instant should run; got %d processes", len(ps))
			}
		})
	})
	t.Run("Replace", func(t *testing.T) {
		run(t, func(t *testing.T, b *bundle) {
			b.put(spec("j", "1m", func(s *store.JobSpec) { s.ConcurrencyPolicy = store.Replace }))
			b.advance(time.Minute)
			b.procs("j")[0].ignoreTerm = true
			b.advance(time.Minute)
			ps := b.procs("j")
			if len(ps) != 2 || ps[0].terms != 1 {
				t.Fatalf("Replace: %d processes, first terminated %d times; want 2 and 1", len(ps), ps[0].terms)
			}
			if ps[0].exited() {
				t.Fatal("the replaced run ignored SIGTERM but ended before the grace period")
			}
			b.advance(b.ctl.cfg.KillGrace)
			if ps[0].kills != 1 || !ps[0].exited() {
				t.Fatalf("Replace: SIGKILL after the grace period: kills = %d", ps[0].kills)
			}
			synctest.Wait()
			runs := b.runs("j")
			if runs[0].State != store.RunKilled || !strings.Contains(runs[0].Error, "replaced by the run for 2026-03-02T09:02:00Z") || runs[1].State != store.RunRunning {
				t.Errorf("runs = %v (%q)", states(runs), runs[0].Error)
			}
		})
	})
}

func TestSuspendAndResume(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.StartingDeadlineSeconds = ptr(int64(30)) }))
		b.advance(time.Minute)
		if err := b.ctl.Suspend(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		b.advance(10 * time.Minute)
		ps := b.procs("j")
		if len(ps) != 1 || ps[0].exited() {
			t.Fatalf("suspend: %d processes (first exited %v); want the active one untouched and no new one", len(ps), ps[0].exited())
		}
		if st, _ := b.ctl.Status(b.ctx, "j"); !st.NextScheduleTime.IsZero() {
			t.Errorf("suspended job has next schedule time %v", st.NextScheduleTime)
		}
		b.exitAll("j", 0)
		b.advance(15 * time.Second) // 09:11:15: 09:11 is 15 s late, inside the 30 s deadline
		if err := b.ctl.Resume(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want := []string{"schedule@09:01:00#1:succeeded", "catch-up@09:11:00#1:running"}
		if got := states(b.runs("j")); !reflect.DeepEqual(got, want) {
			t.Errorf("after resume runs = %v, want %v", got, want)
		}
		if ev := b.events("j", store.EventRunMissed); len(ev) != 1 || !strings.Contains(ev[0].Message, "missed 9 ") {
			t.Errorf("missed events = %+v, want one for 9 instants", ev)
		}
	})
}

func TestResumeDoesNotBackfillBeyondDeadline(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.StartingDeadlineSeconds = ptr(int64(30)); s.Suspend = true }))
		b.advance(10*time.Minute + 45*time.Second)
		if err := b.ctl.Resume(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if runs := b.runs("j"); len(runs) != 0 {
			t.Fatalf("runs = %v, want none: the latest instant is 45 s late", states(runs))
		}
		b.advance(15 * time.Second)
		if runs := b.runs("j"); len(runs) != 1 || runs[0].Reason != store.ReasonSchedule {
			t.Errorf("runs = %v, want the 09:11 run on schedule", states(b.runs("j")))
		}
	})
}

func TestRetryWithBackoff(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("flaky", "1h", func(s *store.JobSpec) { s.BackoffLimit = 2; s.FailedJobsHistoryLimit = ptr(5) }))
		b.advance(time.Hour) // 10:00
		b.exitAll("flaky", 1)
		if n := len(b.procs("flaky")); n != 1 {
			t.Fatalf("retry started at once: %d processes", n)
		}
		b.advance(9 * time.Second)
		if n := len(b.procs("flaky")); n != 1 {
			t.Fatalf("retry started before its 10 s backoff: %d processes", n)
		}
		b.advance(time.Second)
		if n := len(b.procs("flaky")); n != 2 {
			t.Fatalf("no retry after 10 s: %d processes", n)
		}
		b.exitAll("flaky", 1)
		b.advance(19 * time.Second)
		if n := len(b.procs("flaky")); n != 2 {
			t.Fatalf("second retry before its 20 s backoff: %d processes", n)
		}
		b.advance(time.Second)
		b.exitAll("flaky", 1)
		b.advance(time.Hour - 31*time.Second)
		want := []string{"schedule@10:00:00#1:failed", "retry@10:00:00#2:failed", "retry@10:00:00#3:failed"}
		if got := states(b.runs("flaky")); !reflect.DeepEqual(got, want) {
			t.Errorf("runs = %v, want %v (backoff_limit 2 = three attempts)", got, want)
		}
		ps := b.procs("flaky")
		for i, p := range ps {
			if p.run.Attempt != i+1 || !p.run.ScheduledTime.Equal(t0.Add(time.Hour)) {
				t.Errorf("attempt %d = %+v", i+1, p.run)
			}
		}
	})
}

func TestTimeoutKills(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("slow", "1h", func(s *store.JobSpec) { s.TimeoutSeconds = 30 }))
		b.advance(time.Hour)
		p := b.procs("slow")[0]
		p.ignoreTerm = true
		b.advance(29 * time.Second)
		if p.terms != 0 {
			t.Fatal("terminated before the timeout")
		}
		b.advance(time.Second)
		if p.terms != 1 || p.exited() {
			t.Fatalf("at the timeout: terms %d exited %v; want SIGTERM and a grace period", p.terms, p.exited())
		}
		b.advance(10 * time.Second)
		if p.kills != 1 {
			t.Fatalf("after the grace period: kills = %d, want 1", p.kills)
		}
		r := b.runs("slow")[0]
		if r.State != store.RunFailed || !strings.Contains(r.Error, "timed out after 30s") {
			t.Errorf("run = %s %q, want failed, timed out", r.State, r.Error)
		}
	})
}

func TestHistoryLimits(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m", func(s *store.JobSpec) { s.SuccessfulJobsHistoryLimit = ptr(2) }))
		for i := 0; i < 5; i++ {
			b.advance(time.Minute)
			code := 0
			if i == 1 || i == 2 {
				code = 1
			}
			b.exitAll("j", code)
		}
		want := []string{"schedule@09:03:00#1:failed", "schedule@09:04:00#1:succeeded", "schedule@09:05:00#1:succeeded"}
		if got := states(b.runs("j")); !reflect.DeepEqual(got, want) {
			t.Errorf("kept runs = %v, want %v", got, want)
		}
		if st, _ := b.ctl.Status(b.ctx, "j"); st.Succeeded != 3 || st.Failed != 2 {
			t.Errorf("counts survive pruning: %+v", st)
		}
	})
}

func TestCrashMidRun(t *testing.T) {
	for _, limit := range []int{0, 1} {
		t.Run(map[int]string{0: "failed", 1: "retried"}[limit], func(t *testing.T) {
			run(t, func(t *testing.T, b *bundle) {
				b.put(spec("j", "1h", func(s *store.JobSpec) { s.BackoffLimit = limit }))
				b.advance(time.Hour)
				b.crash()
				b.clk.Advance(5 * time.Minute)
				b.start()
				runs := b.runs("j")
				if runs[0].State != store.RunFailed || !strings.Contains(runs[0].Error, "interrupted") {
					t.Fatalf("interrupted run = %s %q, want failed, interrupted", runs[0].State, runs[0].Error)
				}
				b.advance(10 * time.Second)
				if got := len(b.runs("j")); got != 1+limit {
					t.Errorf("runs after recovery = %v, want %d", states(b.runs("j")), 1+limit)
				}
				if limit == 1 && len(b.procs("j")) != 1 {
					t.Errorf("retry did not start")
				}
			})
		})
	}
}

// window is a test gate open on [open, close) every day (UTC).
type window struct{ open, close time.Duration }

func (w window) Contains(t time.Time) bool {
	s := t.Sub(t.Truncate(24 * time.Hour))
	return s >= w.open && s < w.close
}

func (w window) NextOpen(t time.Time) (time.Time, bool) {
	if w.Contains(t) {
		return t, true
	}
	day := t.Truncate(24 * time.Hour)
	if t.Sub(day) < w.open {
		return day.Add(w.open), true
	}
	return day.Add(24*time.Hour + w.open), true
}

func TestScheduleGate(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.gates["mornings"] = window{10 * time.Hour, 10*time.Hour + 30*time.Minute}
		// Both fire at midnight UTC; the gate opens at 10:00.
		b.put(spec("waits", "24h", func(s *store.JobSpec) { s.Gate = "mornings"; s.StartingDeadlineSeconds = ptr(int64(12 * 3600)) }))
		b.put(spec("late", "24h", func(s *store.JobSpec) { s.Gate = "mornings"; s.StartingDeadlineSeconds = ptr(int64(3600)) }))
		b.put(spec("closed", "24h", func(s *store.JobSpec) { s.Gate = "nowhere"; s.StartingDeadlineSeconds = ptr(int64(60)) }))
		b.advance(15 * time.Hour) // midnight
		if r := b.runs("waits")[0]; r.State != store.RunPending || len(b.procs("waits")) != 0 {
			t.Fatalf("outside the gate: waits run is %s", r.State)
		}
		if r := b.runs("late")[0]; r.State != store.RunMissed || !strings.Contains(r.Error, "does not open before the starting deadline") {
			t.Errorf("late run = %s %q, want missed at once", r.State, r.Error)
		}
		b.advance(9*time.Hour + 59*time.Minute)
		if len(b.procs("waits")) != 0 {
			t.Fatal("started before the gate opened")
		}
		b.advance(time.Minute) // 10:00
		if ps := b.procs("waits"); len(ps) != 1 || !ps[0].run.ScheduledTime.Equal(t0.Add(15*time.Hour)) {
			t.Fatalf("at the gate's opening: %d runs of waits, want the midnight run", len(ps))
		}
		if r := b.runs("closed")[0]; r.State != store.RunMissed || !strings.Contains(r.Error, `"nowhere" does not exist`) {
			t.Errorf("run with an unknown gate = %s %q, want missed after its deadline", r.State, r.Error)
		}
	})
}

func TestRequire(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("dump", "1h"))
		b.put(spec("backup", "1h", func(s *store.JobSpec) { s.Requires = []string{"dump"} }))
		b.put(spec("report", "1h"))
		b.put(spec("dump2", "1h", func(s *store.JobSpec) { s.Before = []string{"report"} }))
		b.advance(time.Hour)
		if len(b.procs("backup")) != 0 || len(b.procs("report")) != 0 {
			t.Fatal("dependents started before their upstream succeeded")
		}
		b.exitAll("dump", 0)
		if len(b.procs("backup")) != 1 {
			t.Fatal("backup did not start after dump succeeded")
		}
		b.exitAll("dump2", 3)
		if r := b.runs("report")[0]; r.State != store.RunMissed || !strings.Contains(r.Error, `"dump2" did not succeed`) {
			t.Errorf("report after dump2 failed = %s %q, want missed", r.State, r.Error)
		}
	})
}

func TestOneShot(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		at := t0.Add(5 * time.Minute)
		b.put(store.JobSpec{Name: "once", At: &at, Shell: "echo hi"})
		if st, _ := b.ctl.Status(b.ctx, "once"); !st.NextScheduleTime.Equal(at) {
			t.Errorf("next = %v, want %v", st.NextScheduleTime, at)
		}
		b.advance(5 * time.Minute)
		b.exitAll("once", 0)
		b.advance(24 * time.Hour)
		if runs := b.runs("once"); len(runs) != 1 || !runs[0].ScheduledTime.Equal(at) {
			t.Errorf("runs = %v, want exactly one at %v", states(runs), at)
		}
		if st, _ := b.ctl.Status(b.ctx, "once"); !st.NextScheduleTime.IsZero() {
			t.Errorf("next after the shot = %v, want none", st.NextScheduleTime)
		}
	})
}

func TestTriggerAndKill(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "24h"))
		r, err := b.ctl.Trigger(b.ctx, "j")
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		ps := b.procs("j")
		if len(ps) != 1 || ps[0].run.ID != r.ID || ps[0].run.Reason != store.ReasonManual {
			t.Fatalf("trigger started %d processes", len(ps))
		}
		if err := b.ctl.Kill(b.ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got, _ := b.st.RunGet(b.ctx, r.ID); got.State != store.RunKilled {
			t.Errorf("killed run state = %s", got.State)
		}
		if _, err := b.ctl.Trigger(b.ctx, "nope"); err == nil {
			t.Error("Trigger of a missing job succeeded")
		}
	})
}

func TestDeleteJobKillsActiveRuns(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m"))
		b.advance(time.Minute)
		if err := b.ctl.DeleteJob(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if p := b.procs("j")[0]; p.terms != 1 {
			t.Errorf("active run of a deleted job: terms = %d, want 1", p.terms)
		}
		b.advance(time.Minute)
		if n := len(b.procs("j")); n != 1 {
			t.Errorf("deleted job still runs: %d processes", n)
		}
	})
}

func TestShutdownKillsAfterGrace(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("j", "1m"))
		b.advance(time.Minute)
		p := b.procs("j")[0]
		b.cancel()
		synctest.Wait()
		if p.terms != 0 {
			t.Fatal("shutdown killed at once instead of waiting for the grace period")
		}
		b.advance(b.ctl.cfg.ShutdownGrace)
		if err := <-b.done; err != nil {
			t.Fatal(err)
		}
		b.cancel = nil
		if r := b.runs("j")[0]; r.State != store.RunKilled || !strings.Contains(r.Error, "shut down") {
			t.Errorf("run after shutdown = %s %q", r.State, r.Error)
		}
	})
}

// A manual job has no schedule: nothing fires however long the clock runs,
// and a trigger runs it, suspended or not (a Kubernetes CronJob kept only
// for `kubectl create job --from`).
func TestManualJob(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(store.JobSpec{Name: "by-hand", Manual: true, Suspend: true, Shell: "echo hi"})
		if st, _ := b.ctl.Status(b.ctx, "by-hand"); !st.NextScheduleTime.IsZero() {
			t.Errorf("next = %v, want none", st.NextScheduleTime)
		}
		b.advance(400 * 24 * time.Hour)
		if runs := b.runs("by-hand"); len(runs) != 0 {
			t.Fatalf("runs without a trigger: %v", states(runs))
		}
		r, err := b.ctl.Trigger(b.ctx, "by-hand")
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if ps := b.procs("by-hand"); len(ps) != 1 || ps[0].run.ID != r.ID {
			t.Fatalf("the trigger started %d processes", len(ps))
		}
	})
}
