package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockedInPipeRead reports whether a thread of process pid sleeps in a
// pipe read (Linux's /proc/PID/task/*/wchan).
func blockedInPipeRead(pid int) bool {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/wchan")
	for _, p := range tasks {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "pipe_read") {
			return true
		}
	}
	return false
}

// TestOneShotCommandsStopOnSignals sends SIGINT and SIGTERM to one-shot
// commands while they are busy: apply running a long command (which
// watches its context: the command's process group is killed) and import
// blocked reading its standard input (which does not: almanac exits
// without it after a short grace). Each exits promptly with 130 or 143
// and says why on one line.
func TestOneShotCommandsStopOnSignals(t *testing.T) {
	bin := almanacBinary(t)
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs Linux's /proc to see when the command is busy")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		want := 128 + int(sig)
		t.Run("apply/"+unix.SignalName(sig), func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child.pid")
			manifest := filepath.Join(dir, "slow.pp")
			src := "exec { 'slow': command => '/bin/sh -c \"echo $$ > " + pidFile + "; exec sleep 600\"', timeout => 900 }\n"
			if err := os.WriteFile(manifest, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "apply", "--state", filepath.Join(dir, "state.json"), manifest)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var child int
			eventually(t, "the slow command starts", 30*time.Second, func() (bool, error) {
				b, err := os.ReadFile(pidFile)
				child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && child > 0, err
			})
			code, took := signalAndWait(t, cmd, sig)
			if code != want || took > 10*time.Second {
				t.Fatalf("apply exited %d after %v, want %d promptly\n%s", code, took, want, out.String())
			}
			if !strings.Contains(out.String(), "interrupted by "+unix.SignalName(sig)) {
				t.Errorf("apply does not say it was interrupted:\n%s", out.String())
			}
			eventually(t, "the command apply started is gone", 10*time.Second, func() (bool, error) {
				return syscall.Kill(child, 0) != nil, nil
			})
		})
		t.Run("import/"+unix.SignalName(sig), func(t *testing.T) {
			cmd := exec.Command(bin, "import", "crontab", "-")
			stdin, err := cmd.StdinPipe() // held open: import waits for the end of input
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "import waits on its input", 30*time.Second, func() (bool, error) {
				return blockedInPipeRead(cmd.Process.Pid), nil
			})
			code, took := signalAndWait(t, cmd, sig)
			if code != want || took > 10*time.Second {
				t.Fatalf("import exited %d after %v, want %d promptly\n%s", code, took, want, out.String())
			}
			if got := out.String(); got != "almanac: import: interrupted by "+unix.SignalName(sig)+"\n" {
				t.Errorf("output %q", got)
			}
		})
	}
}

// signalAndWait sends sig to cmd's process and returns its exit status
// and how long it took to exit.
func signalAndWait(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), time.Since(start)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running 60s after %s", unix.SignalName(sig))
	}
	return 0, 0
}
