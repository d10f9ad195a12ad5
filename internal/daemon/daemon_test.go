package daemon

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
)

// config parses serve's flags as the CLI does.
func config(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	cfg := Config{ErrOut: &bytes.Buffer{}, Version: "test"}
	cfg.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	return cfg, cfg.Check(fs)
}

// TestNewRun starts the daemon in-process on the embedded store, talks to
// its API, and stops it by cancelling the context.
func TestNewRun(t *testing.T) {
	data := t.TempDir()
	cfg, err := config(t, "--data", data, "--listen", "127.0.0.1:0", "--token", "in-process-token", "--demo", "--node", "solo")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()

	c, err := apiclient.New("http://"+d.Addr(), apiclient.WithToken("in-process-token"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Health(ctx)
	if err != nil || h.Status != "ok" {
		t.Fatalf("health = %+v, %v", h, err)
	}
	jobs, err := c.JobListAll(ctx)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("demo jobs = %d, %v", len(jobs), err)
	}
	// Every route the daemon serves, its own additions included, has a
	// rule in the permission table.
	for _, p := range d.api.Routes() {
		if _, _, ok := httpapi.RoutePermission(p); !ok && p != "GET /healthz" {
			t.Errorf("API route %s has no permission rule", p)
		}
	}
	if n := len(d.api.Routes()); n < 30 {
		t.Errorf("the daemon lists %d routes; the permission check looked at too few", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	// Run closed the listener.
	if conn, err := net.Dial("tcp", d.Addr()); err == nil {
		conn.Close()
		t.Error("the daemon still listens after Run returned")
	}
}

// TestNewFailsCleanly: a start refused half-way (here, a busy port) leaves
// nothing open, and a configuration mistake is a *UsageError.
func TestNewFailsCleanly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg, err := config(t, "--data", t.TempDir(), "--listen", ln.Addr().String(), "--token", "in-process-token")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("New on a busy port succeeded")
	}
	tests := []struct {
		name string
		args []string
	}{
		{"bad listen", []string{"--listen", "nope"}},
		{"negative grace", []string{"--grace", "-1s"}},
		{"no-auth off loopback", []string{"--insecure-no-auth", "--listen", "0.0.0.0:0"}},
		{"missing manifests", []string{"--manifests", "/nonexistent/almanac"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config(t, tt.args...)
			var u *UsageError
			if !errors.As(err, &u) {
				t.Fatalf("Check(%q) = %v, want a *UsageError", tt.args, err)
			}
		})
	}
}
