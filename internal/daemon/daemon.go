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
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cluster"
	"github.com/almanac-sh/almanac/internal/connlimit"
	"github.com/almanac-sh/almanac/internal/fleetlock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/jobnotify"
	"github.com/almanac-sh/almanac/internal/kubeexec"
	"github.com/almanac-sh/almanac/internal/loopback"
	"github.com/almanac-sh/almanac/internal/redact"
	"github.com/almanac-sh/almanac/internal/retention"
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
	windows   windowFlag    // --windows items (windowset.go)
	named     *namedWindows // the calendars they and --demo define (loaded by Check)
	secrets   secretFiles   // --token-file, --smtp-password-file (secrets.go)
	kube      kubeOptions   // --kubeconfig (kubernetes.go)
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
	addKubernetesFlags(fs, &c.kube)
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

// loadToken returns the API token in force: --token (or --token-file), or
// the one stored under --data, generated at first start with a notice to
// the operator of where it is; "" with --insecure-no-auth.
func (o *Config) loadToken(stderr io.Writer, log *slog.Logger) (string, error) {
	if o.insecure {
		log.Warn("authentication is off (--insecure-no-auth): any local user can create jobs that run as this daemon's user")
		return "", nil
	}
	if o.token != "" {
		return o.token, nil
	}
	tok, created, err := apitoken.LoadOrCreate(o.data)
	if errors.Is(err, apitoken.ErrUnusable) {
		return "", usagef("serve: API token: %v", err)
	} else if err != nil {
		return "", fmt.Errorf("API token: %w", err)
	}
	warnExposedToken(stderr, log, o.data)
	if created {
		// Where the token is, never the token: stderr usually ends in the
		// journal or a log file, which more users read than the 0600 file.
		fmt.Fprintf(stderr, "almanac: generated an API token in %s (readable by this user only); "+
			"the CLI run from this directory (or with --data %s or ALMANAC_DATA) finds it there, and the web UI asks for it: read it with cat %s\n",
			apitoken.Path(o.data), o.data, apitoken.Path(o.data))
	}
	return tok, nil
}

// DefaultDataDir is --data's default: where the embedded database and the
// API token live, and where the CLI looks for the token.
const DefaultDataDir = "./almanac-data"

// Daemon is a started daemon: the parts New built, each built once and
// typed as what it is, so no part learns another's kind by asking at run
// time. cfg is serve's configuration as Check left it; New reads it and
// never writes to it. What New resolves from it (the address a port of 0
// got, the token in force, the demo's manifest directory) are parts too.
type Daemon struct {
	cfg Config
	clk clock.Clock
	// log is the daemon's logger; on a cluster it reports a follower's
	// refused scheduling writes at DEBUG, not at ERROR on every step.
	log *slog.Logger

	ln net.Listener
	// addr is the address ln listens on (the port chosen, when --listen
	// asked for port 0): what the node registers and links name.
	addr string
	// backend is the store, SQLite or PostgreSQL.
	backend backend
	// integrity checks the SQLite database periodically; nil on
	// PostgreSQL or with the check off.
	integrity *integrityWatch
	// pruner bounds the event log (serve --keep-events).
	pruner *retention.Pruner
	// token is the API token in force (--token, or the file's under
	// --data); "" with --insecure-no-auth.
	token   string
	cluster *clusterNode
	// manifestDir is --manifests, or with --demo and without it the demo
	// manifests written under --data; "" for none.
	manifestDir string
	// gates resolves every gate name: named windows and the manifests'
	// schedules.
	gates     *gateRegistry
	manifests *manifestJobs      // nil without a manifest directory
	schedules *manifestSchedules // the manifests' schedule resources; nil without
	fleet     *fleetDaemon
	notifier  *jobnotify.Notifier
	systemd   systemdNotify
	locks     *fleetlock.Server
	// demo is serve --demo's simulated nodes on SQLite (demo_nodes.go); nil otherwise.
	demo *demoNodeSet
	// nodes lists the nodes fanned-out jobs go to (nodes.go), the demo's
	// simulated fleet among them.
	nodes job.NodeLister
	// executor starts the commands of runs (newExecutor).
	executor job.Executor
	// kube is the Kubernetes executor inside it; stopped at shutdown.
	kube  *kubeexec.Executor
	ctrl  apiController
	api   *httpapi.Server // its routes, for the permission test
	agent *agent.Agent    // nil without a manifest directory
	srv   *http.Server
	// closers release what New acquired, last first.
	closers []func()
}

