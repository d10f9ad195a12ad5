package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/fleet/fleetstore"
	"github.com/almanac-sh/almanac/internal/redact"
	"github.com/almanac-sh/almanac/internal/shellwords"
	"github.com/almanac-sh/almanac/internal/store"
)

// fleetOptions are serve's managed-resource flags.
type fleetOptions struct {
	inventoryCmd, startCmd, stopCmd, hibernateCmd string
	commandTimeout                                time.Duration
	interval                                      time.Duration
	retryFor, retryBackoff                        time.Duration
	smtp, smtpFrom, webhook                       string
	aws                                           awsOptions

	// Parsed by check.
	list, start, stop, hibernate []string
}

// addFleetFlags registers the managed-resource flags on fs.
func addFleetFlags(fs *flag.FlagSet, o *fleetOptions) {
	fs.StringVar(&o.inventoryCmd, "inventory-command", "", "command printing the managed resources as JSON (enables the fleet scheduler)")
	fs.StringVar(&o.startCmd, "start-command", "", "command that starts a resource; its id is appended")
	fs.StringVar(&o.stopCmd, "stop-command", "", "command that stops a resource; its id is appended")
	fs.StringVar(&o.hibernateCmd, "hibernate-command", "", "command that hibernates a resource (default: the stop command with --hibernate)")
	fs.DurationVar(&o.commandTimeout, "command-timeout", 2*time.Minute, "how long one inventory, start, stop or hibernate command may run")
	fs.DurationVar(&o.interval, "inventory-interval", 15*time.Minute, "time between inventories of the managed resources")
	fs.DurationVar(&o.retryFor, "retry-for", 15*time.Minute, "how long a failed start or stop is retried before the notify address is told")
	fs.DurationVar(&o.retryBackoff, "retry-backoff", 30*time.Second, "delay before the first retry of a failed action (doubles, at most 5m)")
	fs.StringVar(&o.smtp, "smtp", "", "SMTP server host:port for notifications")
	fs.StringVar(&o.smtpFrom, "smtp-from", "", "sender address of notification emails")
	fs.StringVar(&o.webhook, "notify-webhook", "", "URL notifications are POSTed to as JSON")
	addAWSFlags(fs, &o.aws)
}

// check validates the flags; demo is serve's --demo.
func (o *fleetOptions) check(demo bool) error {
	var err error
	for _, c := range []struct {
		flag, val string
		out       *[]string
	}{
		{"inventory-command", o.inventoryCmd, &o.list}, {"start-command", o.startCmd, &o.start},
		{"stop-command", o.stopCmd, &o.stop}, {"hibernate-command", o.hibernateCmd, &o.hibernate},
	} {
		if *c.out, err = shellwords.Split(c.val); err != nil {
			return usagef("serve: --%s: %v", c.flag, err)
		}
	}
	if err := o.aws.check(demo, o.list != nil); err != nil {
		return err
	}
	switch {
	case demo && o.list != nil:
		return usagef("serve: --demo and --inventory-command both choose the managed resources; give one")
	case o.list == nil && (o.start != nil || o.stop != nil || o.hibernate != nil):
		return usagef("serve: --start-command, --stop-command and --hibernate-command need --inventory-command")
	case o.list != nil && (o.start == nil || o.stop == nil):
		return usagef("serve: --inventory-command needs --start-command and --stop-command")
	case o.interval <= 0:
		return usagef("serve: --inventory-interval %s must be positive", o.interval)
	case o.retryFor <= 0 || o.retryBackoff <= 0 || o.commandTimeout <= 0:
		return usagef("serve: --retry-for, --retry-backoff and --command-timeout must be positive")
	case (o.smtp == "") != (o.smtpFrom == ""):
		return usagef("serve: --smtp and --smtp-from go together")
	}
	if o.smtp != "" {
		if _, port, err := net.SplitHostPort(o.smtp); err != nil || port == "" {
			return usagef("serve: --smtp %q is not host:port (like mail.example.com:25)", o.smtp)
		}
		if a, err := mail.ParseAddress(o.smtpFrom); err != nil || a.Name != "" {
			return usagef("serve: --smtp-from %q is not an email address", o.smtpFrom)
		}
	}
	if o.webhook != "" {
		u, err := url.Parse(o.webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("serve: --notify-webhook %q is not an http:// or https:// URL", redact.Webhook(o.webhook))
		}
	}
	return nil
}

