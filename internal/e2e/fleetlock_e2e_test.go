package e2e

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetLockThroughTheDaemon sends Zincati's exact requests to a real
// daemon: a slot with the group's secret in the base URL, the group at
// capacity, a window that is closed, and the release. No bearer token is
// sent, as Zincati sends none.
func TestFleetLockThroughTheDaemon(t *testing.T) {
	bin := almanacBinary(t)
	t.Setenv("ALMANAC_TOKEN", e2eToken)
	if _, errOut, code := runCLI(t, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--reboot-group", "db=1@no-such-window"); code != exitUsage || !strings.Contains(errOut, "no-such-window") {
		t.Errorf("a group naming an unknown window: exit %d, %q", code, errOut)
	}
	d := startDaemon(t, bin, t.TempDir(), "--reboot-group", "workers=1", "--fleetlock-secret", "workers=letmereboot")
	base := d.url + "/fleetlock/letmereboot/v1/"
	steps := []struct {
		url, id string
		code    int
		kind    string
	}{
		{base + "pre-reboot", "m1", 200, ""},
		{base + "pre-reboot", "m1", 200, ""},
		{base + "pre-reboot", "m2", 409, "failed_lock_semaphore_full"},
		{d.url + "/fleetlock/v1/pre-reboot", "m2", 403, "unauthorized"},
		{d.url + "/fleetlock/guessing/v1/pre-reboot", "m2", 403, "unauthorized"},
		{base + "steady-state", "m1", 200, ""},
		{base + "pre-reboot", "m2", 200, ""},
	}
	for i, s := range steps {
		code, e := zincatiCall(t, s.url, s.id, "workers")
		if code != s.code || e["kind"] != s.kind {
			t.Fatalf("step %d: %s for %s = %d %v, want %d %s", i, s.url, s.id, code, e, s.code, s.kind)
		}
	}
	if out := d.cli(t, bin, "get", "events", "--kind", "reboot"); !strings.Contains(out, "m2 holds a reboot slot in group workers") {
		t.Errorf("the event log lacks the slots:\n%s", out)
	}
	resp, err := authGet(d.url + "/api/v1/reboot-groups")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Items []struct {
			Name    string `json:"name"`
			Max     int    `json:"max_holders"`
			Auth    string `json:"auth"`
			Holders []struct {
				ID string `json:"id"`
			} `json:"holders"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "workers" || list.Items[0].Max != 1 || list.Items[0].Auth != "secret" ||
		len(list.Items[0].Holders) != 1 || list.Items[0].Holders[0].ID != "m2" {
		t.Errorf("GET /api/v1/reboot-groups = %+v", list)
	}
}

// TestRebootGroupFromManifest declares a reboot group in a manifest
// loaded by serve --manifests.
func TestRebootGroupFromManifest(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	replaceManifest(t, filepath.Join(dir, "fleet.pp"), "reboot_group { 'db': max_holders => 1, secret => 'db-secret-1' }\n")
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	base := d.url + "/fleetlock/db-secret-1/v1/pre-reboot"
	if code, e := zincatiCall(t, base, "db-1", "db"); code != 200 {
		t.Fatalf("first member: %d %v", code, e)
	}
	if code, e := zincatiCall(t, base, "db-2", "db"); code != 409 || e["kind"] != "failed_lock_semaphore_full" {
		t.Errorf("second member: %d %v", code, e)
	}
}

func zincatiCall(t *testing.T, url, id, group string) (int, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"client_params":{"group":"`+group+`","id":"`+id+`"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("fleet-lock-protocol", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e map[string]string
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e
}
