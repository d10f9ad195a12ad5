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
