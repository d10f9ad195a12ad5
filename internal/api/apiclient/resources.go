package apiclient

import (
	"context"
	"net/url"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// ResourceList returns every managed resource and when the last inventory ran.
func (c *Client) ResourceList(ctx context.Context) (apitype.ResourceList, error) {
	var l apitype.ResourceList
	_, err := c.do(ctx, "GET", "/api/v1/resources", nil, nil, &l)
	return l, err
}

// ResourceGet returns one managed resource.
func (c *Client) ResourceGet(ctx context.Context, id string) (apitype.Resource, error) {
	var r apitype.Resource
	_, err := c.do(ctx, "GET", "/api/v1/resources/"+url.PathEscape(id), nil, nil, &r)
	return r, err
}

// Inventory makes the daemon take an inventory now and waits for it.
func (c *Client) Inventory(ctx context.Context) (apitype.InventoryResult, error) {
	var res apitype.InventoryResult
	_, err := c.do(ctx, "POST", "/api/v1/resources/inventory", nil, nil, &res)
	return res, err
}
