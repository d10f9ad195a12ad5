package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cluster"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
)

// This file is serve's multi-node side: `--store postgres://...` opens the
// PostgreSQL store and makes the daemon one node of a cluster (package
// cluster). serve.go calls openPostgres, joinCluster, register and run.

// Lease settings read from the store URL's query (and removed before the
// URL reaches the driver): ?lease_ttl=5s&lease_renew=1s.
const (
	paramLeaseTTL   = "lease_ttl"
	paramLeaseRenew = "lease_renew"
)

// pgBackend is the PostgreSQL store plus the lease settings its URL gave.
type pgBackend struct {
	*pgstore.Store
	ttl, renew time.Duration
}

// openPostgres opens the PostgreSQL store at rawURL.
func openPostgres(ctx context.Context, rawURL string, clk clock.Clock, log *slog.Logger) (*pgBackend, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, usagef("serve: --store: %v", redactURL(err.Error()))
	}
	q := u.Query()
	b := &pgBackend{}
	for _, p := range []struct {
		name string
		dst  *time.Duration
	}{{paramLeaseTTL, &b.ttl}, {paramLeaseRenew, &b.renew}} {
		if v := q.Get(p.name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, usagef("serve: --store: %s=%q is not a positive duration (like 5s)", p.name, v)
			}
			*p.dst = d
		}
		q.Del(p.name)
	}
	ttl, renew := b.ttl, b.renew
	if ttl == 0 {
		ttl = 5 * time.Second
	}
	if renew == 0 {
		renew = time.Second
	}
	if renew >= ttl {
		return nil, usagef("serve: --store: %s=%s must be shorter than %s=%s", paramLeaseRenew, renew, paramLeaseTTL, ttl)
	}
	b.ttl, b.renew = ttl, renew
	u.RawQuery = q.Encode()
	st, err := pgstore.Open(ctx, u.String(), pgstore.WithClock(clk), pgstore.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", redactURL(rawURL), err)
	}
	b.Store = st
	return b, nil
}

// clusterNode is the daemon's membership of a cluster; node is nil on a
// single-node (SQLite) store, where the daemon always leads.
type clusterNode struct {
	node *cluster.Node
	pg   *pgstore.Store
	self string
	addr string
	// labels are this node's --node-label pairs.
	labels map[string]string
	// version is this build's, for the single-node cluster view.
	version string
	clk     clock.Clock
	// ttl is the cluster lease's: a node whose heartbeat is older is
	// taken as down.
	ttl time.Duration
	// simulated lists serve --demo's simulated nodes beside this one on
	// SQLite (demo_nodes.go); nil without them.
	simulated func() []apitype.ClusterNode
}

// joinCluster prepares cluster membership on b for the daemon at addr
// (the address it listens on) and returns the store the job controller
// must use with its Term function: on PostgreSQL the cluster's gated
// store, which lets only the leader schedule; on SQLite the store itself
// and a nil Term. On PostgreSQL it registers the node first and refuses
// to go on if another live process already acts as --node.
func joinCluster(ctx context.Context, b backend, o Config, addr string, clk clock.Clock, log *slog.Logger) (_ *clusterNode, ctrlStore store.Store, term func() int64, _ error) {
	c := &clusterNode{self: o.node, addr: addr, version: o.nodeVersion(), labels: o.labels.labels(), clk: clk}
	pb := b.pg
	if pb == nil {
		return c, b, nil, nil
	}
	n, err := cluster.New(cluster.Config{
		Store: pb.Store, ID: o.node, Address: addr, Version: c.version, Labels: c.labels,
		TTL: pb.ttl, RenewInterval: pb.renew, Clock: clk, Logger: log.With("component", "cluster"),
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := n.Register(ctx); err != nil {
		var inUse *pgstore.NodeInUseError
		if errors.As(err, &inUse) {
			return nil, nil, nil, fmt.Errorf("serve: %w; give this daemon another --node or stop the other one", inUse)
		}
		return nil, nil, nil, fmt.Errorf("serve: %w", err)
	}
	c.node, c.pg, c.ttl = n, pb.Store, pb.ttl
	gated := cluster.ControllerStore(b, o.node, n.Leading)
	return c, gated, gated.Term, nil
}

// register adds GET /api/v1/cluster to the API.
func (c *clusterNode) register(api *httpapi.Server) {
	api.Handle("GET /api/v1/cluster", httpapi.ClusterHandler(c))
}

// run takes part in the cluster until ctx ends (at once on SQLite). ctrl is
// nudged when other nodes change jobs or runs.
func (c *clusterNode) run(ctx context.Context, ctrl cluster.Notifier) error {
	if c.node == nil {
		<-ctx.Done()
		return nil
	}
	return c.node.Run(ctx, ctrl)
}

// Cluster implements httpapi.ClusterSource.
func (c *clusterNode) Cluster(ctx context.Context) (apitype.Cluster, error) {
	if c.node == nil {
		now := c.clk.Now().UTC()
		out := apitype.Cluster{Leader: c.self, Self: c.self, Now: now,
			Nodes: []apitype.ClusterNode{{ID: c.self, Address: c.addr, Version: c.version, Host: hostname(), PID: os.Getpid(), Leader: true, Labels: c.labels}}}
		if c.simulated != nil {
			out.Nodes = append(out.Nodes, c.simulated()...)
		}
		for i := range out.Nodes {
			out.Nodes[i].SetLiveness(now, demoTTL)
		}
		return out, nil
	}
	cl, err := c.node.Cluster(ctx)
	if err != nil {
		return apitype.Cluster{}, err
	}
	out := apitype.Cluster{Self: c.self, Now: cl.Now, Term: cl.Lease.Term}
	held := cl.Lease.Holder != "" && cl.Lease.ExpiresAt.After(cl.Now)
	if held {
		out.Leader = cl.Lease.Holder
	}
	if !cl.Lease.ExpiresAt.IsZero() {
		exp := cl.Lease.ExpiresAt
		out.LeaseExpiresAt = &exp
	}
	for _, n := range cl.Nodes {
		out.Nodes = append(out.Nodes, apitype.ClusterNode{ID: n.ID, Address: n.Address, Version: n.Version, Host: n.Host, PID: n.PID,
			StartedAt: n.StartedAt, HeartbeatAt: n.HeartbeatAt, Leader: held && n.ID == cl.Lease.Holder, Labels: n.Labels})
		out.Nodes[len(out.Nodes)-1].SetLiveness(cl.Now, c.ttl)
	}
	return out, nil
}

// hostname is the machine's name, or "" if it cannot be read.
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// nodeVersion is the version the cluster view shows for this node: the
// version with the short revision, so builds of one version from
// different commits tell apart in a mixed cluster.
func (o *Config) nodeVersion() string {
	if o.Revision == "" {
		return o.Version
	}
	return o.Version + " (" + o.Revision + ")"
}
