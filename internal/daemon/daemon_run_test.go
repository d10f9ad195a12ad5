package daemon_test

import (
	"net"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// TestNewRun starts the daemon in-process on the embedded store, talks to
// its API, and stops it by cancelling the context.
func TestNewRun(t *testing.T) {
	d := daemontest.Start(t, daemontest.Options{Args: []string{"--demo", "--node", "solo"}})
	ctx := t.Context()
	h, err := d.Client.Health(ctx)
	if err != nil || h.Status != "ok" {
		t.Fatalf("health = %+v, %v", h, err)
	}
	jobs, err := d.Client.JobListAll(ctx)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("demo jobs = %d, %v", len(jobs), err)
	}
	// Every route the daemon serves, its own additions included, has a
	// rule in the permission table.
	routes := daemon.APIRoutes(d.Daemon)
	for _, p := range routes {
		if _, _, ok := httpapi.RoutePermission(p); !ok && p != "GET /healthz" {
			t.Errorf("API route %s has no permission rule", p)
		}
	}
	if n := len(routes); n < 30 {
		t.Errorf("the daemon lists %d routes; the permission check looked at too few", n)
	}
	d.Stop() // fails the test if Run returns an error
	// Run closed the listener.
	if conn, err := net.Dial("tcp", d.Addr()); err == nil {
		conn.Close()
		t.Error("the daemon still listens after Run returned")
	}
}
