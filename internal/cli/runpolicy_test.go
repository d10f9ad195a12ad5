package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestRunPolicies: `almanac run` sets a job's gate, starting deadline,
// concurrency policy, retries, timeout and history limits; flags left out
// keep the daemon's defaults; bad values are usage errors naming the flag.
func TestRunPolicies(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	out, errOut, code := runCLI(t, "run", "backup", "--schedule", "0 3 * * *", "--deadline", "10m", "--concurrency", "forbid",
		"--retries", "2", "--timeout", "30m", "--keep-succeeded", "5", "--keep-failed", "0", server, "--", "backup.sh")
	if code != 0 {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	j, _ := st.Job("backup")
	s := j.Spec
	if s.StartingDeadlineSeconds == nil || *s.StartingDeadlineSeconds != 600 || s.ConcurrencyPolicy != store.Forbid || s.BackoffLimit != 2 ||
		s.TimeoutSeconds != int64((30*time.Minute)/time.Second) || s.SuccessfulJobsHistoryLimit == nil || *s.SuccessfulJobsHistoryLimit != 5 ||
		s.FailedJobsHistoryLimit == nil || *s.FailedJobsHistoryLimit != 0 {
		t.Errorf("stored spec %+v", s)
	}
	if _, _, code = runCLI(t, "run", "plain", "--schedule", "0 3 * * *", server, "--", "true"); code != 0 {
		t.Fatal("run without policies failed")
	}
	if j, _ := st.Job("plain"); j.Spec.StartingDeadlineSeconds != nil || j.Spec.SuccessfulJobsHistoryLimit != nil || j.Spec.Gate != "" {
		t.Errorf("flags left out changed the defaults: %+v", j.Spec)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--deadline", "-1s"}, "--deadline -1s: want a whole number of seconds"},
		{[]string{"--deadline", "1500ms"}, "--deadline 1.5s"},
		{[]string{"--concurrency", "sometimes"}, `--concurrency "sometimes": want allow, forbid or replace`},
		{[]string{"--retries", "-1"}, "--retries -1: want 0 or more"},
		{[]string{"--timeout", "-5s"}, "--timeout -5s: want a positive duration"},
		{[]string{"--keep-failed", "-2"}, "--keep-failed -2: want 0 or more"},
	} {
		args := append(append([]string{"run", "bad", "--schedule", "0 3 * * *"}, tt.args...), server, "--", "true")
		_, errOut, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: %d %q, want one line with %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestWaveHeaderWords: wave status calls a node whose run was missed
// "missed" and keeps "skipped" for the runs an aborted or stopped wave
// never started, as the web UI's matrix and the runs themselves do.
func TestWaveHeaderWords(t *testing.T) {
	w := apitype.Wave{Job: "patch", State: apitype.WaveDone, Counts: apitype.WaveCounts{Total: 3, Done: 1, Skipped: 2},
		Nodes: []apitype.WaveNode{
			{Node: "db-1", State: apitype.WaveNodeDone},
			{Node: "db-2", State: apitype.WaveNodeSkipped, Error: "node db-2 did not return within the starting deadline"},
			{Node: "db-3", State: apitype.WaveNodeSkipped, Error: "skipped: wave aborted"},
		}}
	if h := waveHeader(w); !strings.Contains(h, "1 done, 0 running, 0 waiting, 0 failed, 1 missed, 1 skipped") {
		t.Errorf("header %q", h)
	}
	if got := nodeState(w.Nodes[1]) + " " + nodeState(w.Nodes[2]); got != "missed skipped" {
		t.Errorf("node states %q, want missed then skipped", got)
	}
}

// TestWaveStatusWaiting: wave status's last column says why a waiting
// node waits (kind, detail, until), keeps a failed node's error, and is
// "-" for a node with nothing to say.
func TestWaveStatusWaiting(t *testing.T) {
	until := time.Date(2030, 6, 1, 4, 0, 0, 0, time.UTC)
	w := apitype.Wave{Job: "patch", State: apitype.WaveRunning, Counts: apitype.WaveCounts{Total: 4, Done: 1, Waiting: 2, Failed: 1},
		Nodes: []apitype.WaveNode{
			{Node: "db-1", State: apitype.WaveNodeDone, RunID: 1, Attempt: 1},
			{Node: "db-2", State: apitype.WaveNodeWaiting, RunID: 2, Attempt: 1,
				Waiting: &apitype.Waiting{Kind: "window", Detail: `window "night" of node db-2 is closed`, Until: &until}},
			{Node: "db-3", State: apitype.WaveNodeWaiting, RunID: 3, Attempt: 1, Waiting: &apitype.Waiting{Kind: "node-down", Detail: "node db-3 is down"}},
			{Node: "db-4", State: apitype.WaveNodeFailed, RunID: 4, Attempt: 1, Error: "exit status 1"},
		}}
	var out bytes.Buffer
	if err := printWave(&env{stdout: &out}, w); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, want := range []string{
		"-",
		`window: window "night" of node db-2 is closed (until 2030-06-01T04:00:00Z)`,
		"node-down: node db-3 is down",
		"exit status 1",
	} {
		if line := lines[2+i]; !strings.HasSuffix(line, "  "+want) {
			t.Errorf("row %d = %q, want it to end in %q", i, line, want)
		}
	}
}

// TestDescribeActiveIDs: describe job counts the active runs and marks
// their ids as ids, so run 81 does not read as 81 runs.
func TestDescribeActiveIDs(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	if _, _, code := runCLI(t, "run", "backup", "--schedule", "0 3 * * *", server, "--", "true"); code != 0 {
		t.Fatal("run failed")
	}
	out, _, _ := runCLI(t, "describe", "job", "backup", server)
	if !regexp.MustCompile(`(?m)^  Active runs:\s+0$`).MatchString(out) {
		t.Errorf("describe without active runs:\n%s", out)
	}
	r := st.AddRun(store.Run{Job: "backup", ScheduledTime: cliT0, Attempt: 1, Reason: store.ReasonSchedule, State: store.RunRunning, StartedAt: cliT0, Node: "n1"})
	out, _, _ = runCLI(t, "describe", "job", "backup", server)
	if !regexp.MustCompile(`(?m)^  Active runs:\s+1 \(run ids #` + itoa(r.ID) + `\)$`).MatchString(out) {
		t.Errorf("describe with run %d active:\n%s", r.ID, out)
	}
}
