package daemon

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// clusterCollector exports the cluster view's liveness on /metrics, read
// from the store when scraped: how many nodes are alive, suspect and down,
// and the age of each node's last heartbeat.
type clusterCollector struct {
	c         *clusterNode
	nodes     *prometheus.Desc
	heartbeat *prometheus.Desc
}

func newClusterCollector(c *clusterNode) *clusterCollector {
	return &clusterCollector{c: c,
		nodes: prometheus.NewDesc("almanac_cluster_nodes",
			"Nodes in the cluster by liveness (alive, suspect, down), judged from their heartbeats.", []string{"liveness"}, nil),
		heartbeat: prometheus.NewDesc("almanac_node_heartbeat_age_seconds",
			"Time since each node's last heartbeat, by the store's clock.", []string{"node"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (m *clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.nodes
	ch <- m.heartbeat
}

// Collect implements prometheus.Collector.
func (m *clusterCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := m.c.Cluster(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(m.nodes, err)
		return
	}
	count := map[string]int{apitype.NodeAlive: 0, apitype.NodeSuspect: 0, apitype.NodeDown: 0}
	for _, n := range cl.Nodes {
		count[n.Liveness]++
		if !n.HeartbeatAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(m.heartbeat, prometheus.GaugeValue, cl.Now.Sub(n.HeartbeatAt).Seconds(), n.ID)
		}
	}
	for l, c := range count {
		ch <- prometheus.MustNewConstMetric(m.nodes, prometheus.GaugeValue, float64(c), l)
	}
}
