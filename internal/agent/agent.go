package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// Defaults for Config.
const (
	DefaultInterval = 30 * time.Minute
	// DefaultStateTTL is how long a resource's state survives without being
	// checked again (Puppet's statettl default).
	DefaultStateTTL = 32 * 24 * time.Hour
	// DefaultKeepReports is how many reports are kept when Config.Retention
	// is zero.
	DefaultKeepReports = 1000
)

// Watcher reports manifest changes. Each value received names what changed
// (for the report); the agent applies once per burst of changes that arrive
// while an apply runs.
type Watcher interface {
	Changes() <-chan string
}

// Config configures an Agent. Applier is required.
type Config struct {
	Applier Applier
	Store   StateStore  // default: a MemoryStore
	Clock   clock.Clock // default: clock.Real
	Log     *slog.Logger
	Watcher Watcher // optional; Notify does the same by hand

	// Interval is the time between interval applies (default 30 min);
	// negative disables them.
	Interval time.Duration
	// Host names this node; its hash picks the phase of the interval
	// applies (see Splay). Default: os.Hostname.
	Host string
	// NoSplay puts every host at phase 0 (applies on the interval's
	// multiples since the Unix epoch).
	NoSplay bool

	// StateTTL prunes state entries not checked for this long (default 32
	// days; negative keeps them forever).
	StateTTL time.Duration
	// Retention is which reports to keep (default: the newest 1000).
	Retention Retention

	// OnReport, if set, is called with each stored report (after its id is
	// assigned), from the agent's goroutine.
	OnReport func(*Report)

	// Leading, if set, says whether this node leads its cluster now and
	// with which term (cluster.Node.Leading). Only the leader applies; see
	// leader.go. Nil means the node is alone and always applies.
	Leading func() (bool, int64)
	// LeaderCheck is how often the agent asks Leading (default 1 s).
	LeaderCheck time.Duration
}

// Agent applies a catalog on triggers. Create it with New, start it with Run.
type Agent struct {
	cfg   Config
	splay time.Duration
	wake  chan struct{}

	mu       sync.Mutex
	pending  *Trigger
	running  *Trigger
	started  bool
	nextTick time.Time
	gateWake *Trigger // the next gate opening, consumed when it fires
	last     *Report  // summary of the latest report
	leading  bool     // this node may apply (always, without Config.Leading)
	term     int64    // the term it leads in (0 without Config.Leading)

	// owned by the Run goroutine
	state State
	gated []GatedResource
}

// New checks cfg and returns an agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Applier == nil {
		return nil, errors.New("agent: no applier")
	}
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			h = "localhost"
		}
		cfg.Host = h
	}
	if cfg.StateTTL == 0 {
		cfg.StateTTL = DefaultStateTTL
	}
	if cfg.Retention == (Retention{}) {
		cfg.Retention = Retention{Keep: DefaultKeepReports}
	}
	if cfg.LeaderCheck <= 0 {
		cfg.LeaderCheck = DefaultLeaderCheck
	}
	a := &Agent{cfg: cfg, wake: make(chan struct{}, 1), leading: cfg.Leading == nil}
	if cfg.Interval > 0 && !cfg.NoSplay {
		a.splay = Splay(cfg.Host, cfg.Interval)
	}
	return a, nil
}

// Store returns the agent's state store (for the API to list reports).
func (a *Agent) Store() StateStore { return a.cfg.Store }

// Trigger asks for an apply as soon as possible, with reason recorded in the
// report. It reports false if the request was folded into one already
// waiting, or dropped because this node does not lead (Status().Standby).
func (a *Agent) Trigger(reason string) bool {
	return a.enqueue(Trigger{Kind: TriggerManual, Reason: reason, At: a.cfg.Clock.Now()})
}

// Notify tells the agent the manifests changed (what names the change).
// It reports false if the request was folded into one already waiting or
// dropped on a node that does not lead.
func (a *Agent) Notify(what string) bool {
	return a.enqueue(Trigger{Kind: TriggerManifest, Reason: what, At: a.cfg.Clock.Now()})
}

func (a *Agent) enqueue(t Trigger) bool {
	a.mu.Lock()
	if !a.leading {
		a.mu.Unlock()
		return false
	}
	fresh := a.pending == nil
	if fresh {
		a.pending = &t
	} else {
		a.pending.Coalesced++
	}
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return fresh
}

