package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// usesServer reports whether apply's arguments ask for an apply on the
// daemon (`almanac apply --server [URL]`) rather than a local one.
func usesServer(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--server" || a == "-server" || strings.HasPrefix(a, "--server=") || strings.HasPrefix(a, "-server=") {
			return true
		}
	}
	return false
}

// runApplyServer asks the daemon's agent for an apply of its manifests
// (POST /api/v1/applies) and says whether it was queued or joined one
// already waiting. The report shows in 'almanac get applies'.
func runApplyServer(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("apply")
	reason := fs.String("reason", "cli", "recorded as the apply's trigger")
	output := fs.String("o", "", "output format: table or json")
	cf := addClientFlags(fs)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return usagef("apply --server: %v (usage: almanac apply --server URL [--token T] [--reason R] [-o json])", err)
	}
	if len(pos) > 0 {
		return usagef("apply --server: the daemon applies its own --manifests; unexpected argument %q", pos[0])
	}
	jsonOut, err := outputFormat(*output)
	if err != nil {
		return usagef("apply --server: %w", err)
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	q, err := c.ApplyTrigger(ctx, *reason)
	if err != nil {
		return agentErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, q)
	}
	if q.Agent.Standby {
		return fmt.Errorf("apply --server: %s does not lead its cluster and applies nothing; send the request to the leader (GET /api/v1/cluster names it)", q.Agent.Host)
	}
	if q.Queued {
		fmt.Fprintf(e.stdout, "apply queued on %s (see 'almanac get applies')\n", q.Agent.Host)
	} else {
		fmt.Fprintf(e.stdout, "an apply was already queued on %s; this request joined it\n", q.Agent.Host)
	}
	return nil
}
