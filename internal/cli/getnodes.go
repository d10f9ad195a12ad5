package cli

import (
	"context"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/nodeselect"
)

// getNodes prints the nodes sharing the daemon's store (`almanac get
// nodes`): who leads, where each runs, its version and labels.
func getNodes(ctx context.Context, e *env, c *apiclient.Client, jsonOut bool) error {
	cl, err := c.Cluster(ctx)
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, cl)
	}
	t := newTable(e.stdout, "NAME", "LIVENESS", "ROLE", "ADDRESS", "HOST", "PID", "VERSION", "HEARTBEAT", "LABELS")
	for _, n := range cl.Nodes {
		role := "follower"
		switch {
		case n.Leader:
			role = "leader"
		case n.Liveness == apitype.NodeDown:
			role = "" // a down node takes no part
		}
		pid, hb := "", ""
		if n.PID != 0 {
			pid = strconv.Itoa(n.PID)
		}
		if !n.HeartbeatAt.IsZero() {
			hb = fmtTime(&n.HeartbeatAt)
		}
		t.row(n.ID, livenessText(n), role, n.Address, n.Host, pid, n.Version, hb, nodeselect.Labels(n.Labels).String())
	}
	return t.flush()
}

// livenessText is a node's liveness as the CLI prints it: "alive", or
// "suspect since T" / "down since T" with its last heartbeat; "" from a
// daemon that does not judge liveness.
func livenessText(n apitype.ClusterNode) string {
	if n.SilentSince == nil {
		return n.Liveness
	}
	return n.Liveness + " since " + fmtTime(n.SilentSince)
}
