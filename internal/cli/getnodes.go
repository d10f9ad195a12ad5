package cli

import (
	"context"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
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
	t := newTable(e.stdout, "NAME", "ROLE", "ADDRESS", "HOST", "PID", "VERSION", "HEARTBEAT", "LABELS")
	for _, n := range cl.Nodes {
		role := "follower"
		if n.Leader {
			role = "leader"
		}
		pid, hb := "", ""
		if n.PID != 0 {
			pid = strconv.Itoa(n.PID)
		}
		if !n.HeartbeatAt.IsZero() {
			hb = fmtTime(&n.HeartbeatAt)
		}
		t.row(n.ID, role, n.Address, n.Host, pid, n.Version, hb, nodeselect.Labels(n.Labels).String())
	}
	return t.flush()
}
