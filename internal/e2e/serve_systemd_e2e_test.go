package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeUnderSystemd runs the daemon as a Type=notify unit with a
// watchdog would: a real unixgram socket in $NOTIFY_SOCKET receives
// READY=1 once it serves, WATCHDOG=1 keep-alives while its scheduling loop
// turns, and STOPPING=1 on SIGTERM; with $JOURNAL_STREAM naming its
// standard error, log lines carry no time (the journal adds it) and start
// with their priority, "<6>" for info.
func TestServeUnderSystemd(t *testing.T) {
	t.Parallel()
	bin := almanacBinary(t)
	dir := t.TempDir()
	sockPath := filepath.Join(dir, "notify")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	logFile, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	fi, err := logFile.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)

	cmd := exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--grace", "2s")
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken, "NOTIFY_SOCKET="+sockPath,
		"WATCHDOG_USEC=2000000", "JOURNAL_STREAM="+fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("daemon log:\n%s", b)
		}
	})
	next := func() string {
		t.Helper()
		sock.SetReadDeadline(time.Now().Add(60 * time.Second))
		buf := make([]byte, 4096)
		n, err := sock.Read(buf)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		return string(buf[:n])
	}
	if msg := next(); !strings.HasPrefix(msg, "READY=1\nSTATUS=serving on 127.0.0.1:") {
		t.Fatalf("first notification %q, want READY=1 with a status", msg)
	}
	// With a 2 s watchdog, keep-alives come every second.
	for i := 0; i < 2; i++ {
		if msg := next(); msg != "WATCHDOG=1" {
			t.Fatalf("notification %q, want WATCHDOG=1", msg)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		msg := next()
		if msg == "STOPPING=1" {
			break
		}
		if msg != "WATCHDOG=1" {
			t.Fatalf("notification %q while stopping", msg)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("daemon exited with %v", err)
	}
	b, err := os.ReadFile(logFile.Name())
	if err != nil {
		t.Fatal(err)
	}
	logs := string(b)
	if !strings.Contains(logs, "<6>level=INFO msg=serving") || strings.Contains(logs, "time=") {
		t.Errorf("journal log lines should have no time and a priority:\n%s", logs)
	}
	for _, line := range strings.Split(strings.TrimSuffix(logs, "\n"), "\n") {
		if !regexp.MustCompile(`^<[0-7]>level=`).MatchString(line) {
			t.Errorf("journal log line without its priority: %q", line)
		}
	}
}
