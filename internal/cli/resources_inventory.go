package cli

import (
	"context"
	"fmt"
	"time"
)

func init() {
	register("inventory", "make the daemon list its managed resources now", escaped(runInventory))
}

func runInventory(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("inventory")
	cf := addOutputFlags(fs)
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("inventory: unexpected argument %q", pos[0])
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	res, err := c.Inventory(ctx)
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "inventory at %s: %d resources\n", res.Time.Format(time.RFC3339), res.Resources)
	return nil
}
