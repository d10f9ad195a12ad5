package httpapi

import (
	"context"
	"net/http"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// ClusterSource answers GET /api/v1/cluster.
type ClusterSource interface {
	Cluster(ctx context.Context) (apitype.Cluster, error)
}

// ClusterHandler serves GET /api/v1/cluster from src. The daemon registers
// it with Server.Handle, so it shares the API's authentication.
func ClusterHandler(src ClusterSource) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := src.Cluster(r.Context())
		if err != nil {
			writeError(w, &apitype.Error{Code: apitype.CodeUnavailable, Message: "cannot read the cluster state: " + err.Error()})
			return
		}
		if c.Nodes == nil {
			c.Nodes = []apitype.ClusterNode{}
		}
		writeJSON(w, http.StatusOK, c)
	})
}

// markLiveness sets NodeLiveness on the active runs among runs whose node
// the cluster view judges suspect or down. It reads the cluster once, and
// not at all when no run is active or no ClusterSource is configured; a
// cluster that cannot be read leaves the runs unmarked.
func (s *Server) markLiveness(ctx context.Context, runs []apitype.Run) {
	if s.cfg.Cluster == nil {
		return
	}
	var cl *apitype.Cluster
	for i := range runs {
		r := &runs[i]
		node := r.LivenessNode()
		if r.Finished() || node == "" {
			continue
		}
		if cl == nil {
			c, err := s.cfg.Cluster.Cluster(ctx)
			if err != nil {
				return
			}
			cl = &c
		}
		if n, ok := cl.Node(node); ok && n.Liveness != apitype.NodeAlive {
			r.NodeLiveness = n.Liveness
		} else if !ok && len(cl.Nodes) > 0 && r.State == apitype.RunRunning {
			// A running run's node that left the cluster is down.
			r.NodeLiveness = apitype.NodeDown
		}
	}
}
