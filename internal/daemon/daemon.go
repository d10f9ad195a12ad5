// Package daemon is almanac's composition root: it wires the store, the
// job controller, cluster membership, the fleet scheduler, agent mode,
// FleetLock, notifications, the HTTP API and the web UI into one process.
// Config carries serve's flags (AddFlags declares them, Check validates
// them), New opens and builds everything, and Run serves until its context
// ends, then shuts down in order. The CLI's serve command is a thin layer
// over it, and tests start a daemon in-process the same way.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cluster"
	"github.com/almanac-sh/almanac/internal/connlimit"
	"github.com/almanac-sh/almanac/internal/fleetlock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/jobnotify"
	"github.com/almanac-sh/almanac/internal/loopback"
	"github.com/almanac-sh/almanac/internal/redact"
	"github.com/almanac-sh/almanac/internal/retention"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// Config is the daemon's configuration: serve's flags (AddFlags declares
// them, Check validates them) plus what the caller provides.
type Config struct {
	// ErrOut receives problems that need more than one line (the
	// positioned errors of bad manifests at start-up) and the one-time
	// notice of a generated API token.
	ErrOut io.Writer
	// Version is the running build's version, reported by the API, the
	// cluster view and the logs.
	Version string
	// Revision (short, "-modified" for a dirty tree) and GoVersion
	// complete the build's description: /healthz and /metrics report
	// them, and the cluster view shows the revision next to the version.
	// Either may be empty.
	Revision, GoVersion string
	// Clock is the time every part of the daemon reads; nil means the
	// real clock. Tests set it to place "now" where they need it.
	Clock clock.Clock

	data      string
	listen    string
	manifests string
	storeURL  string
	demo      bool
	token     string
	// insecure turns authentication off (--insecure-no-auth); the API then
	// answers only loopback requests addressed to a loopback name.
	insecure bool
	node     string
	labels   labelFlag // --node-label (nodelabels.go)
	grace    time.Duration
	reset    bool // set a damaged or lost SQLite database aside and start empty
	// integrityEvery is how often the SQLite database's integrity is
	// checked while it is open (integrity.go); zero turns that off.
	integrityEvery time.Duration
	// retention bounds the event log and each run's output (retention.go).
	retention retentionFlags
	// notifyDefault are the notification targets of jobs that name none;
	// publicBase is the daemon's URL for links in notifications.
	notifyDefault listFlag
	publicBase    string
	http          httpLimits
	// accessLog is --access-log: a file, "-" for standard output, or ""
	// for none (accesslog.go).
	accessLog string
	reboot    rebootFlags
	tls       tlsFiles
	agent     agentOptions // agent mode, with manifests (agent.go)
	fleet     fleetOptions
	windows   windowFlag         // --windows items (windowset.go)
	named     *namedWindows      // the calendars they and --demo define
	schedules *manifestSchedules // the schedule resources of --manifests
	secrets   secretFiles        // --token-file, --smtp-password-file (secrets.go)
	gates     *gateRegistry      // every gate: named windows and schedules (gates.go)
	nodes     job.NodeLister     // the nodes fanned-out jobs go to (nodes.go)
	slots     job.SlotTaker      // reboot slots for jobs with a reboot_group (FleetLock)
	schema    job.SchemaGate     // whether fanned-out runs may be created yet (PostgreSQL: schema contracted)
	// alive is called on every turn of the scheduling loop, which turns at
	// least every aliveEvery: systemd's watchdog (systemd.go).
	alive      func()
	aliveEvery time.Duration
	kube       *kubeOptions // --kubeconfig and the Kubernetes executor (kubernetes.go)
}

// controller is what the daemon needs of the job controller: the API's
// calls plus a lifecycle.
type controller interface {
	httpapi.Controller
	// Run schedules and executes runs until ctx is cancelled; then it stops
	// starting runs, waits up to the grace period for active ones, kills
	// the rest and records that. It returns when all of that is done.
	Run(ctx context.Context) error
	// StoreHealth reports whether the controller's store writes fail, and
	// since when.
	StoreHealth() (since time.Time, err error)
	// ClockNote describes a recent backward step of the wall clock, or "".
	ClockNote() string
	// JobStatuses and Upcoming serve the web UI's lists of many jobs.
	JobStatuses(ctx context.Context, jobs []store.Job) (map[string]httpapi.JobStatus, error)
	Upcoming(ctx context.Context, from time.Time, limit int) ([]job.Fire, error)
}

// shutdownHTTP bounds how long in-flight API requests may take at shutdown.
const shutdownHTTP = 5 * time.Second

