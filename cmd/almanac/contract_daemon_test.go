package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// daemon is a real `almanac serve` on a free loopback port, for what only
// the built binary shows (its build information); the client commands'
// contract runs against an in-process daemon in testdata/script/client.txtar.
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