// Status is a snapshot of what the agent is doing.
type Status struct {
	Host     string        `json:"host"`
	Interval time.Duration `json:"interval"`
	Splay    time.Duration `json:"splay"`
	Running  *Trigger      `json:"running,omitempty"` // the apply in progress
	Pending  *Trigger      `json:"pending,omitempty"` // the follow-up waiting for it
	// NextInterval is when the next interval apply is due.
	NextInterval *time.Time `json:"next_interval,omitempty"`
	// NextGate is the next gate opening the agent will wake for.
	NextGate *Trigger `json:"next_gate,omitempty"`
	// Last summarises the latest report.
	Last *Report `json:"last,omitempty"`
	// Standby is true on a node of a cluster that does not lead: it applies
	// nothing and drops triggers; the leader applies for the cluster.
	Standby bool `json:"standby,omitempty"`
	// Term is the cluster term this node leads in (0 when alone).
	Term int64 `json:"term,omitempty"`
}

// Status returns what the agent is doing now.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := Status{Host: a.cfg.Host, Interval: a.cfg.Interval, Splay: a.splay, Standby: !a.leading, Term: a.term}
	cp := func(t *Trigger) *Trigger {
		if t == nil {
			return nil
		}
		c := *t
		return &c
	}
	s.Running, s.Pending, s.NextGate = cp(a.running), cp(a.pending), cp(a.gateWake)
	if !a.nextTick.IsZero() {
		t := a.nextTick
		s.NextInterval = &t
	}
	if a.last != nil {
		c := *a.last
		s.Last = &c
	}
	return s
}

// Run applies at start-up and then on every trigger until ctx ends. It
// returns nil when ctx ends, or an error if the state cannot be loaded.
// Run may be called once.
func (a *Agent) Run(ctx context.Context) error {
	a.mu.Lock()
	if a.started {
		a.mu.Unlock()
		return errors.New("agent: Run called twice")
	}
	a.started = true
	a.mu.Unlock()

	state, err := a.cfg.Store.LoadState(ctx)
	if err != nil {
		return fmt.Errorf("agent: load state: %w", err)
	}
	if state == nil {
		state = State{}
	}
	a.state = state
	now := a.cfg.Clock.Now()
	a.mu.Lock()
	a.nextTick = a.intervalAfter(now)
	a.mu.Unlock()
	if a.cfg.Leading == nil {
		a.enqueue(Trigger{Kind: TriggerStartup, At: now})
	} else {
		a.checkLeader(ctx, TriggerStartup)
	}

	var changes <-chan string
	if a.cfg.Watcher != nil {
		changes = a.cfg.Watcher.Changes()
	}
	for {
		if ctx.Err() != nil {
			return nil
		}
		if a.cfg.Leading != nil {
			a.checkLeader(ctx, TriggerLeader)
		}
		if t, term, ok := a.take(); ok {
			a.apply(WithTerm(ctx, term), t)
			continue
		}
		now := a.cfg.Clock.Now()
		deadline, due := a.due(now)
		if due {
			continue
		}
		if a.cfg.Leading != nil {
			if check := now.Add(a.cfg.LeaderCheck); check.Before(deadline) {
				deadline = check
			}
		}
		timer := a.cfg.Clock.NewTimer(deadline.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C():
		case <-a.wake:
			timer.Stop()
		case what, ok := <-changes:
			timer.Stop()
			if !ok {
				changes = nil
				continue
			}
			a.Notify(what)
		}
	}
}

// take moves the pending trigger to running and returns it with the term
// the apply runs under.
func (a *Agent) take() (Trigger, int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil || !a.leading {
		return Trigger{}, 0, false
	}
	t := *a.pending
	a.pending = nil
	a.running = &t
	return t, a.term, true
}

