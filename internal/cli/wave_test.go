package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// waveDaemon serves the real API over the embedded store with the real
// controller's wave logic, and returns the store (to insert the runs
// fan-out would) and the --server flag.
func waveDaemon(t *testing.T) (*sqlitestore.Store, string) {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(cliT0)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	real, err := job.NewController(job.Config{Store: st, Clock: clk, Parse: job.ParseCron})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: cliT0, Waves: real}, Clock: clk}))
	t.Cleanup(ts.Close)
	return st, "--server=" + ts.URL
}

// TestWaveCommands: wave status shows a fanned-out instant's nodes with a
// summary line (and JSON), get runs --node lists one node's runs with a
// NODE column, and pause, resume and abort act and say what they did.
func TestWaveCommands(t *testing.T) {
	t.Parallel()
	st, server := waveDaemon(t)
	ctx := context.Background()
	out, errOut, code := runCLI(t, "run", "patch", "--schedule", "0 * * * *", "--nodes", "role=db", "--max-parallel", "2", "--max-failures", "1", server, "--", "apt-get upgrade -y")
	if code != 0 {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	older, latest := cliT0.Add(-time.Hour), cliT0
	insert := func(r store.Run) store.Run {
		t.Helper()
		r.Job, r.Reason = "patch", store.ReasonSchedule
		if r.Attempt == 0 {
			r.Attempt = 1
		}
		out, err := st.RunInsert(ctx, store.RunInsertParams{Run: r, Now: cliT0})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	exit1 := 1
	insert(store.Run{ScheduledTime: older, Target: "db-1", Node: "db-1", State: store.RunSucceeded, StartedAt: older, FinishedAt: older.Add(time.Minute)})
	insert(store.Run{ScheduledTime: latest, Target: "db-1", Node: "db-1", State: store.RunSucceeded, StartedAt: latest, FinishedAt: latest.Add(time.Minute)})
	insert(store.Run{ScheduledTime: latest, Target: "db-2", Node: "db-2", State: store.RunFailed, ExitCode: &exit1,
		Error: "exit status 1\x1b[2J", StartedAt: latest, FinishedAt: latest.Add(time.Minute)})
	held := insert(store.Run{ScheduledTime: latest, Target: "db-3", State: store.RunPending})

	out, errOut, code = runCLI(t, "wave", "status", "patch", server)
	header := "wave of patch at " + fmtTime(&latest) + ": stopped; 3 nodes, 1 done, 0 running, 1 waiting, 1 failed, 0 missed, 0 skipped; max_parallel 2, max_failures 1\n"
	if code != 0 || !strings.HasPrefix(out, header) ||
		!regexp.MustCompile(`(?m)^NODE\s+STATE\s+RUN\s+ATTEMPT\s+ERROR\n`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^db-1\s+done\s+\d+\s+1\s+-$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^db-3\s+waiting\s+`+itoa(held.ID)+`\s+1\s+-$`).MatchString(out) {
		t.Fatalf("wave status: %d %q\n%s", code, errOut, out)
	}
	if !strings.Contains(out, `exit status 1\x1b[2J`) || strings.ContainsRune(out, 0x1b) {
		t.Errorf("the error column is not escaped:\n%q", out)
	}
	out, _, code = runCLI(t, "wave", "status", "patch", "--instant", older.Format(time.RFC3339), "-o", "json", server)
	var w apitype.Wave
	if code != 0 || json.Unmarshal([]byte(out), &w) != nil || w.State != "done" || !w.Instant.Equal(older) || w.Counts.Total != 1 || w.Nodes[0].Node != "db-1" {
		t.Fatalf("wave status --instant -o json: %d %s", code, out)
	}
	_, errOut, code = runCLI(t, "wave", "status", "patch", "--instant", cliT0.Add(time.Hour).Format(time.RFC3339), server)
	if code != exitFailure || !strings.Contains(errOut, `job "patch" has no wave at`) {
		t.Errorf("wave status of an instant without one: %d %q", code, errOut)
	}

	out, _, code = runCLI(t, "get", "runs", "--node", "db-3", server)
	if code != 0 || !regexp.MustCompile(`(?m)^ID\s+JOB\s+NODE\s+STATE`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^`+itoa(held.ID)+`\s+patch\s+db-3\s+pending\s`).MatchString(out) || strings.Count(out, "\n") != 2 {
		t.Fatalf("get runs --node db-3:\n%s", out)
	}
	out, _, code = runCLI(t, "get", "runs", "--node", "db-1", "-o", "json", server)
	var runs apitype.Page[apitype.Run]
	if code != 0 || json.Unmarshal([]byte(out), &runs) != nil || len(runs.Items) != 2 || runs.Items[0].Target != "db-1" {
		t.Fatalf("get runs --node db-1 -o json: %d %s", code, out)
	}

	out, _, code = runCLI(t, "wave", "pause", "patch", server)
	if code != 0 || out != "waves of job patch paused: waiting runs are held, runs already started go on\n" {
		t.Fatalf("wave pause: %d %q", code, out)
	}
	if out, _, _ = runCLI(t, "describe", "job", "patch", server); !regexp.MustCompile(`(?m)^Wave paused:\s+true \(waiting runs are held: almanac wave resume patch\)$`).MatchString(out) {
		t.Errorf("describe does not show the pause:\n%s", out)
	}
	out, _, code = runCLI(t, "wave", "abort", "patch", server)
	if code != 0 || out != "waves of job patch aborted: 1 waiting run skipped; runs already started go on\n" {
		t.Fatalf("wave abort: %d %q", code, out)
	}
	if r, err := st.RunGet(ctx, held.ID); err != nil || r.State != store.RunMissed {
		t.Errorf("the waiting run after abort: %+v, %v", r, err)
	}
	out, _, code = runCLI(t, "wave", "resume", "patch", server)
	if code != 0 || out != "waves of job patch resumed\n" {
		t.Fatalf("wave resume: %d %q", code, out)
	}
	if out, _, _ = runCLI(t, "describe", "job", "patch", server); strings.Contains(out, "Wave paused") {
		t.Errorf("describe still shows a pause:\n%s", out)
	}
}

// TestWaveUsage: the wave command's mistakes are one-line usage errors,
// and a job without a wave or unknown is a failure naming it.
func TestWaveUsage(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	st.PutJob(store.Job{Spec: store.JobSpec{Name: "solo", Cron: "* * * * *", Shell: "true"}, Version: 1})
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"wave"}, exitUsage, "wave: usage: almanac wave status JOB"},
		{[]string{"wave", "status"}, exitUsage, "wave: usage:"},
		{[]string{"wave", "stop", "solo"}, exitUsage, `wave: unknown action "stop" (want status, pause, resume or abort)`},
		{[]string{"wave", "status", "a/b"}, exitUsage, `wave status: "a/b" is not a job name`},
		{[]string{"wave", "status", "solo", "--instant", "noon"}, exitUsage, `--instant "noon" is not an RFC 3339 time`},
		{[]string{"wave", "pause", "solo", "--instant", "2030-01-01T00:00:00Z"}, exitUsage, "--instant applies to status"},
		{[]string{"wave", "status", "solo", "-o", "yaml"}, exitUsage, `-o "yaml"`},
		{[]string{"wave", "status", "solo"}, exitFailure, `job "solo" has no wave: no instant of it has fanned out to nodes (its nodes selector is any`},
		{[]string{"wave", "status", "nope"}, exitFailure, `job "nope" not found`},
		{[]string{"wave", "pause", "solo"}, exitFailure, `job "solo" does not fan out`},
		{[]string{"wave", "abort", "nope"}, exitFailure, `job "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, append(tt.args, server)...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("%v: %d %q %q, want %d and %q", tt.args, code, out, errOut, tt.code, tt.msg)
			}
		})
	}
}

// TestRunWaveFlags: almanac run's wave flags reach the stored spec,
// describe shows them, and the daemon's refusals name the flag typed.
func TestRunWaveFlags(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	out, errOut, code := runCLI(t, "run", "patch", "--schedule", "0 3 * * *", "--nodes", "role=db", "--max-parallel", "25%", "--max-failures", "2",
		"--wave-order", "random", "--window", "zone in (eu,us)=db-weekend", "--window", " default = anytime", "--reboot-group", "db",
		"--catch-up", "all", server, "--", "true")
	if code != 0 {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	j, _ := st.Job("patch")
	if s := j.Spec; s.MaxParallel != "25%" || s.MaxFailures != 2 || s.WaveOrder != "random" || len(s.Window) != 2 ||
		s.Window["zone in (eu,us)"] != "db-weekend" || s.Window["default"] != "anytime" || s.RebootGroup != "db" || s.CatchUp != "all" {
		t.Fatalf("stored spec %+v", s)
	}
	out, _, _ = runCLI(t, "describe", "job", "patch", server)
	for _, re := range []string{`(?m)^Window:\s+zone in \(eu,us\): db-weekend; default: anytime$`, `(?m)^Max parallel:\s+25%$`,
		`(?m)^Max failures:\s+2$`, `(?m)^Wave order:\s+random$`, `(?m)^Reboot group:\s+db$`, `(?m)^Catch-up:\s+all$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("describe does not match %s:\n%s", re, out)
		}
	}
	if out, _, _ = runCLI(t, "describe", "job", "patch", "-o", "json", server); !strings.Contains(out, `"max_parallel": "25%"`) {
		t.Errorf("describe -o json lacks max_parallel:\n%s", out)
	}

	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--nodes", "all", "--max-parallel", "0"}, `run bad: --max-parallel "0": want a positive count or a percentage such as 25%, got "0"`},
		{[]string{"--nodes", "all", "--max-failures", "-1"}, `run bad: --max-failures: must be between 0 (never stop) and 1048576, not -1`},
		{[]string{"--nodes", "all", "--wave-order", "abc"}, `run bad: --wave-order "abc": "abc" is not one of name, random`},
		{[]string{"--catch-up", "some"}, `run bad: --catch-up "some": "some" is not one of latest, all, none`},
		{[]string{"--nodes", "all", "--window", "all=w"}, `run bad: --window "all=w": "all" would be every node`},
		{[]string{"--nodes", "all", "--window", "role=db zone=eu=w"}, `run bad: --window "role=db zone=eu=w": col 9: want ',' between terms`},
		{[]string{"--max-parallel", "2"}, `run bad: --max-parallel "2": applies only to a job that fans out`},
		{[]string{"--nodes", "all", "--reboot-group", "db/eu"}, `run bad: --reboot-group: "db/eu" is not a reboot group name`},
		{[]string{"--nodes", "all", "--window", "default"}, `run: --window "default": want SELECTOR=NAME`},
		{[]string{"--nodes", "all", "--window", "=w"}, `run: --window "=w": want SELECTOR=NAME`},
		{[]string{"--nodes", "all", "--window", "role=db=a", "--window", "role=db =b"}, `run: --window "role=db =b": role=db is given a window twice`},
	} {
		args := append(append([]string{"run", "bad", "--schedule", "0 3 * * *"}, tt.args...), server, "--", "true")
		_, errOut, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: %d %q, want %q", tt.args, code, errOut, tt.msg)
		}
	}
	if _, ok := st.Job("bad"); ok {
		t.Error("a refused job was stored")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
