package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// ApplyTrigger asks the daemon's agent for an apply (POST /api/v1/applies).
func (c *Client) ApplyTrigger(ctx context.Context, reason string) (apitype.ApplyQueued, error) {
	return call[apitype.ApplyQueued](ctx, c, http.MethodPost, "/api/v1/applies", nil, apitype.ApplyRequest{Reason: reason})
}

// ApplyList lists apply reports newest first (GET /api/v1/applies); page is
// a previous answer's NextPage ("" for the first), limit 0 the default.
func (c *Client) ApplyList(ctx context.Context, page string, limit int) (apitype.ApplyList, error) {
	q := url.Values{}
	setPage(q, page, limit)
	return call[apitype.ApplyList](ctx, c, http.MethodGet, "/api/v1/applies", q, nil)
}

// ApplyGet returns one full apply report (GET /api/v1/applies/{id}).
func (c *Client) ApplyGet(ctx context.Context, id int64) (apitype.ApplyReport, error) {
	return call[apitype.ApplyReport](ctx, c, http.MethodGet, "/api/v1/applies/"+strconv.FormatInt(id, 10), nil, nil)
}