// due enqueues the gate opening and the interval tick that are due at now
// (a gate first, so the report names the schedule; both due at once make
// one apply) and reports whether it did. Otherwise it returns the instant
// to wake up at.
func (a *Agent) due(now time.Time) (time.Time, bool) {
	a.mu.Lock()
	var fire []Trigger
	if g := a.gateWake; g != nil && !g.At.After(now) {
		fire = append(fire, *g)
		a.gateWake = nil
	}
	if !a.nextTick.IsZero() && !a.nextTick.After(now) {
		fire = append(fire, Trigger{Kind: TriggerInterval, At: a.nextTick})
		a.nextTick = a.intervalAfter(now)
	}
	deadline := a.nextTick
	if g := a.gateWake; g != nil && (deadline.IsZero() || g.At.Before(deadline)) {
		deadline = g.At
	}
	a.mu.Unlock()
	for _, t := range fire {
		a.enqueue(t)
	}
	if len(fire) > 0 {
		return time.Time{}, true
	}
	if deadline.IsZero() {
		deadline = now.Add(100 * 365 * 24 * time.Hour) // nothing scheduled: wait for a trigger
	}
	return deadline, false
}

// intervalAfter returns the first interval tick strictly after now: the
// instants k*Interval + splay since the Unix epoch, or zero if interval
// applies are disabled.
func (a *Agent) intervalAfter(now time.Time) time.Time {
	iv := a.cfg.Interval
	if iv <= 0 {
		return time.Time{}
	}
	phase := time.Unix(0, 0).Add(a.splay)
	k := now.Sub(phase) / iv
	t := phase.Add(k * iv)
	for !t.After(now) {
		t = t.Add(iv)
	}
	for t.Add(-iv).After(now) {
		t = t.Add(-iv)
	}
	return t
}

// apply runs one apply for t, stores its report and state, and computes the
// next gate wake-up.
func (a *Agent) apply(ctx context.Context, t Trigger) {
	log := a.cfg.Log.With("trigger", t.String())
	start := a.cfg.Clock.Now()
	state := a.state.Clone()
	rep, err := a.cfg.Applier.Apply(ctx, Request{Trigger: t, State: state})
	end := a.cfg.Clock.Now()
	if err != nil || rep == nil {
		if err == nil {
			err = errors.New("applier returned no report")
		}
		rep = &Report{Error: err.Error()}
	} else {
		a.state = state
		a.gated = rep.Gated
	}
	rep.Host, rep.Trigger = a.cfg.Host, t
	if rep.Start.IsZero() {
		rep.Start = start
	}
	if rep.End.IsZero() {
		rep.End = end
	}
	wake := a.plan(rep, end)
	rep.Finish()

	if a.cfg.StateTTL > 0 {
		cutoff := end.Add(-a.cfg.StateTTL)
		for ref, e := range a.state {
			if e.Checked.Before(cutoff) {
				delete(a.state, ref)
			}
		}
	}
	// A failed write is logged, not fatal: the agent keeps the state in
	// memory and tries again after the next apply.
	if err := a.cfg.Store.SaveState(ctx, a.state); err != nil {
		log.Error("save agent state", "err", err)
	}
	if _, err := a.cfg.Store.AddReport(ctx, rep); err != nil {
		log.Error("store apply report", "err", err)
	}
	if n, err := a.cfg.Store.PruneReports(ctx, a.cfg.Retention, end); err != nil {
		log.Error("prune apply reports", "err", err)
	} else if n > 0 {
		log.Debug("pruned apply reports", "deleted", n)
	}
	for _, w := range rep.Warnings {
		log.Warn(w.Message, "resource", w.Ref, "schedule", w.Schedule)
	}
	log.Info("apply finished", "id", rep.ID, "status", rep.Status, "exit_code", rep.ExitCode,
		"changed", rep.Summary.Changed, "failed", rep.Summary.Failed, "skipped", rep.Summary.Skipped,
		"duration", rep.End.Sub(rep.Start), "error", rep.Error)

	summary := *rep
	summary.Resources, summary.Events, summary.Gated = nil, nil, nil
	a.mu.Lock()
	a.running = nil
	a.gateWake = wake
	a.last = &summary
	a.mu.Unlock()
	if a.cfg.OnReport != nil {
		a.cfg.OnReport(rep)
	}
}

// ListReports lists the stored reports, newest first (see StateStore).
func (a *Agent) ListReports(ctx context.Context, f ReportFilter) ([]*Report, error) {
	return a.cfg.Store.ListReports(ctx, f)
}

// GetReport returns one stored report (see StateStore).
func (a *Agent) GetReport(ctx context.Context, id int64) (*Report, error) {
	return a.cfg.Store.GetReport(ctx, id)
}
