package cli

import (
	"context"
	"fmt"
)

func init() { register("version", "print the version", runVersion) }

func runVersion(_ context.Context, e *env, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		return newHelp(newFlagSet("version"))
	}
	if len(args) > 0 {
		return usagef("version: unexpected argument %q", args[0])
	}
	fmt.Fprintf(e.stdout, "almanac %s\n", Version)
	return nil
}
