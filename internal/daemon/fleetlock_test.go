package daemon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// TestRebootGroupFlags: names FleetLock clients cannot send and empty or
// malformed window references are usage errors at start.
func TestRebootGroupFlags(t *testing.T) {
	tests := []struct {
		flag string
		ok   bool
	}{
		{"workers=2", true},
		{"db.eu-1=1@weekend", true},
		{"bad name=1", false},
		{"x=1@", false},
		{"x=1@two words", false},
		{"=1", false},
		{"x=0", false},
		{"ünicode=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			f := rebootFlags{groups: listFlag{tt.flag}, maxHold: 1}
			err := f.check()
			var u *UsageError
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &u)) {
				t.Fatalf("--reboot-group %q: %v, want ok %v", tt.flag, err, tt.ok)
			}
		})
	}
}

// TestFleetLockWiring starts the daemon with a reboot group and checks
// what Zincati sees: the base URL in the log has its trailing slash, and
// a slash-less base URL gets FleetLock JSON at the root, not the web UI's
// login page. A manifest reboot_group naming a window that exists nowhere
// is warned about.
func TestFleetLockWiring(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fleet.pp"), []byte("reboot_group { 'db': window => 'no-such-schedule' }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config(t, "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--token", "in-process-token",
		"--reboot-group", "workers=1", "--fleetlock-allow", "127.0.0.1", "--manifests", dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs servetest.Log
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	base := "http://" + d.Addr()

	for _, tt := range []struct {
		path, kind string
		code       int
	}{
		{"/fleetlock/v1/pre-reboot", "", 200},
		{"/v1/pre-reboot", "missing_trailing_slash", 404},
		{"/v1/steady-state", "missing_trailing_slash", 404},
		{"/ui/v1/pre-reboot", "not_found", 404},
	} {
		req, _ := http.NewRequest(http.MethodPost, base+tt.path, strings.NewReader(`{"client_params":{"id":"m1","group":"workers"}}`))
		req.Header.Set("fleet-lock-protocol", "true")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || (tt.kind != "" && (resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), `"kind":"`+tt.kind+`"`))) {
			t.Errorf("%s = %d %s %q, want %d FleetLock JSON of kind %s", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.code, tt.kind)
		}
	}
	// Metrics name the group's slots.
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer in-process-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`almanac_fleetlock_slots_held{group="workers"} 1`, `almanac_fleetlock_slots_max{group="workers"} 1`, `almanac_fleetlock_refusals_total{kind="missing_trailing_slash"} 2`} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	out := logs.String()
	if !strings.Contains(out, "base_url="+base+"/fleetlock/") {
		t.Errorf("the start-up log does not give the base URL with its slash:\n%s", out)
	}
	if !strings.Contains(out, `window \"no-such-schedule\" is no schedule`) {
		t.Errorf("no warning for the reboot_group's unknown window:\n%s", out)
	}
}
