package daemon_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

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
	d := daemontest.Start(t, daemontest.Options{Token: "in-process-token", Args: []string{
		"--reboot-group", "workers=1", "--fleetlock-allow", "127.0.0.1", "--manifests", dir}})
	base := d.URL

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
	out := d.Log.String()
	if !strings.Contains(out, "base_url="+base+"/fleetlock/") {
		t.Errorf("the start-up log does not give the base URL with its slash:\n%s", out)
	}
	if !strings.Contains(out, `window \"no-such-schedule\" is no schedule`) {
		t.Errorf("no warning for the reboot_group's unknown window:\n%s", out)
	}
}
