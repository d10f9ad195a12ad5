package pgstore

import (
	"context"
	"maps"
	"testing"
	"time"
)

// TestNodeLabels: the labels a node registers with are what the cluster
// view reads back, a new registration replaces them, and heartbeats keep
// them.
func TestNodeLabels(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	n := Node{ID: "web-1", Instance: "i-1", StartedAt: t0, HeartbeatAt: t0,
		Labels: map[string]string{"role": "web", "example.com/zone": "eu-1"}}
	bare := Node{ID: "bare", Instance: "i-2", StartedAt: t0, HeartbeatAt: t0}
	for _, x := range []Node{n, bare} {
		if err := s.NodeRegister(ctx, x, time.Minute, nil); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]map[string]string {
		t.Helper()
		c, err := s.Cluster(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]string{}
		for _, x := range c.Nodes {
			out[x.ID] = x.Labels
		}
		return out
	}
	got := read()
	if !maps.Equal(got["web-1"], n.Labels) || got["bare"] != nil {
		t.Fatalf("labels read back: %v", got)
	}
	n.Labels = map[string]string{"role": "db"}
	n.HeartbeatAt = t0.Add(time.Second)
	if err := s.NodeRegister(ctx, n, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	n.HeartbeatAt = t0.Add(2 * time.Second)
	if err := s.NodeHeartbeat(ctx, n); err != nil {
		t.Fatal(err)
	}
	if got := read(); !maps.Equal(got["web-1"], map[string]string{"role": "db"}) {
		t.Errorf("after a restart with other labels: %v", got["web-1"])
	}
}
