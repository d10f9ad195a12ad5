package cli

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/servetest"
)

// inProcess is a daemon running inside the test process, as `almanac
// serve` would run it, but with a clock the test chooses.
type inProcess struct {
	url  string
	stop func() // cancels Run and waits for it
}

// startInProcess starts a daemon on a free port over dataDir with serve's
// flags extra and clk as its clock, and stops it when the test ends.
func startInProcess(t *testing.T, dataDir string, clk clock.Clock, extra ...string) *inProcess {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var errOut bytes.Buffer
	fs.SetOutput(&errOut)
	cfg := daemon.Config{ErrOut: &errOut, Version: "test", Clock: clk}
	cfg.AddFlags(fs)
	args := append([]string{"--data", dataDir, "--listen", "127.0.0.1:0", "--token", e2eToken, "--grace", "2s"}, extra...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Check(fs); err != nil {
		t.Fatal(err)
	}
	logs := &servetest.Log{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	d, err := daemon.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("daemon: %v\n%s", err, errOut.String())
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	p := &inProcess{url: "http://" + d.Addr()}
	stopped := false
	p.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon Run: %v", err)
		}
	}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	return p
}

// cli runs an almanac client command against the daemon and returns its
// standard output, failing the test if it fails.
func (p *inProcess) cli(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, append(args, "--server", p.url, "--token", e2eToken)...)
	if code != exitOK {
		t.Fatalf("almanac %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// offsetClock is the real clock shifted by a fixed duration.
type offsetClock struct{ d time.Duration }

func (c offsetClock) Now() time.Time                       { return time.Now().Add(c.d) }
func (c offsetClock) NewTimer(d time.Duration) clock.Timer { return clock.Real{}.NewTimer(d) }
