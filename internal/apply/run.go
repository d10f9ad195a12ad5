package apply

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/graph"
)

// Options configure a run.
type Options struct {
	Noop      bool                      // report what would change, change nothing
	Clock     clock.Clock               // the time source for gates and the state file (default clock.Real)
	Providers map[string]Provider       // by resource type, lower case ("exec")
	Gates     func(string) (Gate, bool) // schedules by name; nil means none exist
	State     *State                    // last-checked/synced times, updated in place; nil to not track
	Log       Logger                    // where log lines go; nil discards them
	GraphDir  string                    // if set, write the DOT files there
}

// noProvider are the types that are catalog data rather than something to
// change: a run evaluates them without a provider.
var noProvider = map[string]bool{"schedule": true}

// AbortError means the run stopped as a whole, as Puppet's "Failed to apply
// catalog". Its message has already been logged. Err, when set, is the
// cause, such as ErrCycles.
type AbortError struct {
	Msg string
	Err error
}

func (e *AbortError) Error() string { return "Failed to apply catalog: " + e.Msg }

// Unwrap returns the cause, so errors.Is(err, ErrCycles) finds it.
func (e *AbortError) Unwrap() error { return e.Err }

// ErrCycles is the cause of the AbortError of a catalog with dependency
// cycles: errors.Is(err, ErrCycles) tells a cycle from other aborts.
//
//lint:ignore ST1005 Puppet's own message, which apply prints word for word
var ErrCycles = errors.New("One or more resource dependency cycles detected in graph")

// Status is what happened to one resource.
type Status struct {
	Ref       string
	Evaluated bool // checked against the system (not skipped)
	Skipped   bool
	Failed    bool
	Changed   bool // something was changed (not in noop)
	OutOfSync bool // something was or would have been changed
	Refreshed bool // its refresh ran
}

// Report sums up a run.
type Report struct {
	Resources  int // plain resources in the catalog (containers not counted)
	Changed    int
	OutOfSync  int
	Failed     int
	Skipped    int
	Refreshed  int
	Evaluated  []string // refs in the order they were evaluated (skipped ones left out)
	Statuses   []*Status
	Start, End time.Time
	Seed       uint64
}

// ExitCode maps the report to a process exit code: with detailed, 2 for
// changes, 4 for failures, 6 for both and 0 for neither; without it, 0.
func (r *Report) ExitCode(detailed bool) int {
	if !detailed {
		return 0
	}
	code := 0
	if r.Changed > 0 {
		code |= 2
	}
	if r.Failed > 0 {
		code |= 4
	}
	return code
}

// nstate is the run-time state of one graph node.
type nstate struct {
	failed, failedToRestart, skipped bool
	failedDeps                       []int // failed resources upstream, in discovery order
	queued                           int   // refresh events waiting
	queuedReal                       bool  // at least one of them is not noop
}

type event struct {
	noop       bool
	invalidate bool
}

type run struct {
	ctx      context.Context
	p        *Plan
	opts     Options
	log      Logger
	st       []nstate
	status   map[int]*Status
	notified map[int]bool // failed resources whose "has failures" notice was printed
	report   *Report
}

// Run applies the plan. It returns the report and, if the run could not
// start or stopped as a whole, an *AbortError (already logged).
func Run(ctx context.Context, p *Plan, opts Options) (*Report, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	log := opts.Log
	if log == nil {
		log = LoggerFunc(func(Level, string, string) {})
	}
	r := &run{
		ctx: ctx, p: p, opts: opts, log: log,
		st:       make([]nstate, len(p.nodes)),
		status:   make(map[int]*Status),
		notified: make(map[int]bool),
		report:   &Report{Start: opts.Clock.Now(), Seed: p.Seed},
	}
	for v, n := range p.nodes {
		if n.kind == nodeResource {
			s := &Status{Ref: n.ref}
			r.status[v] = s
			r.report.Statuses = append(r.report.Statuses, s)
			r.report.Resources++
		}
	}
	if opts.GraphDir != "" {
		if err := p.WriteGraphs(opts.GraphDir); err != nil {
			return r.report, r.abort(err.Error())
		}
	}
	if cycles := p.Cycles(1); len(cycles) > 0 {
		return r.report, r.cycles(cycles)
	}
	for _, n := range p.nodes {
		if n.kind == nodeResource && opts.Providers[n.res.Type] == nil && !noProvider[n.res.Type] {
			return r.report, r.abort(fmt.Sprintf("Could not find a provider for %s%s", n.ref, atPos(n.res.Pos)))
		}
	}
	w := p.g.NewWalk(p.less)
	for v, ok := w.Next(); ok; v, ok = w.Next() {
		if err := ctx.Err(); err != nil {
			return r.finish(), r.abort(err.Error())
		}
		if err := r.eval(v); err != nil {
			return r.finish(), err
		}
		w.Finish(v, r.graphState(v))
	}
	return r.finish(), nil
}