// AddFlags declares serve's flags on fs, writing into c.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	host, _ := os.Hostname()
	fs.StringVar(&c.data, "data", DefaultDataDir, "directory of the embedded database and the API token")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address of the API, web UI and /metrics")
	fs.StringVar(&c.manifests, "manifests", "", "directory of *.pp manifests to apply as an agent (and their jobs)")
	addAgentFlags(fs, &c.agent)
	fs.StringVar(&c.storeURL, "store", "", "store URL; empty for SQLite under --data")
	fs.BoolVar(&c.demo, "demo", false, "start with example jobs, windows and fleet, and without --manifests an agent on a demo manifest under --data")
	fs.StringVar(&c.token, "token", os.Getenv("ALMANAC_TOKEN"), "bearer token clients must send (env ALMANAC_TOKEN; default: the token file in --data, generated at first start)")
	fs.BoolVar(&c.insecure, "insecure-no-auth", false, "serve without a token: any local user may then run commands as this daemon's user (loopback only)")
	fs.StringVar(&c.node, "node", host, "this daemon's node name, recorded on the runs it executes")
	addNodeLabelFlags(fs, &c.labels)
	addNodeWindowFlag(fs, &c.labels)
	fs.DurationVar(&c.grace, "grace", 30*time.Second, "at shutdown, how long active runs that cannot outlive the daemon may finish before they are killed (runs under a supervisor keep running)")
	addFleetFlags(fs, &c.fleet)
	addHTTPFlags(fs, &c.http)
	fs.StringVar(&c.accessLog, "access-log", "", "write one Combined Log Format line per HTTP request to this file (- for standard output), naming the token in the user field")
	addRebootFlags(fs, &c.reboot)
	fs.BoolVar(&c.reset, "reset", false, "if the SQLite database under --data is damaged or lost, set it aside (renamed, never deleted) and start with an empty one")
	fs.DurationVar(&c.integrityEvery, "integrity-check-interval", DefaultIntegrityInterval, "how often to run the SQLite database's full integrity check while serving (it also runs at start); 0 for never")
	addRetentionFlags(fs, &c.retention)
	addTLSFlags(fs, &c.tls)
	fs.Var(&c.notifyDefault, "notify-default", "notification target of jobs that name none: mailto:ADDRESS, an http(s):// webhook or slack+https://URL (repeatable)")
	fs.StringVar(&c.publicBase, "public-url", "", "the daemon's URL as people reach it, for links in notifications (default: http(s)://LISTEN)")
	addWindowFlags(fs, &c.windows)
	addSecretFlags(fs, &c.secrets)
	c.kube = &kubeOptions{}
	addKubernetesFlags(fs, c.kube)
}

// Check validates the flags fs parsed into c and loads what they name
// (TLS files, window fragments). A mistake in them is a *UsageError.
func (c *Config) Check(fs *flag.FlagSet) error {
	o := c
	if _, port, err := net.SplitHostPort(o.listen); err != nil {
		return usagef("serve: --listen %q is not host:port (like 127.0.0.1:8080)", o.listen)
	} else if p, err := strconv.Atoi(port); err == nil && (p < 0 || p > 65535) {
		return usagef("serve: --listen %q: port %d out of range 0-65535", o.listen, p)
	}
	if o.manifests != "" {
		// Checked here so a mistyped directory is a usage error, not a
		// failure after the store has been opened.
		if fi, err := os.Stat(o.manifests); err != nil {
			return usagef("serve: --manifests: %w", unwrapPath(err))
		} else if !fi.IsDir() {
			return usagef("serve: --manifests %s is not a directory", o.manifests)
		}
	}
	if err := o.secrets.load(fs, o); err != nil {
		return err
	}
	if err := o.checkAuth(fs); err != nil {
		return err
	}
	if err := o.agent.check(); err != nil {
		return err
	}
	if err := o.http.check(); err != nil {
		return err
	}
	if err := o.reboot.check(); err != nil {
		return err
	}
	if err := o.tls.load(); err != nil {
		return err
	}
	for _, t := range o.notifyDefault {
		if err := job.CheckNotifyTarget(t); err != nil {
			return usagef("serve: --notify-default: %v", err)
		}
	}
	if o.grace < 0 {
		return usagef("serve: --grace %s must not be negative", o.grace)
	}
	if o.integrityEvery < 0 || (o.integrityEvery > 0 && o.integrityEvery < time.Minute) {
		return usagef("serve: --integrity-check-interval %s: want 0 (never) or at least 1m", o.integrityEvery)
	}
	if err := o.retention.check(); err != nil {
		return err
	}
	if o.node == "" {
		o.node = "almanac"
	}
	if err := o.fleet.check(o.demo); err != nil {
		return err
	}
	var err error
	if o.named, err = loadNamedWindows(o.windows, o.demo); err != nil {
		return err
	}
	return nil
}

