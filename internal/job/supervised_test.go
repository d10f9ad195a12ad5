package job

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// TestMain lets the test binary be the supervisor of the runs the tests
// start with Supervised, as the almanac binary is in production.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisor.Mode {
		os.Exit(supervisor.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// waitFor polls cond in real time: the runs are real processes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveController runs a controller on dir's SQLite store with ex until the
// test ends or stop is called.
func liveController(t *testing.T, dir string, clk clock.Clock, ex Executor) (ctl *Controller, st *sqlitestore.Store, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := sqlitestore.Open(ctx, dir, sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	ctl, err = NewController(Config{Store: st, Clock: clk, Parse: parseEvery, Executor: ex, ShutdownGrace: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		st.Close()
	}
	t.Cleanup(stop)
	return ctl, st, stop
}

// TestSupervisedRunLostAfterReboot: runs started under one boot id and
// found by a daemon under another are recorded lost, not failed, and
// retried per backoff_limit; their commands are not waited for. That holds
// also for a run whose directory the power loss took.
func TestSupervisedRunLostAfterReboot(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	clk := clock.NewFake(t0)
	boot := "boot-1"
	ex := &Supervised{Binary: os.Args[0], Dir: runs, BootID: func() (string, error) { return boot, nil }}
	ctl, st, stop := liveController(t, dir, clk, ex)
	ctx := context.Background()
	if _, _, err := ctl.PutJob(ctx, spec("j", "24h", func(s *store.JobSpec) {
		s.Command, s.BackoffLimit, s.FailedJobsHistoryLimit = []string{"sleep", "300"}, 1, ptr(10)
	}), store.SourceAPI); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "2"} {
		clk.Advance(time.Second) // a manual run's instant is its trigger time
		if _, err := ctl.Trigger(ctx, "j"); err != nil {
			t.Fatal(err)
		}
		var pids supervisor.Pids
		waitFor(t, "run "+id+"'s supervisor records its ids", func() bool {
			b, err := os.ReadFile(filepath.Join(runs, id, "pid.json"))
			return err == nil && json.Unmarshal(b, &pids) == nil
		})
		t.Cleanup(func() {
			syscall.Kill(-pids.PGID, syscall.SIGKILL)
			syscall.Kill(pids.Supervisor, syscall.SIGKILL)
		})
	}
	waitFor(t, "both runs are running", func() bool {
		got, _, err := st.RunList(ctx, store.RunListParams{Job: "j", States: []store.RunState{store.RunRunning}})
		return err == nil && len(got) == 2
	})
	stop() // leaves the supervised runs to their supervisors

	boot = "boot-2"                                                // the machine rebooted...
	if err := os.RemoveAll(filepath.Join(runs, "2")); err != nil { // ...and lost run 2's directory
		t.Fatal(err)
	}
	_, st2, _ := liveController(t, dir, clk, ex)
	var got []store.Run
	defer func() {
		if t.Failed() {
			t.Logf("runs: %v", states(got))
			for _, r := range got {
				t.Logf("run %d: %s %q", r.ID, r.State, r.Error)
			}
		}
	}()
	waitFor(t, "the runs are recorded lost and retried", func() bool {
		var err error
		got, _, err = st2.RunList(ctx, store.RunListParams{Job: "j", Page: store.Page{Limit: 10}})
		return err == nil && len(got) == 4
	})
	for _, r := range got {
		switch r.Attempt {
		case 1:
			if r.State != store.RunLost || !strings.Contains(r.Error, "rebooted") {
				t.Errorf("run %d = %s (%q), want lost, saying the machine rebooted", r.ID, r.State, r.Error)
			}
		case 2:
			if r.State != store.RunPending || r.Reason != store.ReasonRetry {
				t.Errorf("run %d = %s %s, want a pending retry", r.ID, r.State, r.Reason)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(runs, "1")); !os.IsNotExist(err) {
		t.Errorf("the lost run's directory is still there (%v)", err)
	}
}

// TestSupervisedRunRecordsRealEnd: a supervised run's outcome carries the
// command's exit status, output and end time through the controller.
func TestSupervisedRunRecordsRealEnd(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewFake(t0)
	ex := &Supervised{Binary: os.Args[0], Dir: filepath.Join(dir, "runs"), MaxOutput: 64}
	ctl, st, _ := liveController(t, dir, clk, ex)
	ctx := context.Background()
	if _, _, err := ctl.PutJob(ctx, spec("j", "24h", func(s *store.JobSpec) {
		s.Shell = `echo "$ALMANAC_JOB $GREETING"; seq 1 100; exit 7`
		s.Command = nil
		s.Env = map[string]string{"GREETING": "hello"}
	}), store.SourceAPI); err != nil {
		t.Fatal(err)
	}
	r, err := ctl.Trigger(ctx, "j")
	if err != nil {
		t.Fatal(err)
	}
	var got store.Run
	waitFor(t, "the run ends", func() bool {
		got, err = st.RunGet(ctx, r.ID)
		return err == nil && got.State.Terminal()
	})
	if got.State != store.RunFailed || got.ExitCode == nil || *got.ExitCode != 7 {
		t.Fatalf("run = %s exit %v, want failed with exit 7", got.State, got.ExitCode)
	}
	runs, _, _ := st.RunList(ctx, store.RunListParams{Job: "j", WithOutput: true, Page: store.Page{Limit: 1}})
	out := string(runs[0].Output)
	if !strings.HasPrefix(out, "[almanac: ") || !strings.HasSuffix(out, "\n98\n99\n100\n") {
		t.Errorf("output = %q, want the 64-byte tail after a note", out)
	}
	// The end is the supervisor's wall clock, not the test's fake one.
	if got.FinishedAt.Equal(t0) || time.Since(got.FinishedAt) > time.Minute {
		t.Errorf("finished at %v, want the command's real end", got.FinishedAt)
	}
}

// TestRunLostWhenNodeStaysAway: another node's running run is left alone
// while its node may come back to it, and recorded lost and retried once
// the node has been silent for LostAfter.
func TestRunLostWhenNodeStaysAway(t *testing.T) {
	runWith(t, func(c *Config) {
		c.LostAfter, c.HeartbeatInterval = 2*time.Minute, 10*time.Second
		c.Alive, c.AliveInterval = func() {}, 10*time.Second // the loop turns, as under the daemon
	}, func(t *testing.T, b *bundle) {
		b.put(spec("j", "24h", func(s *store.JobSpec) { s.BackoffLimit = 1 }))
		r, err := b.st.RunInsert(b.ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: t0, Attempt: 1,
			Reason: store.ReasonManual, ReadyAt: t0}, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		if claimed, err := b.st.RunClaim(b.ctx, store.RunClaimParams{Node: "n2", Now: t0, Limit: 1}); err != nil || len(claimed) != 1 || claimed[0].ID != r.ID {
			t.Fatalf("claim by n2: %v, %v", claimed, err)
		}
		b.advance(time.Minute) // 6 heartbeats missed: n2 may still come back
		if got := states(b.runs("j")); len(got) != 1 || !strings.HasSuffix(got[0], ":running") {
			t.Fatalf("after 1 min: %v, want the run still running", got)
		}
		b.advance(70 * time.Second)
		got := b.runs("j")
		if len(got) != 2 || got[0].State != store.RunLost || !strings.Contains(got[0].Error, "node n2 stopped heart-beating") ||
			got[1].Attempt != 2 || got[1].State.Terminal() {
			t.Fatalf("after 2 min 10 s: %v (%q), want lost and a retry", states(got), got[0].Error)
		}
		if ev := b.events("j", store.EventRunLost); len(ev) != 1 {
			t.Errorf("run.lost events = %d, want 1", len(ev))
		}
	})
}

// BenchmarkStartToEnd measures a run of `true` from Start to its recorded
// end, through each executor: what the supervisor adds to every run.
func BenchmarkStartToEnd(b *testing.B) {
	ctx := context.Background()
	spec := store.JobSpec{Command: []string{"true"}}
	for _, ex := range []struct {
		name string
		ex   Executor
	}{
		{"exec", &Exec{}},
		{"supervised", &Supervised{Binary: os.Args[0], Dir: b.TempDir()}},
	} {
		b.Run(ex.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				p, err := ex.ex.Start(ctx, store.Run{ID: int64(i + 1), Job: "j"}, spec)
				if err != nil {
					b.Fatal(err)
				}
				<-p.Done()
				if res := p.Result(); res.ExitCode == nil || *res.ExitCode != 0 {
					b.Fatalf("result %+v", res)
				}
				if d, ok := p.(durable); ok {
					d.Release()
				}
			}
		})
	}
}
