package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// daemon is a real `almanac serve` on a free loopback port.
type daemon struct {
	url    string
	data   string // --data: the CLI finds the daemon's token there
	cmd    *exec.Cmd
	stderr *lockedWriter
	done   chan error
}

// startDaemon starts `almanac serve --data DIR --listen ADDR [extra...]` and
// waits until /healthz answers. A port taken between choosing and binding
// it is retried on another one.
func startDaemon(t *testing.T, extra ...string) *daemon {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		d := &daemon{url: "http://" + addr, data: data, stderr: &lockedWriter{}, done: make(chan error, 1)}
		args := append([]string{"serve", "--data", data, "--listen", addr}, extra...)
		d.cmd = exec.Command(servetest.Binary(t), args...)
		d.cmd.Dir = repoRoot(t)
		d.cmd.Env = append(os.Environ(), "TZ=UTC", "ALMANAC_TOKEN=")
		d.cmd.Stderr = d.stderr
		if err := d.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { d.done <- d.cmd.Wait() }()
		if d.waitHealthy(t) {
			t.Cleanup(func() { d.stop(t) })
			return d
		}
	}
	t.Fatal("almanac serve never became healthy")
	return nil
}

// waitHealthy polls /healthz until it answers 200, the process exits (false)
// or a deadline passes (fatal).
func (d *daemon) waitHealthy(t *testing.T) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-d.done:
			t.Logf("serve exited before it was healthy (%v); retrying on another port:\n%s", err, d.stderr)
			return false
		default:
		}
		if resp, err := client.Get(d.url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(50 * time.Millisecond) // polling an external process, not waiting for time
	}
	_ = d.cmd.Process.Kill()
	t.Fatalf("serve not healthy after 30s:\n%s", d.stderr)
	return false
}

// stop sends SIGTERM and checks the daemon shuts down cleanly (exit 0).
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	if d.cmd.ProcessState != nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v (want exit 0)\n%s", err, d.stderr)
		}
	case <-time.After(60 * time.Second):
		_ = d.cmd.Process.Kill()
		t.Errorf("serve did not stop within 60s of SIGTERM\n%s", d.stderr)
	}
	if s := d.stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Errorf("serve crashed:\n%s", s)
	}
}

// client runs a client command against the daemon through ALMANAC_SERVER,
// so the command line is exactly the contract's; the token comes from the
// daemon's data directory (ALMANAC_DATA), as for an operator on the host.
func (d *daemon) client(t *testing.T, args ...string) result {
	t.Helper()
	return almanac(t, "", []string{"ALMANAC_SERVER=" + d.url, "ALMANAC_DATA=" + d.data, "ALMANAC_TOKEN=", "TZ=UTC"}, args...)
}

// ok runs a client command that must succeed and returns its stdout.
func (d *daemon) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := d.client(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("almanac %q: want exit 0 and no stderr\n%s", args, r)
	}
	return r.stdout
}

// waitRun polls `get runs -o json` until run id has finished and returns its state.
func (d *daemon) waitRun(t *testing.T, id string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var page struct {
			Items []struct {
				ID    json.Number `json:"id"`
				State string      `json:"state"`
			} `json:"items"`
		}
		out := d.ok(t, "get", "runs", "-o", "json")
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("get runs -o json: %v\n%s", err, out)
		}
		for _, r := range page.Items {
			if r.ID.String() == id {
				switch r.State {
				case "succeeded", "failed", "killed", "missed":
					return r.State
				}
			}
		}
		time.Sleep(50 * time.Millisecond) // polling an external process
	}
	t.Fatalf("run %s did not finish within 30s", id)
	return ""
}

