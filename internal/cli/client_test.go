package cli

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

var cliT0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

// fakeDaemon serves the real API over an in-memory store and returns the
// store and the --server flag pointing at it.
func fakeDaemon(t *testing.T) (*apitest.MemStore, *apitest.Controller, string) {
	t.Helper()
	st := apitest.NewMemStore()
	ctrl := &apitest.Controller{St: st, Now: cliT0}
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: ctrl, Clock: clock.NewFake(cliT0)}))
	t.Cleanup(ts.Close)
	return st, ctrl, "--server=" + ts.URL
}

func TestClientCommands(t *testing.T) {
	t.Parallel()
	st, ctrl, server := fakeDaemon(t)
	ctrl.SetNext("backup", time.Date(2030, 6, 2, 0, 0, 0, 0, time.UTC), time.Date(2030, 6, 3, 0, 0, 0, 0, time.UTC))
	ctrl.SetOutlook("backup", time.Date(2030, 6, 3, 0, 0, 0, 0, time.UTC), job.Outlook{State: job.Waits,
		Until: time.Date(2030, 6, 3, 8, 0, 0, 0, time.UTC), Reason: `schedule gate "office" is closed`})

	out, errOut, code := runCLI(t, "run", "backup", "--schedule", "0 2 * * *", "--tz", "Europe/Berlin", server, "--", "tar", "czf", "/tmp/x.tgz", "/etc")
	if code != 0 || !strings.Contains(out, "job backup created (next run ") {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	j, _ := st.Job("backup")
	if j.Spec.Cron != "0 2 * * *" || j.Spec.TimeZone != "Europe/Berlin" || strings.Join(j.Spec.Command, " ") != "tar czf /tmp/x.tgz /etc" {
		t.Fatalf("stored spec = %+v", j.Spec)
	}
	out, _, code = runCLI(t, "run", "backup", server, "--schedule", "0 3 * * *", "--", "echo hi | wc -c")
	if code != 0 || !strings.Contains(out, "job backup updated") {
		t.Fatalf("run update: %d %q", code, out)
	}
	if j, _ = st.Job("backup"); j.Spec.Shell != "echo hi | wc -c" || j.Spec.Command != nil {
		t.Fatalf("a single COMMAND argument should be a shell line: %+v", j.Spec)
	}
	out, _, code = runCLI(t, "run", "once", server, "--at", "2030-07-01T09:30", "--tz", "america-new_york", "--", "date")
	if code != 0 {
		t.Fatalf("run --at: %d %q", code, out)
	}
	if j, _ = st.Job("once"); j.Spec.At == nil || !j.Spec.At.Equal(time.Date(2030, 7, 1, 13, 30, 0, 0, time.UTC)) {
		t.Fatalf("--at stored as %v", j.Spec.At)
	}

	out, _, code = runCLI(t, "get", "jobs", server)
	if code != 0 || !regexp.MustCompile(`(?m)^backup\s+0 3 \* \* \*\s+UTC\s+false\s+0\s+0\s+0\s+-\s+2030-`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^once\s+at 2030-07-01`).MatchString(out) {
		t.Fatalf("get jobs:\n%s", out)
	}
	out, _, code = runCLI(t, "get", "jobs", "-o", "json", server)
	var page apitype.Page[apitype.Job]
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Items) != 2 {
		t.Fatalf("get jobs -o json: %d %s", code, out)
	}

	out, _, code = runCLI(t, "trigger", "backup", server)
	if code != 0 || !regexp.MustCompile(`^run \d+ of job backup created\n$`).MatchString(out) {
		t.Fatalf("trigger: %d %q", code, out)
	}
	exit1 := 1
	r := st.AddRun(store.Run{Job: "backup", ScheduledTime: cliT0, StartedAt: cliT0, FinishedAt: cliT0.Add(1500 * time.Millisecond),
		Attempt: 1, Reason: store.ReasonSchedule, State: store.RunFailed, ExitCode: &exit1, Output: []byte("boom\n")})
	st.AddEvent(store.Event{Time: cliT0, Kind: store.EventRunFailed, Job: "backup", RunID: r.ID, Message: "exit status 1\tand\nmore"})

	out, _, code = runCLI(t, "get", "runs", "--job", "backup", "--state", "failed", server)
	if code != 0 || !regexp.MustCompile(`(?m)^\d+\s+backup\s+-\s+failed\s+schedule\s+1\s+\S+\s+\S+\s+1.5s\s+1\s*$`).MatchString(out) {
		t.Fatalf("get runs:\n%s", out)
	}
	out, _, code = runCLI(t, "get", "events", "--kind", "run", server)
	if code != 0 || !strings.Contains(out, "run.failed") || !strings.Contains(out, "exit status 1 and more") || strings.Contains(out, "job.created") {
		t.Fatalf("get events:\n%s", out)
	}
	out, _, code = runCLI(t, "logs", "backup", server)
	if code != 0 || out != "boom\n" {
		t.Fatalf("logs by job: %d %q", code, out)
	}
	out, _, _ = runCLI(t, "describe", "job", "backup", server)
	for _, want := range []string{"Schedule:", "0 3 * * *", `/bin/sh -c "echo hi | wc -c"`, "Concurrency policy:", "Allow", "Recent runs:", "failed", "Next 2 fires (UTC):\n  2030-06-02T00:00:00Z\n  2030-06-03T00:00:00Z  waits until 2030-06-03T08:00:00Z: schedule gate \"office\" is closed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "describe", "job", "backup", "-o", "json", server)
	var d describeJSON
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Job.Name != "backup" || len(d.Runs) != 2 || len(d.Next) != 2 {
		t.Fatalf("describe -o json: %d %s", code, out)
	}

	for _, step := range []struct{ args, want string }{
		{"suspend backup", "job backup suspended\n"},
		{"resume backup", "job backup resumed (next run "},
		{"delete backup", "job backup deleted\n"},
	} {
		out, errOut, code := runCLI(t, append(strings.Fields(step.args), server)...)
		if code != 0 || !strings.HasPrefix(out, step.want) {
			t.Fatalf("%s: %d %q %q", step.args, code, out, errOut)
		}
	}
	if _, ok := st.Job("backup"); ok {
		t.Fatal("job survived delete")
	}
}

func TestClientCommandErrors(t *testing.T) {
	t.Parallel()
	_, _, server := fakeDaemon(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "x", "--", "true"}, 2, "give --schedule CRON"},
		{[]string{"run", "x", "--schedule", "* * * * *"}, 2, "missing COMMAND"},
		{[]string{"run", "--schedule", "* * * * *"}, 2, "missing job NAME"},
		{[]string{"run", "x", "--schedule", "* * * * *", "--at", "2030-01-01T00:00:00Z", "--", "true"}, 2, "not both"},
		{[]string{"run", "x", "--at", "tomorrow", "--", "true"}, 2, `--at "tomorrow"`},
		{[]string{"run", "x", "--at", "2030-01-01T00:00", "--tz", "Mars/Base", "--", "true"}, 2, "Mars/Base"},
		{[]string{"run", "x", "--schedule", "* * * * *", "--tz", "Mars/Base", "--", "true"}, 2, `--tz "Mars/Base": unknown time zone`},
		{[]string{"run", "bad name", "--schedule", "* * * * *", "--", "true"}, 2, `run: "bad name" is not a job name`},
		{[]string{"suspend", "bad name!"}, 2, `suspend: "bad name!" is not a job name`},
		{[]string{"delete", "a/b"}, 2, `delete: "a/b" is not a job name`},
		{[]string{"describe", "job", "x y"}, 2, `describe job: "x y" is not a job name`},
		{[]string{"logs", ""}, 2, `logs: "" is neither a run id nor a job name`},
		{[]string{"logs", "0"}, 2, "run id 0 must be positive"},
		{[]string{"run", "x", "--schedule", "* * * * *", "-o", "yaml", "--", "true"}, 2, `almanac: run: -o "yaml": want table or json`},
		{[]string{"get", "jobs", "-o", "yaml"}, 2, `almanac: get: -o "yaml"`},
		{[]string{"get"}, 2, "want one of jobs"},
		{[]string{"get", "runs", "heartbeat"}, 2, `get: unexpected argument "heartbeat" after runs (filters are flags: --job`},
		{[]string{"get", "runs", "--limit", "1001"}, 2, "get: --limit 1001: want 1 to 1000"},
		{[]string{"get", "events", "--limit", "0"}, 2, "get: --limit 0: want 1 to 1000"},
		{[]string{"get", "pods"}, 2, `unknown kind "pods"`},
		{[]string{"get", "jobs", "--state", "failed"}, 2, "runs or events only"},
		{[]string{"get", "runs", "--state", "done"}, 2, `almanac: --state: "done" is not a run state`},
		{[]string{"get", "events", "--kind", "boom"}, 2, `almanac: --kind: "boom"`},
		{[]string{"get", "runs", "--page", "zzz"}, 2, `almanac: --page: `},
		{[]string{"get", "applies"}, 1, "this daemon runs no agent"},
		{[]string{"describe", "apply", "7"}, 1, "this daemon runs no agent"},
		{[]string{"get", "runs", "--job", "nope"}, 1, `almanac: --job: job "nope" not found`},
		{[]string{"get", "jobs", "--resource", "vm-1"}, 2, "runs or events only"},
		{[]string{"describe", "resource", "nope"}, 1, `resource "nope" is not in the inventory`},
		{[]string{"inventory"}, 1, "this daemon manages no resources"},
		{[]string{"inventory", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"describe", "nope"}, 2, "usage: almanac describe job NAME"},
		{[]string{"describe", "job", "nope"}, 1, `job "nope" not found`},
		{[]string{"logs"}, 2, "usage"},
		{[]string{"logs", "12345"}, 1, "run 12345 not found"},
		{[]string{"logs", "nojob"}, 1, `almanac: logs: job "nojob" not found`},
		{[]string{"trigger", "nope"}, 1, `job "nope" not found`},
		{[]string{"suspend"}, 2, "usage: almanac suspend NAME"},
		{[]string{"delete", "a", "b"}, 2, "usage: almanac delete NAME"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{tt.args[0], server}, tt.args[1:]...)
			out, errOut, code := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("code %d, want %d (stdout %q stderr %q)", code, tt.code, out, errOut)
			}
			if !strings.HasPrefix(errOut, "almanac: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("stderr %q, want one line containing %q", errOut, tt.msg)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		_, errOut, code := runCLI(t, "get", "jobs", "--server", dead)
		if code != 1 || !strings.HasPrefix(errOut, "almanac: cannot reach daemon at "+dead+": ") || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%d %q", code, errOut)
		}
	})
	t.Run("bad server", func(t *testing.T) {
		_, errOut, code := runCLI(t, "get", "jobs", "--server", "ftp://x")
		if code != 2 || !strings.Contains(errOut, "--server") {
			t.Fatalf("%d %q", code, errOut)
		}
	})
}

// TestRunAtInThePast: a one-shot instant in the past is accepted (the
// daemon decides by the starting deadline) but said out loud; a future one
// is not remarked on.
func TestRunAtInThePast(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	now := time.Date(2030, 7, 2, 0, 0, 0, 0, time.UTC)
	if _, errOut, code := runCLIAt(t, now, "run", "soon", server, "--at", "2030-07-03T09:30:00Z", "--", "date"); code != 0 || errOut != "" {
		t.Fatalf("run --at in the future: %d %q", code, errOut)
	}
	_, errOut, code := runCLIAt(t, now, "run", "late", server, "--at", "2030-07-01T09:30:00Z", "--", "date")
	if code != 0 || !strings.Contains(errOut, "run late: note: --at 2030-07-01T09:30:00Z is in the past") {
		t.Fatalf("run --at in the past: %d %q", code, errOut)
	}
	if _, ok := st.Job("late"); !ok {
		t.Fatal("the past one-shot job was not created")
	}
}