// checkAuth checks the authentication flags: a given token must be usable,
// and --insecure-no-auth excludes --token and any non-loopback address.
func (o *Config) checkAuth(fs *flag.FlagSet) error {
	tokenSet := false
	fs.Visit(func(f *flag.Flag) { tokenSet = tokenSet || f.Name == "token" })
	if o.insecure {
		if tokenSet {
			return usagef("serve: --insecure-no-auth and --token exclude each other")
		}
		if !loopback.Listen(o.listen) {
			return usagef("serve: --listen %s accepts connections from other machines; --insecure-no-auth is allowed on loopback only", o.listen)
		}
		o.token = ""
		return nil
	}
	if o.token != "" || tokenSet {
		if err := apitoken.Check(o.token); err != nil {
			return usagef("serve: --token (or ALMANAC_TOKEN): %v", err)
		}
	}
	return nil
}

// loadToken reads the token stored under --data when none was given,
// generating it at first start and telling the operator once where it is.
func (o *Config) loadToken(stderr io.Writer, log *slog.Logger) error {
	if o.insecure {
		log.Warn("authentication is off (--insecure-no-auth): any local user can create jobs that run as this daemon's user")
		return nil
	}
	if o.token != "" {
		return nil
	}
	tok, created, err := apitoken.LoadOrCreate(o.data)
	if errors.Is(err, apitoken.ErrUnusable) {
		return usagef("serve: API token: %v", err)
	} else if err != nil {
		return fmt.Errorf("API token: %w", err)
	}
	o.token = tok
	warnExposedToken(stderr, log, o.data)
	if created {
		// Where the token is, never the token: stderr usually ends in the
		// journal or a log file, which more users read than the 0600 file.
		fmt.Fprintf(stderr, "almanac: generated an API token in %s (readable by this user only); "+
			"the CLI run from this directory (or with --data %s or ALMANAC_DATA) finds it there, and the web UI asks for it: read it with cat %s\n",
			apitoken.Path(o.data), o.data, apitoken.Path(o.data))
	}
	return nil
}

// DefaultDataDir is --data's default: where the embedded database and the
// API token live, and where the CLI looks for the token.
const DefaultDataDir = "./almanac-data"

// Daemon is a started daemon: listening, with its store open and its parts
// built. Run serves until its context ends.
type Daemon struct {
	// pruner bounds the event log (serve --keep-events).
	pruner    *retention.Pruner
	cfg       Config
	log       *slog.Logger
	ln        net.Listener
	srv       *http.Server
	api       *httpapi.Server // its routes, for the permission test
	ctrl      controller
	cluster   *clusterNode
	fleet     *fleetDaemon
	manifests *manifestJobs
	notifier  *jobnotify.Notifier
	store     store.Store
	locks     *fleetlock.Server
	integrity *integrityWatch
	// demo is serve --demo's simulated fleet on SQLite (demo_fleet.go); nil otherwise.
	demo    *demoFleet
	systemd systemdNotify
	// closers release what New acquired, last first.
	closers []func()
}

