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
	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/memlimit"
	"github.com/almanac-sh/almanac/internal/provider/builtin"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// Config configures an Applier. Dir is required.
type Config struct {
	// Dir holds the manifests: every *.pp file under it, in lexical path
	// order, is one catalog.
	Dir   string
	Clock clock.Clock // default clock.Real
	// Location is the zone of schedules without time_zone (default UTC).
	Location  *time.Location
	Providers map[string]apply.Provider // default builtin.Providers()
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
func (a *Applier) resolve(ss apply.Schedules, name string) (resolved, bool) {
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
		cfg.Providers = builtin.Providers()
	}
	if cfg.Ordering == "" {
		cfg.Ordering = apply.OrderManifest
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 1000
	}
	return &Applier{cfg: cfg}, nil
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
	in, err := manifestdir.Read(a.cfg.Dir)
	if err != nil {
		return fail(err)
	}
	// The daemon runs on: the catalog, unreachable once the apply is
	// done, goes back to the system then rather than at the scavenger's
	// pace.
	defer memlimit.Release(in.Size)
	cat, err := manifestdir.Compile(in, a.compileOptions())
	if err != nil {
		return fail(err)
	}
	scheds, err := apply.CatalogSchedules(cat, a.cfg.Location)
	if err != nil {
		return fail(err)
	}
	ac := apply.FromCatalog(cat)
	ac = apply.WithoutControllerTypes(ac, nil)
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

func gatedBy(gated []agent.GatedResource, ref string) string {
	for _, g := range gated {
		if g.Ref == ref {
			return g.Schedule
		}
	}
	return ""
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
