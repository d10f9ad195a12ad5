// Package manifestapply is the agent's Applier over the apply engine: each
// apply reads the *.pp files of a directory afresh, compiles them, and runs
// the catalog with the engine's providers and schedule gates, translating
// the engine's statuses and log lines into an agent.Report.
package manifestapply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/facts"
	"github.com/almanac-sh/almanac/internal/inputfile"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/provider/account"
	"github.com/almanac-sh/almanac/internal/provider/exec"
	"github.com/almanac-sh/almanac/internal/provider/file"
	"github.com/almanac-sh/almanac/internal/provider/notify"
	"github.com/almanac-sh/almanac/internal/provider/packages"
	"github.com/almanac-sh/almanac/internal/provider/service"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// Providers are the resource types an agent apply changes by default.
func Providers() map[string]apply.Provider {
	return map[string]apply.Provider{
		"exec":    exec.Provider{},
		"file":    file.Provider{},
		"service": service.Provider{},
		"notify":  notify.Provider{},
		"package": packages.Provider{Family: osFamily()},
		"user":    account.User{},
		"group":   account.Group{},
	}
}

// osFamily is this host's os.family fact, which picks the package provider.
func osFamily() string {
	_, f := facts.Local()
	osf, _ := f["os"].(map[string]any)
	family, _ := osf["family"].(string)
	return family
}

// controllerTypes are catalog resources another part of the daemon acts
// on: `job` and `cron` resources belong to the job controller and `reboot_group`
// resources to the FleetLock server, not to an apply.
var controllerTypes = map[string]bool{"job": true, "cron": true, "reboot_group": true}

// Config configures an Applier. Dir is required.
type Config struct {
	// Dir holds the manifests: every *.pp file under it, in lexical path
	// order, is one catalog.
	Dir   string
	Clock clock.Clock // default clock.Real
	// Location is the zone of schedules without time_zone (default UTC).
	Location  *time.Location
	Providers map[string]apply.Provider // default Providers()
	Noop      bool
	Ordering  apply.Ordering // default manifest
	// MaxEvents caps the log lines kept in a report (default 1000); the
	// rest are counted in a final line.
	MaxEvents int
	// Debug keeps Debug log lines in reports.
	Debug bool
	// Windows resolves the schedule names the manifests do not declare
	// (the daemon's named windows) before Puppet's built-in schedules;
	// nil when there are none. A resource gated by a window is applied
	// exactly while the window is open.
	Windows func(name string) (WindowGate, bool)
}

// WindowGate is a named window as a resource's schedule: open or closed
// at an instant, whenever the resource was last checked.
type WindowGate interface {
	Contains(t time.Time) bool
	NextOpen(t time.Time) (time.Time, bool)
}

// windowSchedule adapts a WindowGate to the apply engine's and the
// agent's gates.
type windowSchedule struct{ w WindowGate }

// Match implements apply.Gate.
func (s windowSchedule) Match(_, now time.Time) bool { return s.w.Contains(now) }

// NextMatch implements agent.Gate.
func (s windowSchedule) NextMatch(_, t time.Time) (time.Time, bool) { return s.w.NextOpen(t) }

// resolved is what one resource's schedule name resolves to.
type resolved struct {
	apply  apply.Gate
	agent  agent.Gate
	name   string
	period time.Duration
}

// compileOptions lets resources name the named windows as schedules.
func (a *Applier) compileOptions() catalog.Options {
	if a.cfg.Windows == nil {
		return catalog.Options{}
	}
	return catalog.Options{Schedules: func(name string) bool {
		_, ok := a.cfg.Windows(name)
		return ok
	}}
}

// resolve finds the gate called name: a declared schedule, else a named
// window, else one of Puppet's built-ins.
func (a *Applier) resolve(ss Schedules, name string) (resolved, bool) {
	if s, ok := ss[name]; ok {
		return resolved{s.Gate(), s, s.Name(), period(s)}, true
	}
	if a.cfg.Windows != nil {
		if w, ok := a.cfg.Windows(name); ok {
			return resolved{windowSchedule{w}, windowSchedule{w}, name, 0}, true
		}
	}
	if s, ok := puppetsched.Builtin(name); ok {
		return resolved{s.Gate(), s, s.Name(), period(s)}, true
	}
	return resolved{}, false
}

// Applier applies the manifests of a directory. Apply is not safe for
// concurrent use; the agent never calls it concurrently.
type Applier struct {
	cfg Config
}

var _ agent.Applier = (*Applier)(nil)

