package apiclient

import (
	"context"
	"net/http"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// Cluster returns the nodes sharing the daemon's store, who leads and in
// which term (GET /api/v1/cluster).
func (c *Client) Cluster(ctx context.Context) (apitype.Cluster, error) {
	return call[apitype.Cluster](ctx, c, http.MethodGet, "/api/v1/cluster", nil, nil)
}
