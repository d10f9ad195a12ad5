package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// A run's command runs under a supervisor that outlives the daemon
// (docs/jobs.md, "Runs that survive the daemon"). These tests kill `serve`
// with SIGKILL during runs of real commands and check what the restarted
// daemon records: the real outcome and duration, the command executed once,
// its output complete; and that kill, timeout and Replace still reach a
// run attached to again.

// durableJob puts job name with a shell command through the API.
func durableJob(t *testing.T, c *apiclient.Client, name, shell string, edit func(*apitype.JobSpec)) {
	t.Helper()
	keep := 100
	spec := apitype.JobSpec{Cron: "0 0 1 1 *", Command: apitype.Command{Shell: shell},
		SuccessfulJobsHistoryLimit: &keep, FailedJobsHistoryLimit: &keep}
	if edit != nil {
		edit(&spec)
	}
	if _, _, err := c.JobPut(context.Background(), name, spec); err != nil {
		t.Fatal(err)
	}
}

// kill9 kills the daemon with SIGKILL and waits for it to be gone.
func (d *daemonProc) kill9(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.done
}

// waitFile waits until file holds want.
func waitFile(t *testing.T, file, want string) {
	t.Helper()
	eventually(t, file+" holds "+strconv.Quote(want), 30*time.Second, func() (bool, error) {
		b, _ := os.ReadFile(file)
		return string(b) == want, nil
	})
}

// finishedRun waits for run id to finish and returns it.
func finishedRun(t *testing.T, c *apiclient.Client, id int64) apitype.Run {
	t.Helper()
	var run apitype.Run
	eventually(t, "run "+strconv.FormatInt(id, 10)+" finishes", 60*time.Second, func() (bool, error) {
		var err error
		run, err = c.RunGet(context.Background(), id)
		return err == nil && run.Finished(), err
	})
	return run
}

func client(t *testing.T, d *daemonProc) *apiclient.Client {
	t.Helper()
	c := d.client(t)
	return c
}

// TestDurableRunSurvivesKill9: serve is killed with SIGKILL 1.5 s into a
// 5 s run and restarted at once; the run is recorded succeeded with its
// real duration, its command ran once and its output is complete.
func TestDurableRunSurvivesKill9(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	data := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	d := startDaemon(t, bin, data)
	durableJob(t, client(t, d), "slow", "echo start >> "+marker+"; echo one; sleep 5; echo end >> "+marker+"; echo two", nil)
	id := triggerRun(t, d, bin, "slow")
	waitFile(t, marker, "start\n")
	time.Sleep(1500 * time.Millisecond) // the moment of the kill is the test's subject
	d.kill9(t)

	d2 := startDaemon(t, bin, data)
	c2 := client(t, d2)
	run := finishedRun(t, c2, id)
	if run.State != apitype.RunSucceeded || run.ExitCode == nil || *run.ExitCode != 0 {
		t.Fatalf("run = %+v, want succeeded with exit 0", run)
	}
	if took := run.FinishedAt.Sub(*run.StartedAt); took < 5*time.Second || took > 8*time.Second {
		t.Errorf("run took %v, want its real 5 s and a bit", took)
	}
	if b, _ := os.ReadFile(marker); string(b) != "start\nend\n" {
		t.Errorf("marker %q: the command did not run exactly once", b)
	}
	if got := d2.cli(t, bin, "logs", strconv.FormatInt(id, 10)); got != "one\ntwo\n" {
		t.Errorf("logs = %q, want both lines", got)
	}
	page, err := c2.RunList(context.Background(), apiclient.RunFilter{Job: "slow"})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("runs of slow = %+v (%v), want the one", page.Items, err)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "runs", "*", "[0-9]*")); len(left) != 0 {
		t.Errorf("run directories left after the outcome was recorded: %v", left)
	}
}