func (r *run) finish() *Report {
	r.report.End = r.opts.Clock.Now()
	for _, s := range r.report.Statuses {
		if s.Changed {
			r.report.Changed++
		}
		if s.OutOfSync {
			r.report.OutOfSync++
		}
		if s.Failed {
			r.report.Failed++
		}
		if s.Skipped {
			r.report.Skipped++
		}
		if s.Refreshed {
			r.report.Refreshed++
		}
	}
	return r.report
}

func (r *run) abort(msg string) error {
	r.log.Log(Err, "", "Failed to apply catalog: "+msg)
	return &AbortError{Msg: msg}
}

// abortWith aborts the run for cause, which the AbortError wraps.
func (r *run) abortWith(cause error) error {
	err := r.abort(cause.Error())
	err.(*AbortError).Err = cause
	return err
}

func (r *run) cycles(cycles []Cycle) error {
	tail := "Try the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz"
	if r.opts.GraphDir != "" {
		file, err := r.p.writeCycles(r.opts.GraphDir)
		if err != nil {
			return r.abort(err.Error())
		}
		tail = "Cycle graph written to " + file + "."
	}
	r.log.Log(Err, "", CycleMessage(cycles, tail))
	for _, c := range cycles {
		if len(c.Paths) == 0 {
			continue
		}
		msg := "(" + joinRefs(c.Paths[0]) + ") comes from: "
		for i, o := range c.Origins {
			if i > 0 {
				msg += "; "
			}
			msg += o
		}
		r.log.Log(Err, "", msg)
	}
	for v := range r.p.nodes {
		if s := r.status[v]; s != nil && inCycle(v, cycles, r.p) {
			s.Failed = true
		}
	}
	return r.abortWith(ErrCycles)
}

func inCycle(v int, cycles []Cycle, p *Plan) bool {
	for _, c := range cycles {
		for _, m := range c.Members {
			if m == p.nodes[v].ref {
				return true
			}
		}
	}
	return false
}

func joinRefs(refs []string) string {
	s := ""
	for i, x := range refs {
		if i > 0 {
			s += " => "
		}
		s += x
	}
	return s
}

func (r *run) graphState(v int) graph.State {
	switch s := &r.st[v]; {
	case s.failed || s.failedToRestart:
		return graph.Failed
	case s.skipped:
		return graph.Skipped
	}
	return graph.Done
}

// eval is Puppet's eval_resource for one node.
func (r *run) eval(v int) error {
	n := &r.p.nodes[v]
	s := &r.st[v]
	r.propagateFailure(v)
	skip, err := r.skip(v)
	if err != nil {
		return err
	}
	if skip {
		s.skipped = true
		if st := r.status[v]; st != nil {
			st.Skipped = true
		}
		if s.queued > 0 {
			r.log.Log(Info, n.ref, "Unscheduling all events on "+n.ref)
			s.queued, s.queuedReal = 0, false
		}
		return nil
	}
	if n.kind == nodeResource {
		r.apply(v)
	}
	r.processEvents(v)
	return nil
}

func (r *run) propagateFailure(v int) {
	s := &r.st[v]
	var seen map[int]bool
	add := func(d int) {
		if seen == nil {
			seen = make(map[int]bool)
			for _, x := range s.failedDeps {
				seen[x] = true
			}
		}
		if !seen[d] {
			seen[d] = true
			s.failedDeps = append(s.failedDeps, d)
		}
	}
	for _, d := range r.p.g.In(v) {
		ds := &r.st[d]
		if ds.failed || ds.failedToRestart {
			add(d)
		}
		for _, x := range ds.failedDeps {
			add(x)
		}
	}
}

// skip is Puppet's Transaction#skip?: not scheduled, then failed
// dependencies. A missing schedule aborts the run.
func (r *run) skip(v int) (bool, error) {
	n := &r.p.nodes[v]
	s := &r.st[v]
	if n.kind == nodeResource {
		if name, ok := n.res.Params["schedule"]; ok && name != nil {
			due, err := r.scheduled(n, fmt.Sprint(name))
			if err != nil {
				return false, err
			}
			if !due {
				r.log.Log(Debug, n.ref, "Not scheduled")
				return true, nil
			}
		}
	}
	if len(s.failedDeps) == 0 {
		return false, nil
	}
	if n.kind == nodeResource {
		for _, d := range s.failedDeps {
			if !r.notified[d] {
				r.notified[d] = true
				r.log.Log(Notice, n.ref, fmt.Sprintf("Dependency %s has failures: true", r.p.nodes[d].ref))
			}
		}
		r.log.Log(Warning, n.ref, "Skipping because of failed dependencies")
	}
	return true, nil
}

