package daemon

import (
	"context"
	"flag"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
)

// TestClusterLiveness: on PostgreSQL the cluster view judges each node by
// its last heartbeat against the lease TTL (alive, suspect, down with the
// time it went silent), and /metrics counts the nodes by liveness.
func TestClusterLiveness(t *testing.T) {
	ctx := context.Background()
	clk := clock.Real{}
	url := pgtest.Schema(t)
	st, err := openPostgres(ctx, url, clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var o Config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--node", "sched-a", "--listen", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	c, _, _, err := joinCluster(ctx, backend{Store: st, pg: st}, o, "127.0.0.1:0", clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	pg := st.Store
	now := time.Now()
	// sched-b paused for two TTLs; sched-c was killed two minutes ago.
	for _, n := range []pgstore.Node{
		{ID: "sched-b", Instance: "b", HeartbeatAt: now.Add(-2 * c.ttl)},
		{ID: "sched-c", Instance: "c", HeartbeatAt: now.Add(-2 * time.Minute)},
	} {
		if err := pg.NodeHeartbeat(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := c.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sched-a": apitype.NodeAlive, "sched-b": apitype.NodeSuspect, "sched-c": apitype.NodeDown}
	for id, w := range want {
		n, ok := cl.Node(id)
		if !ok {
			t.Fatalf("the cluster view lacks %s: %+v", id, cl.Nodes)
		}
		if n.Liveness != w {
			t.Errorf("%s is %q, want %q", id, n.Liveness, w)
		}
		if (n.SilentSince != nil) != (w != apitype.NodeAlive) {
			t.Errorf("%s silent since %v", id, n.SilentSince)
		}
		if n.SilentSince != nil && !n.SilentSince.Equal(n.HeartbeatAt) {
			t.Errorf("%s silent since %s, not its last heartbeat %s", id, n.SilentSince, n.HeartbeatAt)
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(newClusterCollector(c))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	ages := 0
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "almanac_cluster_nodes":
				got[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			case "almanac_node_heartbeat_age_seconds":
				ages++
				if m.GetLabel()[0].GetValue() == "sched-c" && m.GetGauge().GetValue() < 100 {
					t.Errorf("sched-c's heartbeat age is %v s, want about 120", m.GetGauge().GetValue())
				}
			}
		}
	}
	if got[apitype.NodeAlive] != 1 || got[apitype.NodeSuspect] != 1 || got[apitype.NodeDown] != 1 || ages != 3 {
		t.Errorf("almanac_cluster_nodes %v, %d heartbeat ages; want one node of each liveness and 3 ages", got, ages)
	}
}
