package apiclient

import (
	"context"
	"net/url"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// ResourceList returns every managed resource and when the last inventory ran.
func (c *Client) ResourceList(ctx context.Context) (apitype.ResourceList, error) {
	return call[apitype.ResourceList](ctx, c, "GET", "/api/v1/resources", nil, nil)
}

// ResourceGet returns one managed resource.
func (c *Client) ResourceGet(ctx context.Context, id string) (apitype.Resource, error) {
	return call[apitype.Resource](ctx, c, "GET", "/api/v1/resources/"+url.PathEscape(id), nil, nil)
}

// Inventory makes the daemon take an inventory now and waits for it.
func (c *Client) Inventory(ctx context.Context) (apitype.InventoryResult, error) {
	return call[apitype.InventoryResult](ctx, c, "POST", "/api/v1/resources/inventory", nil, nil)
}