func (r *run) scheduled(n *node, name string) (bool, error) {
	var gate Gate
	ok := false
	if r.opts.Gates != nil {
		gate, ok = r.opts.Gates(name)
	}
	if !ok {
		return false, r.abort("Could not find schedule " + name)
	}
	var last time.Time
	if r.opts.State != nil {
		last = r.opts.State.Resources[n.ref].Checked
	}
	now := r.opts.Clock.Now()
	if ev, ok := gate.(gateEvaluator); ok {
		due, err := ev.Eval(last, now)
		if err != nil {
			return false, r.abort(err.Error())
		}
		return due, nil
	}
	return gate.Match(last, now), nil
}

func (r *run) noop(n *node) bool {
	if r.opts.Noop {
		return true
	}
	if n.res == nil || n.kind != nodeResource {
		return false
	}
	switch v := n.res.Params["noop"].(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// apply checks one resource against the system and syncs what is out of
// sync, then queues its events.
func (r *run) apply(v int) {
	n := &r.p.nodes[v]
	s := &r.st[v]
	st := r.status[v]
	st.Evaluated = true
	r.report.Evaluated = append(r.report.Evaluated, n.ref)
	prov := r.opts.Providers[n.res.Type]
	var changes []Change
	if prov != nil {
		var err error
		changes, err = prov.Changes(r.ctx, n.res, r.log)
		if err != nil {
			r.log.Log(Err, n.ref, "Could not evaluate: "+err.Error())
			s.failed, st.Failed = true, true
			return
		}
	}
	now := r.opts.Clock.Now()
	if r.opts.State != nil {
		r.opts.State.touch(n.ref, now, false)
	}
	noop := r.noop(n)
	var events []event
	for _, c := range changes {
		src := n.ref + "/" + c.Property
		st.OutOfSync = true
		if noop {
			r.log.Log(Notice, src, fmt.Sprintf("current_value %s, should be %s (noop)", c.Is, c.Should))
			events = append(events, event{noop: true})
			continue
		}
		msg, err := c.Sync(r.ctx, r.log)
		if err != nil {
			r.log.Log(Err, "", err.Error())
			r.log.Log(Err, src, fmt.Sprintf("change from %s to %s failed: %s", c.Is, c.Should, err))
			s.failed, st.Failed = true, true
			continue
		}
		r.log.Log(Notice, src, msg)
		st.Changed = true
		events = append(events, event{invalidate: c.InvalidatesRefreshes})
	}
	if st.Changed && r.opts.State != nil {
		r.opts.State.touch(n.ref, now, true)
	}
	if !s.failed && len(events) > 0 {
		r.queueEvents(v, events)
	}
}

func (r *run) refreshable(v int) bool {
	n := &r.p.nodes[v]
	if n.kind != nodeResource {
		return true
	}
	_, ok := r.opts.Providers[n.res.Type].(Refresher)
	return ok
}

// queueEvents sends v's events along its refresh-carrying edges.
func (r *run) queueEvents(v int, events []event) {
	n := &r.p.nodes[v]
	for _, e := range events {
		if e.invalidate && r.st[v].queued > 0 {
			r.log.Log(Info, n.ref, "Unscheduling refresh on "+n.ref)
			r.st[v].queued, r.st[v].queuedReal = 0, false
			break
		}
	}
	real := false
	for _, e := range events {
		real = real || !e.noop
	}
	for _, a := range r.p.arcs[v] {
		if !a.refresh || !r.refreshable(a.to) {
			continue
		}
		t := &r.p.nodes[a.to]
		if t.kind == nodeCompleted {
			r.log.Log(Debug, n.ref, "The container "+t.ref+" will propagate my refresh event")
		} else {
			r.log.Log(Info, n.ref, "Scheduling refresh of "+t.ref)
		}
		ts := &r.st[a.to]
		ts.queued += len(events)
		ts.queuedReal = ts.queuedReal || real
	}
}

// processEvents runs v's refresh once for all events queued for it.
func (r *run) processEvents(v int) {
	s := &r.st[v]
	if s.queued == 0 {
		return
	}
	n := &r.p.nodes[v]
	count := s.queued
	s.queued = 0
	word := "events"
	if count == 1 {
		word = "event"
	}
	if !s.queuedReal || r.noop(n) {
		s.queuedReal = false
		r.log.Log(Notice, n.ref, fmt.Sprintf("Would have triggered 'refresh' from %d %s", count, word))
		r.queueEvents(v, []event{{noop: true}})
		return
	}
	s.queuedReal = false
	if n.kind == nodeResource {
		ref, _ := r.opts.Providers[n.res.Type].(Refresher)
		if err := ref.Refresh(r.ctx, n.res, r.log); err != nil {
			r.log.Log(Err, n.ref, "Failed to call refresh: "+err.Error())
			r.log.Log(Err, n.ref, err.Error())
			s.failedToRestart, s.failed = true, true
			r.status[v].Failed = true
			return
		}
		r.log.Log(Notice, n.ref, fmt.Sprintf("Triggered 'refresh' from %d %s", count, word))
		st := r.status[v]
		st.Refreshed, st.Changed, st.OutOfSync = true, true, true
	}
	r.queueEvents(v, []event{{}})
}
