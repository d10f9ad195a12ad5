package webui

import (
	"context"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// nodeLiveness reads the cluster view once and returns the liveness of
// every node it lists; nil when it cannot be read (the pages then say
// nothing of liveness rather than fail).
func (s *server) nodeLiveness(ctx context.Context) map[string]apitype.ClusterNode {
	cl, err := s.cfg.Backend.Cluster(ctx)
	if err != nil || len(cl.Nodes) == 0 {
		return nil
	}
	out := make(map[string]apitype.ClusterNode, len(cl.Nodes))
	for _, n := range cl.Nodes {
		out[n.ID] = n
	}
	return out
}

// markLiveness sets NodeLiveness on the active runs among runs whose node
// (the one that claimed it, else the one it is for) is suspect or down;
// it reads the cluster only when some run is active.
func (s *server) markLiveness(ctx context.Context, runs []Run) {
	var nodes map[string]apitype.ClusterNode
	read := false
	for i := range runs {
		r := &runs[i]
		node := r.livenessNode()
		if !r.Active() || node == "" {
			continue
		}
		if !read {
			nodes, read = s.nodeLiveness(ctx), true
		}
		if n, ok := nodes[node]; ok && n.Liveness != apitype.NodeAlive && n.Liveness != "" {
			r.NodeLiveness = n.Liveness
		}
	}
}

// livenessNode is the node whose liveness bears on the run: the node that
// claimed it, else the node it is for.
func (r Run) livenessNode() string {
	if r.Node != "" {
		return r.Node
	}
	return r.Target
}
