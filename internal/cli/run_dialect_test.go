package cli

import (
	"strings"
	"testing"
)

// TestRunDialects: --on-calendar, --dialect and --randomized-delay reach
// the stored spec, and a bad calendar event is reported against the flag.
func TestRunDialects(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	out, errOut, code := runCLI(t, "run", "report", server, "--on-calendar", "Mon..Fri *-*-* 09:00",
		"--on-calendar", "Sat 12:00", "--tz", "Europe/Berlin", "--randomized-delay", "90s", "--", "make report")
	if code != 0 || !strings.Contains(out, "job report created") {
		t.Fatalf("run --on-calendar: %d %q %q", code, out, errOut)
	}
	j, _ := st.Job("report")
	if strings.Join(j.Spec.OnCalendar, "|") != "Mon..Fri *-*-* 09:00|Sat 12:00" || j.Spec.Cron != "" || j.Spec.RandomizedDelaySeconds != 90 {
		t.Fatalf("stored spec = %+v", j.Spec)
	}
	out, errOut, code = runCLI(t, "run", "kube", server, "--schedule", "0 0 */2 * 1", "--dialect", "kubernetes", "--", "true")
	if code != 0 {
		t.Fatalf("run --dialect kubernetes: %d %q %q", code, out, errOut)
	}
	if j, _ = st.Job("kube"); j.Spec.CronDialect != "kubernetes" {
		t.Fatalf("stored spec = %+v", j.Spec)
	}
	out, _, _ = runCLI(t, "get", "jobs", server)
	if !strings.Contains(out, "on-calendar Mon..Fri *-*-* 09:00; Sat 12:00") || !strings.Contains(out, "0 0 */2 * 1 (kubernetes)") {
		t.Errorf("get jobs does not show the schedules' dialects:\n%s", out)
	}
	out, _, _ = runCLI(t, "describe", "job", "report", server)
	if !strings.Contains(out, "Randomized delay:") || !strings.Contains(out, "1m30s") {
		t.Errorf("describe job does not show the randomized delay:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "x", "--on-calendar", "Fri..Mon", "--", "true"}, `--on-calendar "Fri..Mon"`},
		{[]string{"run", "x", "--on-calendar", "daily", "--schedule", "* * * * *", "--", "true"}, "not both"},
		{[]string{"run", "x", "--dialect", "kubernetes", "--on-calendar", "daily", "--", "true"}, "--dialect applies to --schedule"},
		{[]string{"run", "x", "--schedule", "0 0 L * *", "--dialect", "kubernetes", "--", "true"}, "Kubernetes"},
		{[]string{"run", "x", "--schedule", "* * * * *", "--dialect", "quartz", "--", "true"}, "quartz"},
		{[]string{"run", "x", "--schedule", "* * * * *", "--randomized-delay", "1.5s", "--", "true"}, "whole number of seconds"},
	} {
		args := append([]string{"run", "x", server}, tc.args[2:]...)
		_, errOut, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %q", tc.args, code, errOut, tc.want)
		}
	}
}
