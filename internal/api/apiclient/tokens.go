package apiclient

import (
	"context"
	"net/url"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TokenCreate creates a named token (POST /api/v1/tokens) and returns it
// with its secret, which the daemon shows only this once.
func (c *Client) TokenCreate(ctx context.Context, req apitype.TokenCreateRequest) (apitype.TokenCreated, error) {
	return call[apitype.TokenCreated](ctx, c, "POST", "/api/v1/tokens", nil, req)
}

// TokenList lists the named tokens (GET /api/v1/tokens).
func (c *Client) TokenList(ctx context.Context) (apitype.TokenList, error) {
	return call[apitype.TokenList](ctx, c, "GET", "/api/v1/tokens", nil, nil)
}

// TokenRevoke revokes a named token (DELETE /api/v1/tokens/NAME).
func (c *Client) TokenRevoke(ctx context.Context, name string) error {
	_, err := c.do(ctx, "DELETE", "/api/v1/tokens/"+url.PathEscape(name), nil, nil, nil)
	return err
}

// Whoami says whose token the client sends (GET /api/v1/whoami).
func (c *Client) Whoami(ctx context.Context) (apitype.Whoami, error) {
	return call[apitype.Whoami](ctx, c, "GET", "/api/v1/whoami", nil, nil)
}
