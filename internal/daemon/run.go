package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

// This file is what a started daemon does: Run serves until its context
// ends, and the hooks serve's SIGHUP reload calls.

// Run serves the API and web UI and runs the job controller, the cluster
// membership, the fleet scheduler, the manifest watcher and the notifier
// until ctx is cancelled (SIGINT or SIGTERM) or one of them fails. Then it
// stops the controller first, giving active runs the grace period while
// the API still answers, and closes everything New opened.
func (d *Daemon) Run(ctx context.Context) error {
	defer d.close()
	o, log, srv, ctrl := &d.cfg, d.log, d.srv, d.ctrl
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	addr := d.addr
	log.Info("serving", "addr", addr, "url", o.tls.scheme()+"://"+addr, "data", o.data, "node", o.node,
		"auth", map[bool]string{true: "bearer token", false: "none (--insecure-no-auth)"}[d.token != ""], "version", o.Version, "revision", o.Revision)
	if len(o.reboot.parsed) > 0 || len(d.manifests.rebootGroups()) > 0 {
		log.Info("FleetLock base URL for Zincati (keep the trailing slash; with a secret: …/fleetlock/SECRET/)", "base_url", fleetLockBase(d.publicURL()))
	}

	ctrlDone := make(chan error, 1)
	ctrlCtx, stopCtrl := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCtrl()
	go func() { ctrlDone <- ctrl.Run(ctrlCtx) }()
	clusterDone := make(chan error, 1)
	go func() { clusterDone <- d.cluster.run(ctrlCtx, ctrl) }()
	// The fleet scheduler starts before the API serves, so no request sees
	// a single node without one.
	stopFleet := d.fleet.start(ctx)
	defer stopFleet()
	httpErr := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			httpErr <- srv.ServeTLS(d.ln, "", "")
		} else {
			httpErr <- srv.Serve(d.ln)
		}
	}()
	go d.manifests.watch(ctrlCtx)
	go d.notifier.Run(ctrlCtx)
	go d.notifier.WatchOverdue(ctrlCtx, d.backend)
	go d.locks.WatchHolds(ctrlCtx)
	go d.integrity.run(ctrlCtx)
	go d.pruner.Run(ctrlCtx)
	go d.releaseStartupPages(ctrlCtx)
	defer d.startDemoNodes(ctrlCtx)()
	d.systemd.ready(ctrlCtx, addr)

	var runErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "grace", o.grace)
		d.systemd.stopping()
	case err := <-httpErr:
		runErr = fmt.Errorf("http server: %w", err)
	case err := <-ctrlDone:
		ctrlDone <- err
		if err == nil {
			err = errors.New("stopped unexpectedly")
		}
		runErr = fmt.Errorf("job controller: %w", err)
	}
	if runErr != nil {
		d.systemd.stopping()
	}
	// Stop the controller first so no run starts while the API goes away;
	// keep the API answering while active runs get their grace period.
	stopCtrl()
	stopFleet()
	if err := <-ctrlDone; err != nil && !errors.Is(err, context.Canceled) && runErr == nil {
		runErr = fmt.Errorf("job controller: %w", err)
	}
	<-clusterDone
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownHTTP)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	if runErr != nil {
		return runErr
	}
	log.Info("stopped")
	return nil
}

// RecordReload appends the event of a SIGHUP reload that changed settings:
// applied took effect, restart wait for one. actor is "config:FILE" (the
// --config file read again), or "sighup" without one.
func (d *Daemon) RecordReload(ctx context.Context, actor string, applied, restart []string) error {
	data, err := json.Marshal(map[string][]string{"applied": emptyIfNil(applied), "restart": emptyIfNil(restart)})
	if err != nil {
		return err
	}
	msg := "settings reloaded"
	if len(applied) > 0 {
		msg += "; applied: " + strings.Join(applied, ", ")
	}
	if len(restart) > 0 {
		msg += "; changed but waiting for a restart: " + strings.Join(restart, ", ")
	}
	ctx = audit.With(ctx, audit.Actor{Name: actor, Via: audit.ViaSIGHUP})
	return d.backend.EventAppend(ctx, store.Event{Kind: store.EventDaemonReloaded, Resource: nodeResource(d.cfg.node), Message: msg, Data: data})
}

func emptyIfNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SetNotifyDefault replaces the notification targets of jobs that name
// none (--notify-default), as a reload does; a bad target changes nothing.
func (d *Daemon) SetNotifyDefault(targets []string) error {
	for _, t := range targets {
		if err := job.CheckNotifyTarget(t); err != nil {
			return fmt.Errorf("--notify-default: %w", err)
		}
	}
	d.notifier.SetDefault(targets)
	return nil
}
