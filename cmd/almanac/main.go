// Command almanac decides when work may happen and in what order, and then does it.
//
// See README.md and docs/ for the commands; this file only wires signals and the exit code.
package main

import (
	"context"
	"os"

	"github.com/almanac-sh/almanac/internal/cli"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

func main() {
	// A run's supervisor is this binary in a hidden mode (package
	// supervisor); it handles its own signals.
	if len(os.Args) > 1 && os.Args[1] == supervisor.Mode {
		os.Exit(supervisor.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	supervisor.Enable()
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