// New returns an Applier.
func New(cfg Config) (*Applier, error) {
	if cfg.Dir == "" {
		return nil, errors.New("manifestapply: no manifest directory")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Providers == nil {
		cfg.Providers = Providers()
	}
	if cfg.Ordering == "" {
		cfg.Ordering = apply.OrderManifest
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 1000
	}
	return &Applier{cfg: cfg}, nil
}

// Files lists the manifests under dir: every *.pp file, recursively,
// sorted by path, skipping hidden files (the same set the daemon's job
// loader reads).
func Files(dir string) ([]string, error) { return manifestdir.Files(dir) }

// Compile parses and compiles the manifests under dir into one catalog
// (empty when dir holds none). Errors are positioned (file:line:col), all
// of them joined in one error.
func Compile(dir string) (*catalog.Catalog, error) {
	return CompileWith(dir, catalog.Options{})
}

// CompileWith is [Compile] with the catalog compiler's options.
func CompileWith(dir string, opts catalog.Options) (*catalog.Catalog, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	// An empty directory is an empty catalog, as it is no manifest jobs
	// (docs/daemon.md): a node can start before its manifests arrive.
	var parsed []*manifest.File
	var errs manifest.ErrorList
	for _, p := range files {
		src, err := inputfile.Read(p)
		if err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
		f, err := manifest.ParseFile(p, src)
		var el manifest.ErrorList
		if errors.As(err, &el) {
			errs = append(errs, el...)
		} else if err != nil {
			return nil, err
		}
		parsed = append(parsed, f)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if opts.Node == "" && opts.Facts == nil {
		opts.Node, opts.Facts = facts.Local()
	}
	cat, err := catalog.CompileWith(opts, parsed...)
	if err != nil {
		return nil, err
	}
	return cat, nil
}

// Apply compiles the manifests and applies them.
func (a *Applier) Apply(ctx context.Context, req agent.Request) (*agent.Report, error) {
	rep := &agent.Report{Start: a.cfg.Clock.Now()}
	fail := func(err error) (*agent.Report, error) {
		rep.Error = err.Error()
		rep.Events = append(rep.Events, agent.Event{Time: a.cfg.Clock.Now(), Level: "Error", Message: err.Error()})
		rep.End = a.cfg.Clock.Now()
		rep.Finish()
		return rep, nil
	}
	cat, err := CompileWith(a.cfg.Dir, a.compileOptions())
	if err != nil {
		return fail(err)
	}
	scheds, err := CatalogSchedules(cat, a.cfg.Location)
	if err != nil {
		return fail(err)
	}
	ac := apply.FromCatalog(cat)
	ac = WithoutControllerTypes(ac, nil)
	for _, r := range ac.Resources {
		name, ok := r.Params["schedule"]
		if !ok || name == nil || r.IsContainer {
			continue
		}
		g, ok := a.resolve(scheds, fmt.Sprint(name))
		if !ok {
			continue // the run aborts with "Could not find schedule"
		}
		rep.Gated = append(rep.Gated, agent.GatedResource{Ref: r.Ref(), Schedule: g.name, Gate: g.agent, Period: g.period})
	}
	plan, err := apply.NewPlan(ac, a.cfg.Ordering, 0)
	if err != nil {
		return fail(err)
	}
	state := apply.NewState()
	for ref, e := range req.State {
		state.Resources[ref] = apply.StateEntry{Checked: e.Checked, Synced: e.Synced}
	}
	log := &recorder{clock: a.cfg.Clock, max: a.cfg.MaxEvents, debug: a.cfg.Debug, byRef: map[string]*notes{}}
	res, runErr := apply.Run(ctx, plan, apply.Options{
		Noop: a.cfg.Noop, Clock: a.cfg.Clock, Providers: a.cfg.Providers,
		Gates: func(name string) (apply.Gate, bool) {
			g, ok := a.resolve(scheds, name)
			return g.apply, ok
		},
		State: state, Log: log,
	})
	cycle := errors.Is(runErr, apply.ErrCycles)
	if !cycle {
		for ref, e := range state.Resources {
			req.State[ref] = agent.ResourceState{Checked: e.Checked, Synced: e.Synced}
		}
	}
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	if res != nil {
		for _, st := range res.Statuses {
			rep.Resources = append(rep.Resources, log.status(st, gatedBy(rep.Gated, st.Ref)))
		}
	}
	rep.Events = log.events()
	rep.End = a.cfg.Clock.Now()
	rep.Finish()
	return rep, nil
}

// WithoutControllerTypes leaves out of an apply the resources the daemon's
// job controller handles (job), and the edges that touch them: a job runs on
// its own schedule, so an apply neither runs it nor reports it as
// unmanageable. left, if not nil, is called with each resource left out.
func WithoutControllerTypes(c *apply.Catalog, left func(r *apply.Resource)) *apply.Catalog {
	out := &apply.Catalog{}
	drop := map[string]bool{}
	for _, r := range c.Resources {
		if controllerTypes[r.Type] {
			drop[r.Ref()] = true
			if left != nil {
				left(r)
			}
			continue
		}
		out.Resources = append(out.Resources, r)
	}
	for _, e := range c.Edges {
		if !drop[e.From] && !drop[e.To] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}

func gatedBy(gated []agent.GatedResource, ref string) string {
	for _, g := range gated {
		if g.Ref == ref {
			return g.Schedule
		}
	}
	return ""
}

// Schedules are the schedules a catalog's resources may gate on, by name:
// the catalog's schedule resources, then Puppet's built-in ones unless a
// resource of the same name replaces them.
type Schedules map[string]*puppetsched.Schedule

// CatalogSchedules builds the catalog's schedule resources; a schedule
// without time_zone reads wall-clock times in loc. An invalid one is an
// error at its position in the manifest.
func CatalogSchedules(cat *catalog.Catalog, loc *time.Location) (Schedules, error) {
	out := Schedules{}
	for _, r := range cat.Applied("schedule") {
		if r.Type != "schedule" {
			continue
		}
		p, err := puppetsched.FromAttrs(r.Params)
		if err == nil {
			var s *puppetsched.Schedule
			s, err = puppetsched.New(r.Title, p, puppetsched.WithDefaultLocation(loc))
			if err == nil {
				out[r.Title] = s
				continue
			}
		}
		return nil, fmt.Errorf("%s: %w", r.Pos, err)
	}
	return out, nil
}

// Lookup finds a schedule: a declared one, else one of Puppet's built-ins.
func (ss Schedules) Lookup(name string) (*puppetsched.Schedule, bool) {
	if s, ok := ss[name]; ok {
		return s, true
	}
	return puppetsched.Builtin(name)
}

// Gate is [Schedules.Lookup] as the apply engine's gate (for
// apply.Options.Gates), matching failures reading as Puppet's.
func (ss Schedules) Gate(name string) (apply.Gate, bool) {
	s, ok := ss.Lookup(name)
	if !ok {
		return nil, false
	}
	return s.Gate(), true
}

// period is the length of a schedule's period (Puppet's monthly is 30 days).
func period(s *puppetsched.Schedule) time.Duration {
	switch s.Period() {
	case puppetsched.Hourly:
		return time.Hour
	case puppetsched.Daily:
		return 24 * time.Hour
	case puppetsched.Weekly:
		return 7 * 24 * time.Hour
	case puppetsched.Monthly:
		return 30 * 24 * time.Hour
	}
	return 0
}

// notes are what the log lines say about one resource.
type notes struct {
	notScheduled  bool
	failedDeps    []string
	eventsDropped bool
	failure       string
}

// recorder keeps an apply's log lines as report events and reads from them
// why resources were skipped or failed.
type recorder struct {
	mu      sync.Mutex
	clock   clock.Clock
	max     int
	debug   bool
	evs     []agent.Event
	dropped int
	byRef   map[string]*notes
}

func (r *recorder) Log(level apply.Level, source, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ref, _, _ := strings.Cut(source, "/")
	n := r.byRef[ref]
	if n == nil && ref != "" {
		n = &notes{}
		r.byRef[ref] = n
	}
	switch {
	case n == nil:
	case msg == "Not scheduled":
		n.notScheduled = true
	case strings.HasPrefix(msg, "Dependency ") && strings.HasSuffix(msg, " has failures: true"):
		n.failedDeps = append(n.failedDeps, strings.TrimSuffix(strings.TrimPrefix(msg, "Dependency "), " has failures: true"))
	case msg == "Skipping because of failed dependencies" && len(n.failedDeps) == 0:
		n.failedDeps = append(n.failedDeps, "")
	case strings.HasPrefix(msg, "Unscheduling all events on "):
		n.eventsDropped = true
	case level == apply.Err && n.failure == "":
		n.failure = msg
	}
	if level == apply.Debug && !r.debug {
		return
	}
	if len(r.evs) >= r.max {
		r.dropped++
		return
	}
	r.evs = append(r.evs, agent.Event{Time: r.clock.Now(), Level: level.String(), Source: source, Message: msg})
}

func (r *recorder) events() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := r.evs
	if r.dropped > 0 {
		evs = append(evs, agent.Event{Time: r.clock.Now(), Level: "Warning",
			Message: fmt.Sprintf("%d more log lines not kept in this report", r.dropped)})
	}
	return evs
}

// status turns the engine's status of one resource into the report's.
func (r *recorder) status(st *apply.Status, schedule string) agent.ResourceStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := agent.ResourceStatus{Ref: st.Ref, Schedule: schedule, Refreshed: st.Refreshed}
	n := r.byRef[st.Ref]
	if n == nil {
		n = &notes{}
	}
	switch {
	case st.Failed:
		rs.Status, rs.Reason = agent.StatusFailed, n.failure
	case st.Skipped && n.notScheduled:
		rs.Status, rs.Reason = agent.StatusSkipped, agent.ReasonNotScheduled
	case st.Skipped && len(n.failedDeps) > 0:
		rs.Status, rs.Reason = agent.StatusSkipped, "failed dependencies"
		if deps := strings.Join(nonEmpty(n.failedDeps), ", "); deps != "" {
			rs.Reason += ": " + deps
		}
	case st.Skipped:
		rs.Status = agent.StatusSkipped
	case st.Changed:
		rs.Status = agent.StatusChanged
	case st.OutOfSync:
		rs.Status = agent.StatusNoop
	default:
		rs.Status = agent.StatusUnchanged
	}
	if n.eventsDropped {
		rs.EventsDropped = true
		if rs.Reason != "" {
			rs.Reason += "; "
		}
		rs.Reason += "its pending refresh events were dropped"
	}
	return rs
}

func nonEmpty(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