// fleetDaemon runs the fleet scheduler inside serve and answers the API's
// resource calls. Without an inventory source (newSched nil) it manages
// nothing and the API says so. On a cluster store the scheduler runs only
// while this node leads: a new one (reading the store afresh) each time the
// node becomes leader, its ledger writes fenced with that term.
type fleetDaemon struct {
	newSched func(ctx context.Context, term int64) (*fleet.Scheduler, error)
	leading  func() (bool, int64) // nil: a single node, always leading
	clk      clock.Clock
	log      *slog.Logger
	reqs     chan chan inventoryReply

	mu  sync.Mutex
	cur *fleet.Scheduler // the running scheduler; nil while following
}

type inventoryReply struct {
	res apitype.InventoryResult
	err error
}

var _ httpapi.Fleet = (*fleetDaemon)(nil)

// leaderCheck is how often a cluster node checks whether it leads, to start
// or stop its fleet scheduler.
const leaderCheck = time.Second

// newFleetDaemon prepares the scheduler serve's flags ask for: the demo
// fleet with --demo, a CommandSource with --inventory-command, the AWS
// source with --inventory aws, or none. Its
// claims, checkpoint and inventory live in st, its events in st's log.
// leading is nil on a single-node store.
func newFleetDaemon(ctx context.Context, st store.Store, o Config, base clock.Clock, leading func() (bool, int64), log *slog.Logger) (*fleetDaemon, error) {
	f := o.fleet
	log = log.With("component", "fleet")
	d := &fleetDaemon{clk: base, leading: leading, log: log, reqs: make(chan chan inventoryReply)}
	var demo *fleet.Demo
	var src fleet.Source
	switch {
	case o.demo:
		demo = fleet.NewDemo()
		src = demo
	case f.list != nil:
		src = &fleet.CommandSource{ListCmd: f.list, StartCmd: f.start, StopCmd: f.stop, HibernateCmd: f.hibernate, Timeout: f.commandTimeout}
	case f.aws.on():
		var err error
		if src, err = f.aws.source(ctx, f.commandTimeout); err != nil {
			return nil, err
		}
	default:
		return d, nil
	}
	var notifiers multiNotifier
	if f.smtp != "" {
		notifiers = append(notifiers, &fleet.SMTPNotifier{Addr: f.smtp, From: f.smtpFrom})
	}
	if f.webhook != "" {
		notifiers = append(notifiers, &fleet.WebhookNotifier{URL: f.webhook})
	}
	d.newSched = func(ctx context.Context, term int64) (*fleet.Scheduler, error) {
		ledger := &fleetstore.Ledger{Store: st, Term: func() int64 { return term }}
		if demo != nil {
			// The demo machines' states live in the store: a restarted
			// daemon (or a new leader) finds them as they were left.
			saved, err := ledger.LoadInventory(ctx)
			if err != nil {
				return nil, fmt.Errorf("read saved inventory: %w", err)
			}
			for id, ob := range saved {
				_ = demo.SetState(id, ob.State) // a machine the demo no longer has is dropped
			}
		}
		cfg := fleet.Config{
			Source: src, Clock: d.clk, Ledger: ledger, Events: &fleetstore.Events{Store: st, Logger: log},
			InventoryInterval: f.interval, RetryFor: f.retryFor, RetryBackoff: f.retryBackoff, ActionTimeout: f.commandTimeout,
		}
		if len(notifiers) > 0 {
			cfg.Notifier = notifiers
		}
		return fleet.New(cfg)
	}
	return d, nil
}

// fleetLeading returns the leadership test newFleetDaemon needs: nil on a
// single-node store.
func (c *clusterNode) fleetLeading() func() (bool, int64) {
	if c.node == nil {
		return nil
	}
	return c.node.Leading
}