// New opens what cfg names (the listener, the store, the cluster
// membership), loads the demo and the manifests, and builds the job
// controller, the fleet scheduler, the API and the web UI; agent mode
// starts applying at once, bound to ctx. cfg must have passed Check. On
// error everything New opened is closed again.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *Daemon, err error) {
	d := &Daemon{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	o := &d.cfg
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	// Listen first: a busy port fails before anything else starts, and
	// the node registers the address it really got (a port of 0 picks
	// one), so other nodes and clients can reach it.
	tcp, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.listen, err)
	}
	d.ln = connlimit.New(tcp, o.http.maxConns)
	d.closers = append(d.closers, func() { d.ln.Close() })
	o.listen = d.ln.Addr().String()
	if err := d.lockData(); err != nil {
		return nil, err
	}
	st, err := openStore(ctx, *o, clk, log)
	if err != nil && o.reset && (errors.Is(err, sqlitestore.ErrDamaged) || errors.Is(err, sqlitestore.ErrMissing)) {
		if err := resetSQLite(*o, clk, log); err != nil {
			return nil, err
		}
		st, err = openStore(ctx, *o, clk, log)
	}
	if err != nil {
		return nil, err
	}
	d.store = st
	d.closers = append(d.closers, func() { st.Close() })
	d.integrity = newIntegrityWatch(st, o.integrityEvery, clk, log)
	d.pruner = &retention.Pruner{Store: st, Keep: o.retention.events, Clock: clk, Log: log.With("component", "retention")}
	// The token is generated once the store opened, so a start refused for
	// another reason leaves no new file behind.
	if err := o.loadToken(o.ErrOut, log); err != nil {
		return nil, err
	}
	cl, ctrlStore, err := joinCluster(ctx, st, *o, clk, log)
	if err != nil {
		return nil, err
	}
	d.cluster = cl
	if cl.node != nil {
		// A follower's scheduling writes are refused by design; its log
		// says so at DEBUG, not at ERROR on every step.
		log = slog.New(cluster.QuietRefusals(log.Handler()))
	}
	if err := recordNodeLabels(ctx, st, o.node, o.labels.set, clk, log); err != nil {
		return nil, err
	}

	now := clk.Now()
	if o.demo {
		n, err := seedDemo(ctx, st, now)
		if err != nil {
			return nil, err
		}
		log.Info("demo jobs loaded", "created", n, "total", len(demoJobs()))
		if o.manifests == "" {
			if o.manifests, err = writeDemoManifests(o.data); err != nil {
				return nil, err
			}
			log.Info("demo manifests written", "dir", o.manifests)
		}
	}
	o.gates = newGateRegistry(o.named)
	manifests, err := newManifestJobs(*o, st, clk, log)
	if err != nil {
		return nil, err
	}
	d.manifests = manifests
	o.schedules = manifests.scheduleSet()
	fl, err := newFleetDaemon(ctx, st, *o, clk, cl.fleetLeading(), log)
	if err != nil {
		return nil, err
	}
	d.fleet = fl
	d.notifier = jobnotify.New(jobnotify.Config{
		SMTP: o.fleet.smtp, From: o.fleet.smtpFrom, SMTPAuth: o.secrets.smtpAuth(o.fleet.smtp), Default: o.notifyDefault, PublicURL: o.publicURL(),
		Events: st, Clock: clk, Logger: log.With("component", "notify"),
	})
	d.systemd = newSystemdNotify(clk, log)
	o.alive, o.aliveEvery = d.systemd.loopHooks()
	if o.alive == nil {
		// The loop turns at least this often even without a watchdog, so
		// that an idle node still notices other nodes' runs gone lost
		// and steps of the wall clock.
		o.alive, o.aliveEvery = func() {}, loopTurn
	}
	manifests.onGateLoss(gateLossReporter{st: st, alert: d.notifier.Alert, now: clk.Now, log: log.With("component", "gates")}.report)
	locks, err := newFleetLock(*o, st, manifests, d.notifier.Alert, clk, log)
	if err != nil {
		return nil, err
	}
	d.locks = locks
	o.nodes, o.slots = nodeLister{cl}, locks
	o.schema = schemaGate(st)
	d.useDemoFleet(st, clk, log)
	if w := o.nodeWindow(); w != "" {
		if err := o.gates.check(w); err != nil {
			log.Warn("this node's --node-window names no window; its runs of fleet-wide jobs will wait for one", "window", w, "err", err)
		}
	}
	ctrl, err := newController(ctrlStore, *o, clk, log, o.gates, d.notifier.Report)
	d.closers = append(d.closers, o.kube.close)
	if err != nil {
		return nil, err
	}
	d.ctrl = ctrl
	if err := manifests.start(ctx, ctrl, o.ErrOut); err != nil {
		return nil, err
	}
	metrics := httpapi.NewMetrics(st)
	metrics.SetBuildInfo(o.Version, o.Revision, o.GoVersion)
	if err := metrics.Prime(ctx); err != nil {
		return nil, fmt.Errorf("read event log: %w", err)
	}
	metrics.Registry().MustRegister(locks, newClusterCollector(cl))
	api := httpapi.New(httpapi.Config{
		RebootGroups: rebootGroupsAPI(locks), Cluster: cl,
		Store: st, Controller: ctrl, Fleet: fl, Token: o.token, Tokens: st, Clock: clk,
		Logger: log, Metrics: metrics, Version: o.Version, Revision: o.Revision, GoVersion: o.GoVersion, Health: storeHealthReason(ctrl, d.integrity),
		Notes: clockNotes(ctrl),
	})
	d.api = api
	cl.register(api)
	api.Handle("/fleetlock/", locks)
	api.Handle("GET /api/v1/windows", httpapi.WindowsHandler(daemonWindows{o.named, o.schedules}, clk))

	ag, stopAgent, err := startAgent(ctx, *o, st, clk, log, api, cl.agentLeading(), manifests)
	if err != nil {
		return nil, err
	}
	d.closers = append(d.closers, stopAgent)

	handler, err := withWebUI(api, st, ctrl, fl, cl, ag, *o, clk, log, rebootGroupsAPI(locks))
	if err != nil {
		return nil, err
	}
	handler = locks.Intercept(handler)
	if o.tls.on() {
		handler = strictTransport(handler)
	}
	if handler, err = d.withAccessLog(handler, o.accessLog, clk); err != nil {
		return nil, err
	}
	d.srv = o.http.server(handler)
	d.srv.TLSConfig = o.tls.config()
	d.srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	return d, nil
}

