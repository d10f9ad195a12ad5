package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// Windows returns the daemon's named weekly windows (GET /api/v1/windows),
// read at at, or at the daemon's now when at is zero.
func (c *Client) Windows(ctx context.Context, at time.Time) (apitype.WindowList, error) {
	var q url.Values
	if !at.IsZero() {
		q = url.Values{"at": {at.Format(time.RFC3339)}}
	}
	return call[apitype.WindowList](ctx, c, http.MethodGet, "/api/v1/windows", q, nil)
}
