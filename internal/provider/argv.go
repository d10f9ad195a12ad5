package provider

import (
	"context"
	"fmt"
	"strings"
)

// Runner runs a command given as argv and returns its combined output and
// exit status; an error means it could not run at all. Providers that call
// system tools take one, so tests can stand in for the tools.
type Runner func(ctx context.Context, argv []string) (string, int, error)

// RunArgv is the Runner that runs argv on this host, without a shell
// reading it, with a non-interactive Debian frontend and the C locale (so
// the tools' output reads the same everywhere).
func RunArgv(ctx context.Context, argv []string) (string, int, error) {
	line := make([]string, len(argv))
	for i, a := range argv {
		line[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return Run(ctx, Command{Line: strings.Join(line, " "),
		Env: []string{"DEBIAN_FRONTEND=noninteractive", "LC_ALL=C"}})
}

// Execute runs argv with r (RunArgv when nil) and turns a non-zero exit
// into Puppet's message: "Execution of 'argv' returned N: output".
func Execute(ctx context.Context, r Runner, argv ...string) (string, error) {
	if r == nil {
		r = RunArgv
	}
	out, code, err := r(ctx, argv)
	if err != nil {
		return out, fmt.Errorf("Could not execute '%s': %w", strings.Join(argv, " "), err)
	}
	if code != 0 {
		return out, fmt.Errorf("Execution of '%s' returned %d: %s", strings.Join(argv, " "), code, strings.TrimSpace(out))
	}
	return out, nil
}

// Name is a resource's name attribute, or its title when the name is unset
// (the namevar's default).
func Name(params map[string]any, title string) string {
	if n := String(params, "name"); n != "" {
		return n
	}
	return title
}
