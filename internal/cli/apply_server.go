package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
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
	cs, err := cf.settings()
	if err != nil {
		return err
	}
	c, err := cs.build()
	if err != nil {
		return err
	}
	q, err := c.ApplyTrigger(ctx, *reason)
	if err != nil {
		return agentErr(err)
	}
	if q.Agent.Standby {
		// A follower applies nothing: hand the request to the leader,
		// as a user who asked "apply now" means the cluster.
		leaderURL, lerr := leaderServer(ctx, c)
		if lerr != nil {
			return fmt.Errorf("apply --server: %s does not lead its cluster and applies nothing, and the leader could not be reached: %w", q.Agent.Host, lerr)
		}
		// The same token and CA; a certificate pinned from this host's
		// configuration is this node's, not the leader's.
		ls := cs
		ls.server, ls.pin = leaderURL, nil
		lc, err := ls.build()
		if err != nil {
			return fmt.Errorf("apply --server: leader address %s: %w", leaderURL, err)
		}
		if q, err = lc.ApplyTrigger(ctx, *reason); err != nil {
			return fmt.Errorf("apply --server: forwarding to the leader at %s: %w", leaderURL, agentErr(err))
		}
		if q.Agent.Standby {
			return fmt.Errorf("apply --server: neither %s nor %s leads its cluster now (a leader change is under way?); try again", c.Server(), leaderURL)
		}
		if !jsonOut {
			fmt.Fprintf(e.stdout, "%s does not lead its cluster; forwarded to the leader at %s\n", c.Server(), leaderURL)
		}
	}
	if jsonOut {
		return writeJSONOut(e.stdout, q)
	}
	if q.Queued {
		fmt.Fprintf(e.stdout, "apply queued on %s (see 'almanac get applies')\n", q.Agent.Host)
	} else {
		fmt.Fprintf(e.stdout, "an apply was already queued on %s; this request joined it\n", q.Agent.Host)
	}
	return nil
}

// leaderServer asks the daemon behind c which node leads its cluster and
// returns that node's API URL. A node listening on every interface
// (0.0.0.0:8080, :8080) is reached at the host the user named for c.
func leaderServer(ctx context.Context, c *apiclient.Client) (string, error) {
	cl, err := c.Cluster(ctx)
	if err != nil {
		return "", apiErr(err)
	}
	if cl.Leader == "" {
		return "", errors.New("no node leads the cluster now")
	}
	for _, n := range cl.Nodes {
		if n.ID != cl.Leader {
			continue
		}
		host, port, err := net.SplitHostPort(n.Address)
		if err != nil {
			return "", fmt.Errorf("leader %s registered the address %q: %w", n.ID, n.Address, err)
		}
		base, err := url.Parse(c.Server())
		if err != nil {
			return "", err
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			host = base.Hostname()
		}
		return base.Scheme + "://" + net.JoinHostPort(host, port), nil
	}
	return "", fmt.Errorf("leader %s is not among the registered nodes", cl.Leader)
}
