package daemon_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestDemoNodesInDaemon runs `serve --demo` in-process on a fake clock:
// at 14:05 rotate-logs runs once on each of the five nodes and
// rolling-patch rolls over them two at a time; the simulated nodes show in
// the cluster view and the job page draws the instant by node.
func TestDemoNodesInDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon; skipped with -short")
	}
	clk := clock.NewFake(time.Date(2025, 3, 12, 14, 4, 58, 0, time.UTC))
	// Stopping advances the fake clock: the shutdown grace runs on it too.
	d := daemontest.Start(t, daemontest.Options{Clock: clk, Token: "demo-token", Args: []string{"--demo", "--node", "solo", "--grace", "1s"}})
	ctx := t.Context()
	instant := time.Date(2025, 3, 12, 14, 5, 0, 0, time.UTC)
	instantRuns := func(job string) map[string]store.Run {
		t.Helper()
		runs, _, err := daemon.StoreOf(d.Daemon).RunList(ctx, store.RunListParams{Job: job, ScheduledTime: instant, Page: store.Page{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Run{}
		for _, r := range runs {
			out[r.Target] = r
		}
		return out
	}
	nodes := []string{"demo-db-1", "demo-db-2", "demo-web-1", "demo-web-2", "solo"}
	deadline := time.Now().Add(60 * time.Second)
	maxActive, rotated := 0, false
	for {
		rotate, rolling := instantRuns("rotate-logs"), instantRuns("rolling-patch")
		active, ended := 0, 0
		for _, r := range rolling {
			if r.State == store.RunRunning || (r.State == store.RunPending && !r.ReadyAt.IsZero()) {
				active++
			}
			if r.State.Terminal() {
				ended++
			}
		}
		maxActive = max(maxActive, active)
		if !rotated && len(rotate) == len(nodes) {
			rotated = true
			for _, r := range rotate {
				rotated = rotated && r.State.Terminal()
			}
		}
		if rotated && ended >= 3 {
			if len(rolling) != len(nodes) {
				t.Fatalf("rolling-patch has runs for %d nodes, want %d", len(rolling), len(nodes))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("within 60 s: rotate-logs %v, rolling-patch %v", rotate, rolling)
		}
		if active <= 2 {
			clk.Advance(time.Second)
		}
		time.Sleep(5 * time.Millisecond) // polling the daemon, not waiting for time to pass
	}
	if maxActive != 2 {
		t.Errorf("rolling-patch had at most %d nodes active at once, want max_parallel's 2", maxActive)
	}
	for _, n := range nodes {
		r := instantRuns("rotate-logs")[n]
		if r.Node != n {
			t.Errorf("rotate-logs for %s ran on %q", n, r.Node)
		}
		if want := store.RunSucceeded; n != daemon.DemoFailingNode && r.State != want {
			t.Errorf("rotate-logs on %s: %s, want %s", n, r.State, want)
		}
	}

	cl, err := d.Client.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range cl.Nodes {
		ids = append(ids, n.ID)
	}
	if strings.Join(ids, " ") != "solo demo-db-1 demo-db-2 demo-web-1 demo-web-2" {
		t.Errorf("cluster nodes %v", ids)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.URL+"/jobs/rotate-logs", nil)
	req.Header.Set("Authorization", "Bearer demo-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	for _, n := range nodes {
		if !strings.Contains(page, `<th scope="col" data-col="`+n+`">`) {
			t.Errorf("the job page's matrix has no column for %s", n)
		}
	}
	if !strings.Contains(page, `<tr data-instant="2025-03-12T14:05:00Z">`) || !strings.Contains(page, `<td class="succeeded" data-col="demo-web-1"`) {
		t.Error("the job page's matrix lacks the 14:05 instant or demo-web-1's success")
	}
}
