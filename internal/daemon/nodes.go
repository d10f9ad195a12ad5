package daemon

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"time"

	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/nodeselect"
)

// This file tells the job controller which nodes a fanned-out job's
// instant goes to (docs/fleet-jobs.md): on PostgreSQL the cluster's
// registered nodes, on SQLite this daemon alone.

// goneAfter is how long a node may stay silent and still be given runs
// (which wait for it, within their starting deadline): a node silent for
// longer is taken as gone. A node that stops cleanly leaves at once.
const goneAfter = time.Hour

// nodeLister implements job.NodeLister for the daemon.
type nodeLister struct {
	c *clusterNode
}

// ListNodes implements job.NodeLister.
func (l nodeLister) ListNodes(ctx context.Context) ([]job.NodeInfo, error) {
	c := l.c
	if c.node == nil {
		return []job.NodeInfo{{Name: c.self, Labels: maps.Clone(c.labels), Alive: true}}, nil
	}
	cl, err := c.node.Cluster(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the cluster's nodes: %w", err)
	}
	out := make([]job.NodeInfo, 0, len(cl.Nodes))
	for _, n := range cl.Nodes {
		age := cl.Now.Sub(n.HeartbeatAt)
		if age > goneAfter {
			continue
		}
		out = append(out, job.NodeInfo{Name: n.ID, Labels: n.Labels, Alive: age <= c.ttl})
	}
	return out, nil
}

// nodeWindowFlag is --node-window: it sets the node's window label, so the
// window travels with the node's other labels.
type nodeWindowFlag struct{ l *labelFlag }

func (w nodeWindowFlag) String() string {
	if w.l == nil {
		return ""
	}
	return w.l.set[job.WindowLabel]
}

func (w nodeWindowFlag) Set(v string) error {
	if err := nodeselect.CheckValue(v); err != nil {
		return fmt.Errorf("window name %q cannot be a node label value: %w", v, err)
	}
	return w.l.Set(job.WindowLabel + "=" + v)
}

// addNodeWindowFlag declares --node-window on fs.
func addNodeWindowFlag(fs *flag.FlagSet, l *labelFlag) {
	fs.Var(nodeWindowFlag{l}, "node-window", "the window this node's runs of fleet-wide jobs wait for, unless the job names one for it (a window or schedule name)")
}

// nodeWindow is the window --node-window gave, or "".
func (o *Config) nodeWindow() string { return o.labels.set[job.WindowLabel] }