// lockedWriter collects the daemon's log; the test may read it while the
// process still writes.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestContractDaemon runs the daemon/client commands of the CLI contract against a
// real `almanac serve` with a temporary --data directory.
func TestContractDaemon(t *testing.T) {
	t.Parallel()
	d := startDaemon(t)

	triggered := regexp.MustCompile(`^run (\d+) of job (\S+) created\n$`)
	trigger := func(t *testing.T, name string) string {
		t.Helper()
		m := triggered.FindStringSubmatch(d.ok(t, "trigger", name))
		if m == nil || m[2] != name {
			t.Fatalf("trigger %s: unexpected output %q", name, m)
		}
		return m[1]
	}

	t.Run("run creates, then updates", func(t *testing.T) {
		out := d.ok(t, "run", "hello", "--schedule", "*/2 * * * *", "--", "echo", "hello")
		if !regexp.MustCompile(`^job hello created \(next run \d{4}-\d\d-\d\dT\d\d:\d[02468]:00Z\)\n$`).MatchString(out) {
			t.Errorf("run: %q", out)
		}
		out = d.ok(t, "run", "hello", "--schedule", "*/2 * * * *", "--", "echo hello")
		if !strings.HasPrefix(out, "job hello updated (") {
			t.Errorf("second run: %q", out)
		}
		out = d.ok(t, "run", "once", "--at", "2030-01-02T03:04", "--tz", "Europe/Berlin", "--",
			`echo "$ALMANAC_JOB $ALMANAC_RUN_ID $ALMANAC_SCHEDULED_TIME"`)
		if out != "job once created (next run 2030-01-02T02:04:00Z)\n" {
			t.Errorf("run --at: %q", out)
		}
	})

	t.Run("get jobs", func(t *testing.T) {
		out := d.ok(t, "get", "jobs")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") ||
			!strings.HasPrefix(lines[1], "hello ") || !strings.Contains(lines[1], "*/2 * * * *") ||
			!strings.HasPrefix(lines[2], "once ") || !strings.Contains(lines[2], "Europe/Berlin") {
			t.Errorf("get jobs:\n%s", out)
		}
	})

	t.Run("describe job", func(t *testing.T) {
		out := d.ok(t, "describe", "job", "hello")
		for _, want := range []string{"Name:", "hello", "Schedule:", "*/2 * * * *", "Suspended:", "false", "Next schedule time:"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe job hello lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("trigger and logs", func(t *testing.T) {
		id := trigger(t, "hello")
		if st := d.waitRun(t, id); st != "succeeded" {
			t.Fatalf("run %s ended %s", id, st)
		}
		if out := d.ok(t, "logs", id); out != "hello\n" {
			t.Errorf("logs %s = %q", id, out)
		}
		if out := d.ok(t, "logs", "hello"); out != "hello\n" {
			t.Errorf("logs hello (latest run) = %q", out)
		}
		// The run's environment names the job, the run and the nominal instant.
		id = trigger(t, "once")
		if st := d.waitRun(t, id); st != "succeeded" {
			t.Fatalf("run %s ended %s", id, st)
		}
		f := strings.Fields(d.ok(t, "logs", id))
		if len(f) != 3 || f[0] != "once" || f[1] != id || !rfc3339Offset.MatchString(f[2]) {
			t.Errorf("environment of run %s: %q", id, f)
		}
	})

	t.Run("get runs, events, resources", func(t *testing.T) {
		if out := d.ok(t, "get", "runs"); !strings.HasPrefix(out, "ID") || !strings.Contains(out, "succeeded") {
			t.Errorf("get runs:\n%s", out)
		}
		if out := d.ok(t, "get", "events"); !strings.Contains(out, "run.succeeded") || !strings.Contains(out, "job.created") {
			t.Errorf("get events:\n%s", out)
		}
		d.ok(t, "get", "resources")
	})

	t.Run("suspend, resume", func(t *testing.T) {
		if out := d.ok(t, "suspend", "hello"); out != "job hello suspended\n" {
			t.Errorf("suspend: %q", out)
		}
		if out := d.ok(t, "describe", "job", "hello"); !regexp.MustCompile(`Suspended:\s+true`).MatchString(out) ||
			!strings.Contains(out, "none (suspended)") {
			t.Errorf("describe after suspend:\n%s", out)
		}
		if out := d.ok(t, "resume", "hello"); !strings.HasPrefix(out, "job hello resumed") {
			t.Errorf("resume: %q", out)
		}
		if out := d.ok(t, "describe", "job", "hello"); !regexp.MustCompile(`Suspended:\s+false`).MatchString(out) {
			t.Errorf("describe after resume:\n%s", out)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if out := d.ok(t, "delete", "hello"); out != "job hello deleted\n" {
			t.Errorf("delete: %q", out)
		}
		if out := d.ok(t, "get", "jobs"); strings.Contains(out, "hello") {
			t.Errorf("get jobs after delete:\n%s", out)
		}
	})

	bad := []struct {
		name      string
		args      []string
		code      int
		fragments []string
	}{
		{"describe a missing job", []string{"describe", "job", "hello"}, 1, []string{`"hello"`, "not found"}},
		{"logs of a missing run", []string{"logs", "999"}, 1, []string{"999", "not found"}},
		{"trigger a missing job", []string{"trigger", "nope"}, 1, []string{"nope", "not found"}},
		{"suspend a missing job", []string{"suspend", "nope"}, 1, []string{"nope", "not found"}},
		{"resume a missing job", []string{"resume", "nope"}, 1, []string{"nope", "not found"}},
		{"delete a missing job", []string{"delete", "nope"}, 1, []string{"nope", "not found"}},
		{"bad cron", []string{"run", "bad", "--schedule", "bogus", "--", "true"}, 2, []string{"--schedule", "bogus"}},
		{"cron that never fires", []string{"run", "bad", "--schedule", "0 0 31 2 *", "--", "true"}, 2, []string{"--schedule", "never fires"}},
		{"bad zone", []string{"run", "bad", "--schedule", "* * * * *", "--tz", "Mars/Base", "--", "true"}, 2, []string{"--tz", "Mars/Base"}},
		{"bad --at", []string{"run", "bad", "--at", "tomorrow", "--", "true"}, 2, []string{"--at", "tomorrow"}},
		{"both --schedule and --at", []string{"run", "bad", "--schedule", "* * * * *", "--at", "2030-01-01T00:00:00Z", "--", "true"}, 2, []string{"--schedule", "--at"}},
		{"no command", []string{"run", "bad", "--schedule", "* * * * *"}, 2, []string{"COMMAND"}},
		{"get an unknown kind", []string{"get", "widgets"}, 2, []string{"widgets"}},
		{"describe without a name", []string{"describe", "job"}, 2, []string{"describe"}},
		{"suspend without a name", []string{"suspend"}, 2, []string{"suspend"}},
	}
	for _, tt := range bad {
		t.Run("error/"+tt.name, func(t *testing.T) {
			wantError(t, d.client(t, tt.args...), tt.code, tt.fragments...)
		})
	}
	t.Run("error/no job was created by bad input", func(t *testing.T) {
		if out := d.ok(t, "get", "jobs"); strings.Contains(out, "bad") {
			t.Errorf("a rejected job was stored:\n%s", out)
		}
	})

	t.Run("error/daemon not running", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		r := almanac(t, "", []string{"ALMANAC_SERVER=http://" + addr}, "get", "jobs")
		wantError(t, r, 1, addr)
	})
}

// TestContractServeUsage checks serve's own bad input: exit 2, one line.
func TestContractServeUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		fragments []string
	}{
		{"bad --listen", []string{"serve", "--data", t.TempDir(), "--listen", "nowhere"}, []string{"--listen", "nowhere"}},
		{"off loopback without auth", []string{"serve", "--data", t.TempDir(), "--listen", "0.0.0.0:0", "--insecure-no-auth"}, []string{"--insecure-no-auth", "loopback only"}},
		{"blank token", []string{"serve", "--data", t.TempDir(), "--token", "  "}, []string{"--token", "white space"}},
		{"bad --store", []string{"serve", "--data", t.TempDir(), "--store", "mysql://x"}, []string{"--store", "mysql://x"}},
		{"stray argument", []string{"serve", "--data", t.TempDir(), "extra"}, []string{"extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, almanac(t, "", []string{"ALMANAC_TOKEN="}, tt.args...), 2, tt.fragments...)
		})
	}
}

// TestContractServeManifests starts the daemon on every example manifest
// (in noop agent mode, so nothing on this machine is changed) and checks
// their jobs are loaded.
func TestContractServeManifests(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "--manifests", "examples/manifests", "--noop", "--run-interval", "0")
	out := d.ok(t, "get", "jobs")
	for _, name := range []string{"ship-backup", "dump", "backup", "manifest-heartbeat"} {
		if !regexp.MustCompile(`(?m)^` + name + ` `).MatchString(out) {
			t.Errorf("job %s not loaded from examples/manifests:\n%s", name, out)
		}
	}
	if r := d.client(t, "delete", "manifest-heartbeat"); r.code == 0 {
		t.Errorf("deleting a manifest job over the API succeeded; it belongs to the manifest\n%s", r)
	}
}