// start runs the scheduler (while leading) until the returned stop function
// is called; stop waits for it to finish and may be called more than once.
func (d *fleetDaemon) start(ctx context.Context) (stop func()) {
	if d.newSched == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	if d.leading == nil {
		// A single node always leads: its scheduler exists before start
		// returns, so the API never calls it a follower while it starts.
		s := d.build(ctx, 0)
		go func() {
			defer close(done)
			if s != nil {
				d.runLeading(ctx, s, 0)
			}
		}()
	} else {
		go func() {
			defer close(done)
			d.follow(ctx)
		}()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// follow checks every leaderCheck whether the node leads, and runs a
// scheduler for as long as it does with the term it leads in.
func (d *fleetDaemon) follow(ctx context.Context) {
	for {
		if ok, term := d.leading(); ok {
			lctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				d.lead(lctx, term)
			}()
			for ctx.Err() == nil {
				if ok, t := d.leading(); !ok || t != term {
					break
				}
				if !d.sleep(ctx, leaderCheck) {
					break
				}
			}
			cancel()
			<-done
		}
		if !d.sleep(ctx, leaderCheck) {
			return
		}
	}
}

// sleep waits d on the clock; false when ctx ended first.
func (d *fleetDaemon) sleep(ctx context.Context, dur time.Duration) bool {
	t := d.clk.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// lead builds a scheduler for term and runs it until ctx ends.
func (d *fleetDaemon) lead(ctx context.Context, term int64) {
	if s := d.build(ctx, term); s != nil {
		d.runLeading(ctx, s, term)
	}
}

// build makes the scheduler of a term and makes it the current one; nil
// (logged) when it cannot be built.
func (d *fleetDaemon) build(ctx context.Context, term int64) *fleet.Scheduler {
	s, err := d.newSched(ctx, term)
	if err != nil {
		d.log.Error("fleet scheduler not started", "err", err)
		return nil
	}
	d.mu.Lock()
	d.cur = s
	d.mu.Unlock()
	return s
}

// runLeading runs the current scheduler s until ctx ends, then clears it.
func (d *fleetDaemon) runLeading(ctx context.Context, s *fleet.Scheduler, term int64) {
	defer func() {
		d.mu.Lock()
		d.cur = nil
		d.mu.Unlock()
	}()
	d.log.Info("fleet scheduler started", "term", term)
	d.run(ctx, s)
	d.log.Info("fleet scheduler stopped", "term", term)
}

// run is fleet.Scheduler.Run with synchronous inventories on request: it
// takes an inventory at start-up, then acts at every transition and retry
// instant and takes an inventory every interval or when RunInventory asks.
func (d *fleetDaemon) run(ctx context.Context, s *fleet.Scheduler) {
	force := true
	for {
		wake := s.Step(ctx, force)
		force = false
		wait := max(wake.Sub(d.clk.Now()), 0)
		timer := d.clk.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case reply := <-d.reqs:
			timer.Stop()
			err := s.Inventory(ctx)
			res := apitype.InventoryResult{Time: s.LastInventory(), Resources: len(s.Resources())}
			reply <- inventoryReply{res, err}
		case <-timer.C():
		}
	}
}

func (d *fleetDaemon) current() *fleet.Scheduler {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cur
}

// Resources implements httpapi.Fleet. A node that does not lead shows none.
func (d *fleetDaemon) Resources() []fleet.Status {
	if s := d.current(); s != nil {
		return s.Resources()
	}
	return nil
}

// Resource implements httpapi.Fleet.
func (d *fleetDaemon) Resource(id string) (fleet.Status, bool) {
	if s := d.current(); s != nil {
		return s.Resource(id)
	}
	return fleet.Status{}, false
}

// LastInventory implements httpapi.Fleet.
func (d *fleetDaemon) LastInventory() time.Time {
	if s := d.current(); s != nil {
		return s.LastInventory()
	}
	return time.Time{}
}

// RunInventory implements httpapi.Fleet: the scheduler's loop takes the
// inventory (so it also reschedules at once) and the call waits for it.
func (d *fleetDaemon) RunInventory(ctx context.Context) (apitype.InventoryResult, error) {
	if d.newSched == nil {
		return apitype.InventoryResult{}, httpapi.ErrNoFleet
	}
	if d.current() == nil {
		return apitype.InventoryResult{}, errors.New("the fleet scheduler runs on the leader node, not this one (see GET /api/v1/cluster)")
	}
	reply := make(chan inventoryReply, 1)
	select {
	case d.reqs <- reply:
	case <-ctx.Done():
		return apitype.InventoryResult{}, ctx.Err()
	}
	select {
	case r := <-reply:
		return r.res, r.err
	case <-ctx.Done():
		return apitype.InventoryResult{}, ctx.Err()
	}
}

// multiNotifier delivers each notification through every notifier.
type multiNotifier []fleet.Notifier

func (m multiNotifier) Notify(ctx context.Context, n fleet.Notification) error {
	var errs []error
	for _, x := range m {
		if err := x.Notify(ctx, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