// New opens what cfg names (the listener, the store, the cluster
// membership), loads the demo and the manifests, and builds the job
// controller, the fleet scheduler, the API and the web UI; agent mode
// starts applying at once, bound to ctx. cfg must have passed Check. On
// error everything New opened is closed again.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *Daemon, err error) {
	d := &Daemon{cfg: cfg, clk: cfg.Clock}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	o := &d.cfg
	if d.clk == nil {
		d.clk = clock.Real{}
	}
	clk := d.clk
	// Listen first: a busy port fails before anything else starts, and
	// the node registers the address it really got (a port of 0 picks
	// one), so other nodes and clients can reach it.
	tcp, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.listen, err)
	}
	d.ln = connlimit.New(tcp, o.http.maxConns)
	d.closers = append(d.closers, func() { d.ln.Close() })
	d.addr = d.ln.Addr().String()
	if err := d.lockData(); err != nil {
		return nil, err
	}
	b, err := openStore(ctx, *o, clk, log)
	if err != nil && o.reset && (errors.Is(err, sqlitestore.ErrDamaged) || errors.Is(err, sqlitestore.ErrMissing)) {
		if err := resetSQLite(*o, clk, log); err != nil {
			return nil, err
		}
		b, err = openStore(ctx, *o, clk, log)
	}
	if err != nil {
		return nil, err
	}
	d.backend = b
	d.closers = append(d.closers, func() { b.Close() })
	if b.sqlite != nil {
		d.integrity = newIntegrityWatch(b.sqlite, o.integrityEvery, clk, log)
	}
	d.pruner = &retention.Pruner{Store: b, Keep: o.retention.events, Clock: clk, Log: log.With("component", "retention")}
	// The token is generated once the store opened, so a start refused for
	// another reason leaves no new file behind.
	if d.token, err = o.loadToken(o.ErrOut, log); err != nil {
		return nil, err
	}
	cl, ctrlStore, term, err := joinCluster(ctx, b, *o, d.addr, clk, log)
	if err != nil {
		return nil, err
	}
	d.cluster = cl
	if cl.node != nil {
		// A follower's scheduling writes are refused by design; its log
		// says so at DEBUG, not at ERROR on every step.
		log = slog.New(cluster.QuietRefusals(log.Handler()))
	}
	d.log = log
	if err := recordNodeLabels(ctx, b, o.node, o.labels.set, clk, log); err != nil {
		return nil, err
	}

	if d.manifestDir, err = d.loadDemo(ctx); err != nil {
		return nil, err
	}
	d.gates = newGateRegistry(o.named)
	if d.manifests, err = newManifestJobs(d.manifestDir, *o, d.gates, b, clk, log); err != nil {
		return nil, err
	}
	d.schedules = d.manifests.scheduleSet()
	if d.fleet, err = newFleetDaemon(ctx, b, *o, clk, cl.fleetLeading(), log); err != nil {
		return nil, err
	}
	d.notifier = jobnotify.New(jobnotify.Config{
		SMTP: o.fleet.smtp, From: o.fleet.smtpFrom, SMTPAuth: o.secrets.smtpAuth(o.fleet.smtp), Default: o.notifyDefault, PublicURL: d.publicURL(),
		Events: b, Clock: clk, Logger: log.With("component", "notify"),
	})
	d.systemd = newSystemdNotify(clk, log)
	d.manifests.onGateLoss(gateLossReporter{st: b, alert: d.notifier.Alert, now: clk.Now, log: log.With("component", "gates")}.report)
	if d.locks, err = newFleetLock(*o, d.gates, b, d.manifests, d.notifier.Alert, clk, log); err != nil {
		return nil, err
	}
	d.nodes = nodeLister{cl}
	if d.demo = d.newDemoNodes(); d.demo != nil {
		d.nodes, cl.simulated = d.demo, d.demo.clusterNodes
	}
	if w := o.nodeWindow(); w != "" {
		if err := d.gates.check(w); err != nil {
			log.Warn("this node's --node-window names no window; its runs of fleet-wide jobs will wait for one", "window", w, "err", err)
		}
	}
	d.executor, d.kube = newExecutor(*o, ctrlStore, clk, log)
	d.closers = append(d.closers, d.kube.Close)
	if d.ctrl, err = d.newController(ctrlStore, term); err != nil {
		return nil, err
	}
	if err := d.manifests.start(ctx, d.ctrl, o.ErrOut); err != nil {
		return nil, err
	}
	if d.api, err = d.newAPI(ctx); err != nil {
		return nil, err
	}
	ag, stopAgent, err := d.startAgent(ctx)
	if err != nil {
		return nil, err
	}
	d.agent = ag
	d.closers = append(d.closers, stopAgent)
	ui := webUIParts{
		api: d.api, store: b, jobs: d.ctrl, waves: d.ctrl, resources: d.fleet, cluster: cl,
		windows: d.windows(), rebootGroups: rebootGroupsAPI(d.locks),
		token: d.token, secureCookies: o.tls.on(), clk: clk, log: log,
	}
	if ag != nil {
		ui.agent = ag
	}
	handler, err := withWebUI(ui)
	if err != nil {
		return nil, err
	}
	handler = d.locks.Intercept(handler)
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

