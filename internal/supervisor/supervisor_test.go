package supervisor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain makes the test binary a supervisor when started as one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Mode {
		os.Exit(Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func shell(s string) Spec {
	return Spec{Argv: []string{"/bin/sh", "-c", s}, Env: []string{"PATH=" + os.Getenv("PATH")}, Keep: 1 << 20, BootID: "b1"}
}

func wait(t *testing.T, h *Handle) Status {
	t.Helper()
	select {
	case <-h.Done():
		return h.Status()
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not end within 30s")
		return Status{}
	}
}

func TestStartAndAttach(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		detach bool // attach again from another handle while it runs
		exit   int
		output string
	}{
		{"exit status", "echo out; echo err >&2; exit 3", false, 3, "out\nerr\n"},
		{"attached while running", "echo before; read x < /dev/null; sleep 0.5; echo after", true, 0, "before\nafter\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			h, err := Start(os.Args[0], dir, shell(tc.cmd))
			if err != nil {
				t.Fatal(err)
			}
			if tc.detach {
				if h, err = Attach(dir, "b1"); err != nil {
					t.Fatal(err)
				}
			}
			st := wait(t, h)
			if st.ExitCode == nil || *st.ExitCode != tc.exit {
				t.Fatalf("status = %+v, want exit %d", st, tc.exit)
			}
			if got := string(h.Tail()); got != tc.output {
				t.Errorf("output = %q, want %q", got, tc.output)
			}
			if st.EndedAt.IsZero() || time.Since(st.EndedAt) > time.Minute {
				t.Errorf("ended at %v", st.EndedAt)
			}
			// Done and recorded: attaching again finds the outcome.
			again, err := Attach(dir, "b1")
			if err != nil {
				t.Fatal(err)
			}
			if st2 := wait(t, again); st2.ExitCode == nil || *st2.ExitCode != tc.exit {
				t.Errorf("attached after the end: %+v", st2)
			}
		})
	}
}

func TestAttachRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Attach(dir, "b1"); err != ErrNone {
		t.Errorf("empty directory: %v, want ErrNone", err)
	}
	h, err := Start(os.Args[0], dir, shell("exec sleep 300"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(dir, "b2"); err != ErrRebooted {
		t.Errorf("running under another boot id: %v, want ErrRebooted", err)
	}
	h.Signal(syscall.SIGKILL)
	wait(t, h)
	// An end recorded before the reboot is still the real outcome.
	a, err := Attach(dir, "b2")
	if err != nil {
		t.Fatalf("ended, other boot id: %v, want the recorded end", err)
	}
	if st := wait(t, a); !strings.Contains(st.Error, "killed") {
		t.Errorf("status = %+v, want killed", st)
	}
}

func TestStartFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	spec := shell("")
	spec.Argv = []string{filepath.Join(t.TempDir(), "no-such-command")}
	if _, err := Start(os.Args[0], dir, spec); err == nil || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("Start = %v, want the command's start error", err)
	}
}

// TestSignalReachesCommand: SIGTERM to the group stops the command (the
// supervisor's own disregard of SIGTERM does not pass to it), and the
// status says so.
func TestSignalReachesCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	h, err := Start(os.Args[0], dir, shell("echo up; exec sleep 300"))
	if err != nil {
		t.Fatal(err)
	}
	for !bytes.Contains(h.Tail(), []byte("up")) {
		time.Sleep(10 * time.Millisecond)
	}
	h.Signal(syscall.SIGTERM)
	st := wait(t, h)
	if st.ExitCode != nil || !strings.Contains(st.Error, "terminated") {
		t.Errorf("status = %+v, want ended by SIGTERM", st)
	}
}

// TestSupervisorKilled: a supervisor killed before the command ended
// leaves no status; the handle reports that and stops the command.
func TestSupervisorKilled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	h, err := Start(os.Args[0], dir, shell("exec sleep 300"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Attach(dir, "b1")
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(h.Pids().Supervisor, syscall.SIGKILL)
	st := wait(t, a)
	if !strings.Contains(st.Error, "without recording") {
		t.Errorf("status = %+v, want the supervisor's loss", st)
	}
	pgid := h.Pids().PGID
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the command outlived its supervisor's loss")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOutputBounded: the log's head is released once the output passes
// twice the kept size; reading from an early offset skips to the tail.
func TestOutputBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	spec := shell("head -c 1000000 /dev/zero | tr '\\0' x; echo; echo last")
	spec.Keep = 64 << 10
	h, err := Start(os.Args[0], dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	st := wait(t, h)
	if st.Output != 1000006 {
		t.Errorf("output bytes = %d, want 1000006", st.Output)
	}
	tail := h.Tail()
	if !bytes.HasPrefix(tail, []byte("[almanac: 934470 earlier bytes dropped]\n")) || !bytes.HasSuffix(tail, []byte("x\nlast\n")) {
		t.Errorf("tail = %q...%q", tail[:50], tail[len(tail)-10:])
	}
	b, next := h.OutputSince(0)
	if int64(len(b)) != spec.Keep || next != 1000006 {
		t.Errorf("OutputSince(0) = %d bytes, next %d; want the kept %d, next 1000006", len(b), next, spec.Keep)
	}
	var fs syscall.Stat_t
	if err := syscall.Stat(filepath.Join(dir, OutputFile), &fs); err != nil {
		t.Fatal(err)
	}
	if used := fs.Blocks * 512; used > 3*spec.Keep {
		t.Logf("the file system did not release the log's head: %d bytes on disk", used)
	}
}
