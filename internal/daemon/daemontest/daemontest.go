// Package daemontest starts a whole almanac daemon inside a test process:
// daemon.New and Run, as `almanac serve` runs them, on a fresh data
// directory and a free loopback port, with an API token and a clock the
// test chooses, stopped when the test ends. Tests that need what only a
// separate process shows (signals, exit codes, kill -9) use servetest
// instead.
package daemontest

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/servetest"
)

// Token is the API token of a daemon Start starts when Options gives none.
const Token = "daemontest-token-0123456789"

// Options are what a test chooses of the daemon it starts.
type Options struct {
	// Args are serve's flags after the ones Start gives (--data,
	// --listen 127.0.0.1:0, --token, --grace 2s); a flag given again
	// here wins.
	Args []string
	// Data is the data directory; "" for a new temporary one.
	Data string
	// Clock is the daemon's clock; nil for the real one. With a
	// *clock.Fake, stopping the daemon advances it a second at a time
	// until Run returns, so the shutdown grace passes.
	Clock clock.Clock
	// Token is the API token; "" for Token.
	Token string
	// TokenFile starts the daemon without --token, so that it generates
	// its token file under Data as at a first start (where the CLI finds
	// it through ALMANAC_DATA); Daemon.Token is read from that file.
	TokenFile bool
}

// Daemon is a daemon running inside the test.
type Daemon struct {
	*daemon.Daemon
	// URL is the base URL of its API and web UI.
	URL string
	// Token is its API token, and Data its data directory.
	Token, Data string
	// Client is an API client of it, with the token.
	Client *apiclient.Client
	// Log is its log (text), printed when the test fails.
	Log *servetest.Log

	stop func()
}

// Start starts a daemon with opts and stops it when t ends; any failure to
// start fails t at once.
func Start(t testing.TB, opts Options) *Daemon {
	t.Helper()
	d := &Daemon{Token: opts.Token, Data: opts.Data, Log: &servetest.Log{}}
	if d.Token == "" {
		d.Token = Token
	}
	if d.Data == "" {
		d.Data = t.TempDir()
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var errOut bytes.Buffer
	fs.SetOutput(&errOut)
	cfg := daemon.Config{ErrOut: &errOut, Version: "test", Clock: opts.Clock}
	cfg.AddFlags(fs)
	args := []string{"--data", d.Data, "--listen", "127.0.0.1:0", "--grace", "2s"}
	if !opts.TokenFile {
		args = append(args, "--token", d.Token)
	}
	args = append(args, opts.Args...)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("serve %q: %v\n%s", args, err, errOut.String())
	}
	if err := cfg.Check(fs); err != nil {
		t.Fatalf("serve %q: %v", args, err)
	}
	log := slog.New(slog.NewTextHandler(d.Log, nil))
	ctx, cancel := context.WithCancel(context.Background())
	dm, err := daemon.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("daemon.New: %v\n%s%s", err, errOut.String(), d.Log.String())
	}
	d.Daemon = dm
	d.URL = "http://" + dm.Addr()
	if opts.TokenFile {
		if d.Token, _, err = apitoken.LoadOrCreate(d.Data); err != nil {
			cancel()
			t.Fatalf("the daemon's token file: %v", err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- dm.Run(ctx) }()
	stopped := false
	d.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := wait(done, opts.Clock); err != nil {
			t.Errorf("daemon Run: %v", err)
		}
	}
	t.Cleanup(func() {
		d.Stop()
		if t.Failed() {
			t.Logf("daemon log:\n%s", d.Log.String())
		}
	})
	if d.Client, err = apiclient.New(d.URL, apiclient.WithToken(d.Token)); err != nil {
		t.Fatal(err)
	}
	return d
}

// Stop stops the daemon and waits until Run has returned; later calls do
// nothing. It may be called before the test ends (to restart a daemon on
// the same data directory, say).
func (d *Daemon) Stop() { d.stop() }

// wait waits for Run's result; on a fake clock it advances the clock while
// it waits, so timers of the shutdown (the grace period) fire.
func wait(done <-chan error, clk clock.Clock) error {
	fake, ok := clk.(*clock.Fake)
	if !ok {
		return <-done
	}
	tick := time.NewTicker(10 * time.Millisecond) // polling Run, not waiting for time to pass
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			fake.Advance(time.Second)
		}
	}
}