// loadDemo seeds the demo jobs with --demo and returns the manifest
// directory the daemon uses: --manifests, or with --demo and without it
// the demo manifests, written under --data.
func (d *Daemon) loadDemo(ctx context.Context) (dir string, err error) {
	o := &d.cfg
	if !o.demo {
		return o.manifests, nil
	}
	n, err := seedDemo(ctx, d.backend, d.clk.Now())
	if err != nil {
		return "", err
	}
	d.log.Info("demo jobs loaded", "created", n, "total", len(demoJobs()))
	if o.manifests != "" {
		return o.manifests, nil
	}
	if dir, err = writeDemoManifests(o.data); err != nil {
		return "", err
	}
	d.log.Info("demo manifests written", "dir", dir)
	return dir, nil
}

// newAPI builds the HTTP API over the parts built before it, with the
// daemon's own routes (the cluster, FleetLock, the windows).
func (d *Daemon) newAPI(ctx context.Context) (*httpapi.Server, error) {
	o := &d.cfg
	metrics := httpapi.NewMetrics(d.backend)
	metrics.SetBuildInfo(o.Version, o.Revision, o.GoVersion)
	if err := metrics.Prime(ctx); err != nil {
		return nil, fmt.Errorf("read event log: %w", err)
	}
	metrics.Registry().MustRegister(d.locks, newClusterCollector(d.cluster))
	api := httpapi.New(httpapi.Config{
		RebootGroups: rebootGroupsAPI(d.locks), Cluster: d.cluster,
		Store: d.backend, Controller: d.ctrl, Fleet: d.fleet, Token: d.token, Tokens: d.backend, Clock: d.clk,
		Logger: d.log, Metrics: metrics, Version: o.Version, Revision: o.Revision, GoVersion: o.GoVersion,
		Health: storeHealthReason(d.ctrl, d.integrity), Notes: clockNotes(d.ctrl),
	})
	d.cluster.register(api)
	api.Handle("/fleetlock/", d.locks)
	api.Handle("GET /api/v1/windows", httpapi.WindowsHandler(d.windows(), d.clk))
	return api, nil
}

// windows is what the daemon lists as windows: the named windows and the
// manifests' schedules.
func (d *Daemon) windows() daemonWindows { return daemonWindows{d.cfg.named, d.schedules} }

// Addr is the address the daemon listens on (the port chosen, when
// --listen asked for port 0).
func (d *Daemon) Addr() string { return d.addr }

// close releases what New acquired, last first.
func (d *Daemon) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	d.closers = nil
}

// publicURL is where people reach the daemon: --public-url, or its address.
func (d *Daemon) publicURL() string {
	if d.cfg.publicBase != "" {
		return d.cfg.publicBase
	}
	return d.cfg.tls.scheme() + "://" + d.addr
}

// storeHealthReason returns /healthz's check: damage the periodic
// integrity check found, else the store's write failure, if the
// controller's writes fail.
func storeHealthReason(ctrl apiController, integrity *integrityWatch) func() string {
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
func clockNotes(ctrl apiController) func() []string {
	return func() []string {
		if n := ctrl.ClockNote(); n != "" {
			return []string{n}
		}
		return nil
	}
}

// redactURL hides a password in a store URL before it is printed.
func redactURL(s string) string { return redact.URL(s) }
