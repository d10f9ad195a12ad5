package cli

import (
	"strings"
	"testing"
	"time"

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
	if j, _ := st.Job("plain"); j.Spec.StartingDeadlineSeconds != nil || j.Spec.SuccessfulJobsHistoryLimit != nil || j.Spec.Schedule != "" {
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
