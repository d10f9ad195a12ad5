package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/servetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(peakRSSHelperEnv) != "" {
		os.Exit(peakRSSHelper(os.Args[len(os.Args)-1]))
	}
	os.Exit(servetest.Main(m))
}

// The end-to-end tests build the real binary and drive real daemon
// processes through the CLI and the API client. They never sleep for a
// fixed time: they poll the API for a condition, with a deadline.

// almanacBinary builds cmd/almanac once per test process.
func almanacBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test builds the binary; skipped with -short")
	}
	return servetest.Binary(t)
}

// daemonProc is a running `almanac serve`.
type daemonProc struct {
	cmd  *exec.Cmd
	url  string
	logs *servetest.Log
	done chan struct{}
}

// startDaemon starts `almanac serve` on a free loopback port with dataDir
// and waits until it serves.
func startDaemon(t *testing.T, bin, dataDir string, extra ...string) *daemonProc {
	t.Helper()
	return startDaemonEnv(t, bin, dataDir, []string{"ALMANAC_TOKEN=" + e2eToken}, extra...)
}

// startDaemonEnv is startDaemon with env added to the daemon's environment.
func startDaemonEnv(t *testing.T, bin, dataDir string, env []string, extra ...string) *daemonProc {
	t.Helper()
	args := append([]string{"serve", "--data", dataDir, "--listen", "127.0.0.1:0", "--log-format", "json", "--grace", "2s"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	logs := &servetest.Log{}
	cmd.Stderr = io.MultiWriter(logs, pw)
	cmd.Stdout = logs
	cmd.WaitDelay = 5 * time.Second // a run's process may hold the pipes
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemonProc{cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		pw.Close()
		close(d.done)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		<-d.done
		// Supervisors outlive their daemon by design; one the daemon
		// started just before it ended may still be writing its run's
		// status when the test's temporary directory is removed.
		waitSupervisors(dataDir, 10*time.Second)
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	urlc := servetest.ServingURL(pr)
	select {
	case u, ok := <-urlc:
		if !ok {
			<-d.done
			t.Fatalf("daemon exited before serving: %v\n%s", cmd.ProcessState, logs.String())
		}
		d.url = u
	case <-d.done:
		t.Fatalf("daemon exited before serving: %v\n%s", cmd.ProcessState, logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("daemon did not report serving within 60s\n%s", logs.String())
	}
	return d
}

// client returns an API client of the daemon, with the tests' token.
func (d *daemonProc) client(t testing.TB) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(d.url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cli runs the binary with args against the daemon and returns stdout.
func (d *daemonProc) cli(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ALMANAC_SERVER="+d.url, "ALMANAC_TOKEN="+e2eToken)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("almanac %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// waitSupervisors waits, at most within, until no `almanac __supervise`
// process keeps a run directory under dataDir.
func waitSupervisors(dataDir string, within time.Duration) {
	prefix := dataDir + string(os.PathSeparator)
	live := func() bool {
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			if _, err := strconv.Atoi(p.Name()); err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + p.Name() + "/cmdline")
			if err != nil {
				continue
			}
			args := strings.Split(string(b), "\x00")
			if len(args) > 2 && args[1] == "__supervise" && strings.HasPrefix(args[2], prefix) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(within)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for live() && time.Now().Before(deadline) {
		<-tick.C
	}
}

// eventually polls cond until it returns true or the deadline passes.
func eventually(t *testing.T, what string, within time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		ok, err := cond()
		if ok {
			return
		}
		lastErr = err
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %s (last error: %v)", what, within, lastErr)
		}
		<-tick.C
	}
}

var runIDRE = regexp.MustCompile(`^run (\d+) of job `)

func triggerRun(t *testing.T, d *daemonProc, bin, job string) int64 {
	t.Helper()
	out := d.cli(t, bin, "trigger", job)
	m := runIDRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("trigger output %q has no run id", out)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

func TestEndToEndRunAndLogs(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	d := startDaemon(t, bin, t.TempDir())
	c := d.client(t)
	ctx := context.Background()

	out := d.cli(t, bin, "run", "hello", "--schedule", "0 0 1 1 *", "--tz", "Europe/Berlin", "--", "sh", "-c", `echo "hello from $ALMANAC_JOB run $ALMANAC_RUN_ID"`)
	if !strings.HasPrefix(out, "job hello created (next run ") {
		t.Fatalf("run: %q", out)
	}
	id := triggerRun(t, d, bin, "hello")
	var run apitype.Run
	eventually(t, "triggered run finishes", 30*time.Second, func() (bool, error) {
		var err error
		run, err = c.RunGet(ctx, id)
		return err == nil && run.Finished(), err
	})
	if run.State != apitype.RunSucceeded || run.ExitCode == nil || *run.ExitCode != 0 || run.Reason != apitype.ReasonManual {
		t.Fatalf("run = %+v", run)
	}
	if got, want := d.cli(t, bin, "logs", strconv.FormatInt(id, 10)), fmt.Sprintf("hello from hello run %d\n", id); got != want {
		t.Fatalf("logs = %q, want %q", got, want)
	}
	if out := d.cli(t, bin, "get", "runs", "--job", "hello"); !regexp.MustCompile(`(?m)^` + strconv.FormatInt(id, 10) + `\s+hello\s+\S+\s+succeeded\s+manual\s+1\s`).MatchString(out) {
		t.Fatalf("get runs:\n%s", out)
	}
	if out := d.cli(t, bin, "describe", "job", "hello"); !strings.Contains(out, "Europe/Berlin") || !strings.Contains(out, "Succeeded:") {
		t.Fatalf("describe:\n%s", out)
	}
	if out := d.cli(t, bin, "get", "events", "--job", "hello"); !strings.Contains(out, "run.succeeded") || !strings.Contains(out, "job.created") {
		t.Fatalf("get events:\n%s", out)
	}

	// Graceful shutdown: SIGTERM ends the daemon with status 0.
	d.stop(t)
	if !d.cmd.ProcessState.Success() || !strings.Contains(d.logs.String(), `"msg":"stopped"`) {
		t.Fatalf("after SIGTERM: %v", d.cmd.ProcessState)
	}
}

// TestServeAuthFlags checks the refusals of serve's authentication flags,
// which all happen before anything listens.
func TestServeAuthFlags(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		args  []string
		wants string
	}{
		{"no auth off loopback", "", []string{"--listen", "0.0.0.0:0", "--insecure-no-auth"}, "allowed on loopback only"},
		{"no auth and a token", "", []string{"--insecure-no-auth", "--token", "t"}, "exclude each other"},
		{"blank token", "", []string{"--token", " "}, "empty or only white space"},
		{"blank env token", " ", nil, "empty or only white space"},
		{"token with a space", "", []string{"--token", "a b"}, "space or control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ALMANAC_TOKEN", tt.env)
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir()}, tt.args...)
			_, errOut, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errOut, tt.wants) {
				t.Fatalf("code %d stderr %q, want exit %d and %q", code, errOut, exitUsage, tt.wants)
			}
		})
	}
}

// stop ends the daemon with SIGTERM and waits for it to exit.
func (d *daemonProc) stop(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not stop within 30s of SIGTERM")
	}
}
