package daemon

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"testing"
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