// TestDurableRunEndsWhileDown: the command ends, exit 3, while no daemon
// runs; the next daemon records failed, exit 3, and the end time the
// supervisor saw, not its own start.
func TestDurableRunEndsWhileDown(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	data := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	d := startDaemon(t, bin, data)
	durableJob(t, client(t, d), "short", "echo start >> "+marker+"; sleep 1; echo end >> "+marker+"; exit 3", nil)
	id := triggerRun(t, d, bin, "short")
	waitFile(t, marker, "start\n")
	d.kill9(t)
	waitFile(t, marker, "start\nend\n")
	time.Sleep(time.Second) // let the downtime outlast the command clearly
	restarted := time.Now()

	d2 := startDaemon(t, bin, data)
	run := finishedRun(t, client(t, d2), id)
	if run.State != apitype.RunFailed || run.ExitCode == nil || *run.ExitCode != 3 {
		t.Fatalf("run = %+v, want failed with exit 3", run)
	}
	if !run.FinishedAt.Before(restarted) {
		t.Errorf("finished at %v, after the restart at %v: not the command's real end", run.FinishedAt, restarted)
	}
	if took := run.FinishedAt.Sub(*run.StartedAt); took < time.Second || took > 3*time.Second {
		t.Errorf("run took %v, want its real 1 s and a bit", took)
	}
	if b, _ := os.ReadFile(marker); string(b) != "start\nend\n" {
		t.Errorf("marker %q: the command did not run exactly once", b)
	}
}

