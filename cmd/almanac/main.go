// Command almanac decides when work may happen and in what order, and then does it.
//
// See README.md and docs/ for the commands; this file only wires signals and the exit code.
package main

import (
	"context"
	"os"

	"github.com/almanac-sh/almanac/internal/cli"
)

func main() {
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
