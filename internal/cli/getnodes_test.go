package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
)

// fixedCluster is a ClusterSource answering with one snapshot.
type fixedCluster apitype.Cluster

func (f fixedCluster) Cluster(context.Context) (apitype.Cluster, error) {
	return apitype.Cluster(f), nil
}

// judged sets every node's liveness at now for a lease TTL of ttl, as the
// daemon does.
func (f fixedCluster) judged(now time.Time, ttl time.Duration) fixedCluster {
	for i := range f.Nodes {
		f.Nodes[i].SetLiveness(now, ttl)
	}
	return f
}

// TestGetNodes runs `almanac get nodes` against the real API handler: the
// table shows role and labels, JSON carries the labels, and text other
// nodes wrote is escaped on the terminal.
func TestGetNodes(t *testing.T) {
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	st := apitest.NewMemStore()
	api := httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: at}, Clock: clock.NewFake(at)})
	api.Handle("GET /api/v1/cluster", httpapi.ClusterHandler(fixedCluster{Leader: "db-1", Self: "web-1", Term: 3, Now: at,
		Nodes: []apitype.ClusterNode{
			{ID: "db-1", Address: "10.0.0.1:8080", Version: "2.1", Host: "db1", PID: 42, HeartbeatAt: at, Leader: true,
				Labels: map[string]string{"zone": "eu", "role": "db"}},
			{ID: "web-1", Address: "10.0.0.2:8080", Version: "2.1\x1b[2J", HeartbeatAt: at},
			{ID: "web-2", HeartbeatAt: at.Add(-20 * time.Second)},
			{ID: "web-3", HeartbeatAt: at.Add(-2 * time.Minute)},
		}}.judged(at, 10*time.Second)))
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)

	out, errOut, code := runCLI(t, "get", "nodes", "--server="+ts.URL)
	if code != 0 {
		t.Fatalf("get nodes: %d %s", code, errOut)
	}
	for _, re := range []string{
		`(?m)^NAME\s+LIVENESS\s+ROLE\s+ADDRESS\s+HOST\s+PID\s+VERSION\s+HEARTBEAT\s+LABELS$`,
		`(?m)^db-1\s+alive\s+leader\s+10\.0\.0\.1:8080\s+db1\s+42\s+2\.1\s+2030-06-01T12:00:00Z\s+role=db,zone=eu$`,
		`(?m)^web-1\s+alive\s+follower\s+10\.0\.0\.2:8080\s+-\s+-\s+2\.1\\x1b\[2J\s+2030-06-01T12:00:00Z\s+-$`,
		`(?m)^web-2\s+suspect since 2030-06-01T11:59:40Z\s+follower\s`,
		`(?m)^web-3\s+down since 2030-06-01T11:58:00Z\s+-\s`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("control character reached the terminal: %q", out)
	}
	out, _, code = runCLI(t, "get", "nodes", "-o", "json", "--server="+ts.URL)
	var cl apitype.Cluster
	if code != 0 || json.Unmarshal([]byte(out), &cl) != nil || len(cl.Nodes) != 4 || cl.Nodes[0].Labels["role"] != "db" ||
		cl.Nodes[3].Liveness != apitype.NodeDown || cl.Nodes[3].SilentSince == nil {
		t.Fatalf("get nodes -o json: %d %s", code, out)
	}
	if _, errOut, code = runCLI(t, "get", "nodes", "--state", "x", "--server="+ts.URL); code != exitUsage || !strings.Contains(errOut, "--state") {
		t.Errorf("get nodes --state: %d %q", code, errOut)
	}
}