// TestDurableRunControlAfterReattach: after a restart, `almanac kill`, the
// timeout (counted from the run's start) and Replace reach runs the new
// daemon attached to, and `logs -f` follows their output.
func TestDurableRunControlAfterReattach(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	data := t.TempDir()
	tmp := t.TempDir()
	d := startDaemon(t, bin, data)
	c := client(t, d)
	loop := func(name string) string {
		return "echo $$ > " + filepath.Join(tmp, name) + ".tmp; mv " + filepath.Join(tmp, name) + ".tmp " + filepath.Join(tmp, name) +
			"; while :; do echo tick; sleep 0.2; done"
	}
	durableJob(t, c, "killme", loop("killme"), nil)
	durableJob(t, c, "timesout", loop("timesout"), func(s *apitype.JobSpec) { s.Timeout = apitype.Duration(6 * time.Second) })
	durableJob(t, c, "replaced", loop("replaced"), func(s *apitype.JobSpec) { s.ConcurrencyPolicy = apitype.ConcurrencyReplace })
	ids := map[string]int64{}
	pids := map[string]int{}
	for _, name := range []string{"killme", "timesout", "replaced"} {
		ids[name] = triggerRun(t, d, bin, name)
	}
	for name := range ids {
		eventually(t, name+" wrote its pid", 30*time.Second, func() (bool, error) {
			b, err := os.ReadFile(filepath.Join(tmp, name))
			pids[name], _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pids[name] > 0, nil
		})
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			if processAlive(pid) {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	d.kill9(t)
	for name, pid := range pids {
		if !processAlive(pid) {
			t.Fatalf("%s's command ended with the daemon", name)
		}
	}

	d2 := startDaemon(t, bin, data)
	c2 := client(t, d2)
	ctx := context.Background()
	// Live output of an attached run: its ticks so far, then new ones.
	var next int64
	eventually(t, "output of the attached run", 30*time.Second, func() (bool, error) {
		out, n, _, err := c2.RunLogFrom(ctx, ids["killme"], 0)
		next = n
		return err == nil && strings.HasPrefix(string(out), "tick\n"), err
	})
	eventually(t, "more output of the attached run", 30*time.Second, func() (bool, error) {
		more, _, _, err := c2.RunLogFrom(ctx, ids["killme"], next)
		return err == nil && strings.Contains(string(more), "tick"), err
	})

	d2.cli(t, bin, "kill", strconv.FormatInt(ids["killme"], 10))
	if run := finishedRun(t, c2, ids["killme"]); run.State != apitype.RunKilled {
		t.Errorf("killed run = %+v, want killed", run)
	}
	// Replace applies to scheduled runs: the next second's replaces the
	// attached run.
	replace := func(s *apitype.JobSpec) { s.ConcurrencyPolicy = apitype.ConcurrencyReplace; s.Cron = "* * * * * *" }
	durableJob(t, c2, "replaced", loop("replaced"), replace)
	if run := finishedRun(t, c2, ids["replaced"]); run.State != apitype.RunKilled || !strings.Contains(run.Error, "replaced") {
		t.Errorf("replaced run = %+v, want killed, replaced", run)
	}
	if err := c2.JobDelete(ctx, "replaced"); err != nil {
		t.Fatal(err)
	}
	run := finishedRun(t, c2, ids["timesout"])
	if run.State != apitype.RunFailed || !strings.Contains(run.Error, "timed out") {
		t.Errorf("timed-out run = %+v, want failed, timed out", run)
	}
	if took := run.FinishedAt.Sub(*run.StartedAt); took < 6*time.Second || took > 10*time.Second {
		t.Errorf("timed-out run took %v, want its 6 s timeout counted from its start", took)
	}
	for name, pid := range pids {
		eventually(t, name+"'s command is gone", 30*time.Second, func() (bool, error) { return !processAlive(pid), nil })
	}
}

// TestDurableRunsUnderRepeatedKills kills serve with SIGKILL during each of
// several runs of a job that sleeps, and restarts it each time: every run
// completes once, recorded succeeded with its real duration.
// ALMANAC_SLOW=1 makes it 20 kills during 10 s runs (docs/performance.md).
func TestDurableRunsUnderRepeatedKills(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	kills, secs := 3, 3
	if os.Getenv("ALMANAC_SLOW") != "" {
		kills, secs = 20, 10
	}
	data := t.TempDir()
	marks := t.TempDir()
	d := startDaemon(t, bin, data)
	durableJob(t, client(t, d), "sleeper",
		`echo start >> `+marks+`/$ALMANAC_RUN_ID; sleep `+strconv.Itoa(secs)+`; echo end >> `+marks+`/$ALMANAC_RUN_ID`, nil)
	var ids []int64
	var downtime time.Duration
	for i := 0; i < kills; i++ {
		id := triggerRun(t, d, bin, "sleeper")
		ids = append(ids, id)
		waitFile(t, filepath.Join(marks, strconv.FormatInt(id, 10)), "start\n")
		// Kill at a different moment of each run.
		time.Sleep(time.Duration(i%secs)*time.Second + 300*time.Millisecond)
		d.kill9(t)
		down := time.Now()
		d = startDaemon(t, bin, data)
		downtime += time.Since(down)
	}
	c := client(t, d)
	var longest time.Duration
	for _, id := range ids {
		run := finishedRun(t, c, id)
		took := run.FinishedAt.Sub(*run.StartedAt)
		if run.State != apitype.RunSucceeded || took < time.Duration(secs)*time.Second || took > time.Duration(secs)*time.Second+2*time.Second {
			t.Errorf("run %d = %s after %v, want succeeded after %d s", id, run.State, took, secs)
		}
		longest = max(longest, took)
		if b, _ := os.ReadFile(filepath.Join(marks, strconv.FormatInt(id, 10))); string(b) != "start\nend\n" {
			t.Errorf("run %d: marker %q, want its command executed once", id, b)
		}
	}
	page, err := c.RunList(context.Background(), apiclient.RunFilter{Job: "sleeper", Limit: 1000})
	if err != nil || len(page.Items) != kills {
		t.Fatalf("%d runs recorded (%v), want %d", len(page.Items), err, kills)
	}
	t.Logf("durable runs: %d kills -9 during %d s runs: %d runs, each executed once, all succeeded; longest recorded duration %v; mean restart-to-serving %v",
		kills, secs, len(ids), longest.Round(time.Millisecond), (downtime / time.Duration(kills)).Round(time.Millisecond))
}
