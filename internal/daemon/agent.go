package daemon

import (
	"context"
	"flag"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/agent/agentpg"
	"github.com/almanac-sh/almanac/internal/agent/agentsql"
	"github.com/almanac-sh/almanac/internal/agent/manifestapply"
	"github.com/almanac-sh/almanac/internal/calendar"
)

// agentOptions are serve's agent-mode flags: with --manifests the daemon
// applies the manifests like a Puppet agent (see docs/agent.md).
type agentOptions struct {
	interval time.Duration
	keep     int
	maxAge   time.Duration
	tz       string
	noop     bool
}

// addAgentFlags registers the agent-mode flags on serve's flag set.
func addAgentFlags(fs *flag.FlagSet, o *agentOptions) {
	fs.DurationVar(&o.interval, "run-interval", agent.DefaultInterval, "agent mode (--manifests): time between interval applies, at a per-host phase; 0 disables them")
	fs.IntVar(&o.keep, "keep-applies", agent.DefaultKeepReports, "agent mode: how many apply reports to keep")
	fs.DurationVar(&o.maxAge, "apply-retention", 0, "agent mode: also drop apply reports older than this (0 keeps them by count only)")
	fs.StringVar(&o.tz, "agent-tz", "", "agent mode: zone of schedules without time_zone (default: local)")
	fs.BoolVar(&o.noop, "noop", false, "agent mode: report what applies would change, change nothing")
}

// check validates the agent flags.
func (o *agentOptions) check() error {
	if o.interval < 0 {
		return usagef("serve: --run-interval %s must not be negative", o.interval)
	}
	if o.keep < 1 {
		return usagef("serve: --keep-applies %d: want at least 1", o.keep)
	}
	if o.maxAge < 0 {
		return usagef("serve: --apply-retention %s must not be negative", o.maxAge)
	}
	if o.tz != "" {
		if _, err := calendar.LoadZone(o.tz); err != nil {
			return usagef("serve: --agent-tz: %v", err)
		}
	}
	return nil
}

// location is the zone of schedules without time_zone: --agent-tz
// (checked by check), else the local zone.
func (o *agentOptions) location() *time.Location {
	if o.tz != "" {
		if loc, err := calendar.LoadZone(o.tz); err == nil {
			return loc
		}
	}
	return time.Local
}

// startAgent starts agent mode when --manifests is set, whose manifests
// the first load of the manifest jobs has compiled already: it keeps state
// and reports in the store's database (the SQLite file, or PostgreSQL
// shared by every node; in memory for any other store), registers the /api/v1/applies routes and runs the agent until the
// returned stop is called. It returns the agent for the web UI's report
// pages; nil without --manifests. On a cluster only the node that leads
// applies (leading is the cluster lease's test; nil on a single node).
//
// The agent hears of manifest changes from the watcher that reloads the
// manifest jobs (d.manifests), so the directory is read by one poller.
func (d *Daemon) startAgent(ctx context.Context) (_ *agent.Agent, stop func(), err error) {
	o, dir, log := &d.cfg, d.manifestDir, d.log
	if dir == "" {
		return nil, func() {}, nil
	}
	loc := o.agent.location()
	ss, closeDB, err := agentStateStore(ctx, d.backend)
	if err != nil {
		return nil, nil, err
	}
	ap, err := manifestapply.New(manifestapply.Config{Dir: dir, Clock: d.clk, Location: loc, Noop: o.agent.noop,
		Windows: func(name string) (manifestapply.WindowGate, bool) { return d.gates.window(name) }})
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	interval := o.agent.interval
	if interval == 0 {
		interval = -1 // the agent's "disabled"
	}
	a, err := agent.New(agent.Config{
		Applier: ap, Store: ss, Clock: d.clk, Log: log.With("component", "agent"),
		Interval: interval, Host: o.node,
		Retention: agent.Retention{Keep: o.agent.keep, MaxAge: o.agent.maxAge},
		Leading:   d.cluster.agentLeading(),
	})
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	d.api.HandleApplies(a)
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	d.manifests.notifyOnChange(func(what string) { a.Notify(what) })
	go func() {
		defer close(done)
		if err := a.Run(actx); err != nil {
			log.Error("agent stopped", "err", err)
		}
	}()
	st0 := a.Status()
	log.Info("agent mode", "manifests", dir, "run_interval", o.agent.interval, "splay", st0.Splay, "host", st0.Host)
	return a, func() {
		d.manifests.notifyOnChange(nil)
		cancel()
		<-done
		closeDB()
	}, nil
}

// agentStateStore returns where the agent keeps its state and reports: in
// the store's own database, so they survive restarts and, on PostgreSQL,
// are shared by every node (whichever leads carries on from the state the
// previous leader saved). release frees what it opened.
func agentStateStore(ctx context.Context, b backend) (ss agent.StateStore, release func(), err error) {
	if b.pg != nil {
		ps, err := agentpg.New(ctx, b.pg.Pool(), agentpg.WithLeaseName(b.pg.LeaseName()))
		if err != nil {
			return nil, nil, err
		}
		return ps, func() {}, nil
	}
	ls, db, err := agentsql.OpenSQLite(ctx, b.sqlite.Path())
	if err != nil {
		return nil, nil, err
	}
	return ls, func() { db.Close() }, nil
}

// agentLeading is the agent's leadership test: the lease the job controller
// leads with, so one node both schedules the jobs and applies the
// manifests; nil on a single-node store, where the daemon always applies.
func (c *clusterNode) agentLeading() func() (bool, int64) {
	if c.node == nil {
		return nil
	}
	return c.node.Leading
}