// Addr is the address the daemon listens on (the port chosen, when
// --listen asked for port 0).
func (d *Daemon) Addr() string { return d.ln.Addr().String() }

// close releases what New acquired, last first.
func (d *Daemon) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	d.closers = nil
}

// Run serves the API and web UI and runs the job controller, the cluster
// membership, the fleet scheduler, the manifest watcher and the notifier
// until ctx is cancelled (SIGINT or SIGTERM) or one of them fails. Then it
// stops the controller first, giving active runs the grace period while
// the API still answers, and closes everything New opened.
func (d *Daemon) Run(ctx context.Context) error {
	defer d.close()
	o, log, srv, ctrl := &d.cfg, d.log, d.srv, d.ctrl
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	addr := d.Addr()
	log.Info("serving", "addr", addr, "url", o.tls.scheme()+"://"+addr, "data", o.data, "node", o.node,
		"auth", map[bool]string{true: "bearer token", false: "none (--insecure-no-auth)"}[o.token != ""], "version", o.Version, "revision", o.Revision)
	if len(o.reboot.parsed) > 0 || len(d.manifests.rebootGroups()) > 0 {
		log.Info("FleetLock base URL for Zincati (keep the trailing slash; with a secret: …/fleetlock/SECRET/)", "base_url", fleetLockBase(o.publicURL()))
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
	go d.notifier.WatchOverdue(ctrlCtx, d.store)
	go d.locks.WatchHolds(ctrlCtx)
	go d.integrity.run(ctrlCtx)
	go d.pruner.Run(ctrlCtx)
	defer d.startDemoFleet(ctrlCtx)()
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

// openStore opens the store --store names: SQLite under --data by default.
func openStore(ctx context.Context, o Config, clk clock.Clock, log *slog.Logger) (store.Store, error) {
	log = log.With("component", "store")
	switch {
	case o.storeURL == "" || o.storeURL == "sqlite":
		return openSQLite(ctx, o.data, clk, log)
	case strings.HasPrefix(o.storeURL, "postgres://"), strings.HasPrefix(o.storeURL, "postgresql://"):
		return openPostgres(ctx, o.storeURL, clk, log)
	}
	return nil, usagef("serve: --store %q: want empty (SQLite under --data) or postgres://...", redactURL(o.storeURL))
}

// publicURL is where people reach the daemon: --public-url, or its address.
func (o *Config) publicURL() string {
	if o.publicBase != "" {
		return o.publicBase
	}
	return o.tls.scheme() + "://" + o.listen
}

// storeHealthReason returns /healthz's check: damage the periodic
// integrity check found, else the store's write failure, if the
// controller's writes fail.
func storeHealthReason(ctrl controller, integrity *integrityWatch) func() string {
	return func() string {
		if r := integrity.reason(); r != "" {
			return r
		}
		since, err := ctrl.StoreHealth()
		if err == nil {
			return ""
		}
		return fmt.Sprintf("store: writes failing since %s: %v", since.UTC().Format(time.RFC3339), err)
	}
}

// loopTurn is the longest the job controller's loop sleeps without a
// watchdog: a heartbeat interval.
const loopTurn = 10 * time.Second

// clockNotes returns /healthz's notes: a recent step of the wall clock.
func clockNotes(ctrl controller) func() []string {
	return func() []string {
		if n := ctrl.ClockNote(); n != "" {
			return []string{n}
		}
		return nil
	}
}

// redactURL hides a password in a store URL before it is printed.
func redactURL(s string) string { return redact.URL(s) }

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
	return d.store.EventAppend(ctx, store.Event{Kind: store.EventDaemonReloaded, Resource: nodeResource(d.cfg.node), Message: msg, Data: data})
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
