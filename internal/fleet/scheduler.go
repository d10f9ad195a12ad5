package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// Config configures a Scheduler. Source and Clock are required.
type Config struct {
	Source Source
	Clock  clock.Clock
	// Ledger makes actions at-most-once across restarts (default: in memory).
	Ledger Ledger
	// Events receives the event log (default: discarded).
	Events EventSink
	// Notifier delivers failure and schedule-change notifications to each
	// resource's notify address (default: none are sent).
	Notifier Notifier
	// InventoryInterval is the time between inventories (default 15 minutes).
	InventoryInterval time.Duration
	// RetryFor is how long a failed action keeps being retried, counted from
	// its first attempt (default 15 minutes).
	RetryFor time.Duration
	// RetryBackoff is the delay before the first retry (default 30 seconds);
	// it doubles after each failure up to RetryMaxBackoff (default 5 minutes).
	RetryBackoff    time.Duration
	RetryMaxBackoff time.Duration
	// ActionTimeout bounds one attempt of an action (default 2 minutes).
	ActionTimeout time.Duration
	// Parallelism is how many actions run at once (default 8); a
	// BatchSource gets all actions of an instant at once instead.
	Parallelism int
}

// Scheduler keeps an inventory of a Source and acts on each scheduled
// resource at its transition instants. Inventory, Tick and Run may be called
// from several goroutines; they take turns.
type Scheduler struct {
	cfg  Config
	opMu sync.Mutex // serializes Inventory and Tick

	mu            sync.Mutex // guards the fields below
	loaded        bool
	hadInventory  bool // the ledger or an earlier run had an inventory
	res           map[string]*tracked
	checkpoint    time.Time
	lastInventory time.Time
	nextInventory time.Time

	trigger chan struct{}
}

// tracked is the scheduler's view of one resource.
type tracked struct {
	obs   Observed
	val   Validation
	sched string         // identity of the effective schedule, to notice changes
	next  time.Time      // earliest transition after the checkpoint; zero if none
	retry *pendingAction // a failed action waiting for its next attempt
}

// pendingAction is an action on one resource for one transition instant.
type pendingAction struct {
	action   Action
	at       time.Time // the transition instant
	attempt  int       // attempts made so far
	due      time.Time // when the next attempt runs
	deadline time.Time // no attempt starts after this
}

var errNoSource = errors.New("fleet: Config.Source and Config.Clock are required")

// New returns a Scheduler for cfg, filling in defaults.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Source == nil || cfg.Clock == nil {
		return nil, errNoSource
	}
	if cfg.Ledger == nil {
		cfg.Ledger = NewMemoryLedger()
	}
	if cfg.Events == nil {
		cfg.Events = discardSink{}
	}
	if cfg.InventoryInterval <= 0 {
		cfg.InventoryInterval = 15 * time.Minute
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = 15 * time.Minute
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 30 * time.Second
	}
	if cfg.RetryMaxBackoff <= 0 {
		cfg.RetryMaxBackoff = 5 * time.Minute
	}
	if cfg.ActionTimeout <= 0 {
		cfg.ActionTimeout = 2 * time.Minute
	}
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = 8
	}
	return &Scheduler{cfg: cfg, res: map[string]*tracked{}, trigger: make(chan struct{}, 1)}, nil
}

type discardSink struct{}

func (discardSink) Record(context.Context, Event) {}

// load reads the checkpoint and the saved inventory once. Called with opMu held.
func (s *Scheduler) load(ctx context.Context) error {
	if s.loaded {
		return nil
	}
	cp, err := s.cfg.Ledger.Checkpoint(ctx)
	if err != nil {
		return fmt.Errorf("fleet: read checkpoint: %w", err)
	}
	inv, err := s.cfg.Ledger.LoadInventory(ctx)
	if err != nil {
		return fmt.Errorf("fleet: read saved inventory: %w", err)
	}
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if cp.IsZero() {
		cp = now // first run ever: nothing before now is owed
	}
	s.checkpoint = cp
	s.hadInventory = len(inv) > 0
	for id, o := range inv {
		t := &tracked{obs: o}
		t.val = Validate(o.Resource.Tags, o.Resource.SupportsHibernation)
		t.sched = scheduleIdentity(&t.val)
		t.next = nextTransition(&t.val, later(cp, o.ScheduleSince))
		s.res[id] = t
	}
	s.loaded = true
	return nil
}

// InventoryNow asks a running Run loop to take an inventory at once.
func (s *Scheduler) InventoryNow() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// Step does one round of Run's work at the clock's current time: an
// inventory when one is due (or forced), then every action due now. It
// returns the instant the next round is needed. Tests and single-shot
// callers drive the scheduler with Step and a fake clock.
func (s *Scheduler) Step(ctx context.Context, forceInventory bool) time.Time {
	s.mu.Lock()
	due := forceInventory || !s.cfg.Clock.Now().Before(s.nextInventory)
	s.mu.Unlock()
	if due {
		_ = s.Inventory(ctx) // a failure is reported as an event
	}
	wake := s.Tick(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ni := s.nextInventory; wake.IsZero() || ni.Before(wake) {
		wake = ni
	}
	return wake
}

// Run takes an inventory, then acts at every transition and retry instant and
// takes an inventory every InventoryInterval (or when InventoryNow is called),
// until ctx is cancelled. Errors of one inventory or action are reported as
// events, not returned; Run returns nil when ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	force := true
	for {
		wake := s.Step(ctx, force)
		force = false
		d := wake.Sub(s.cfg.Clock.Now())
		if d < 0 {
			d = 0
		}
		timer := s.cfg.Clock.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-s.trigger:
			timer.Stop()
			force = true
		case <-timer.C():
		}
	}
}

// Tick acts on everything due at the clock's current time: the latest
// transition of each resource since the last Tick (only the latest, after
// downtime) and retries whose time has come. It waits for the actions to
// finish and returns the next instant something is due (zero if nothing is
// scheduled).
func (s *Scheduler) Tick(ctx context.Context) time.Time {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if err := s.load(ctx); err != nil {
		s.emit(ctx, Event{Kind: EventInventoryFailed, Message: err.Error()})
		return time.Time{}
	}
	now := s.cfg.Clock.Now()
	jobs := s.collectDue(ctx, now)
	if err := s.cfg.Ledger.SetCheckpoint(ctx, now); err != nil {
		s.emit(ctx, Event{Kind: EventInventoryFailed, Message: fmt.Sprintf("fleet: save checkpoint: %v", err)})
	}
	s.runJobs(ctx, now, jobs)
	return s.nextDue()
}

// job is one attempt of an action.
type job struct {
	t   *tracked
	p   *pendingAction
	err error
}

// collectDue decides what to do at now and advances the checkpoint.
func (s *Scheduler) collectDue(ctx context.Context, now time.Time) []*job {
	s.mu.Lock()
	ids := make([]string, 0, len(s.res))
	for id, t := range s.res {
		if (!t.next.IsZero() && !t.next.After(now)) || (t.retry != nil && !t.retry.due.After(now)) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	cp := s.checkpoint
	s.checkpoint = now
	s.mu.Unlock()

	var jobs []*job
	for _, id := range ids {
		s.mu.Lock()
		t := s.res[id]
		s.mu.Unlock()
		if !t.next.IsZero() && !t.next.After(now) {
			if p := s.transition(ctx, t, cp, now); p != nil {
				jobs = append(jobs, &job{t: t, p: p})
				continue
			}
		}
		if t.retry != nil && !t.retry.due.After(now) {
			jobs = append(jobs, &job{t: t, p: t.retry})
		}
	}
	s.mu.Lock()
	for _, id := range ids {
		t := s.res[id]
		t.next = nextTransition(&t.val, later(now, t.obs.ScheduleSince))
	}
	s.mu.Unlock()
	return jobs
}

// transition handles the latest transition of t in (cp, now], returning the
// action to attempt, or nil when there is nothing to do.
func (s *Scheduler) transition(ctx context.Context, t *tracked, cp, now time.Time) *pendingAction {
	at, action := latestTransition(&t.val, later(cp, t.obs.ScheduleSince), now)
	if at.IsZero() {
		return nil
	}
	r := &t.obs.Resource
	base := Event{Resource: r.ID, Name: r.Name, Action: action, Transition: at}
	if t.retry != nil && at.After(t.retry.at) {
		ev := base
		ev.Kind, ev.Action, ev.Transition = EventActionSkipped, t.retry.action, t.retry.at
		ev.Message = fmt.Sprintf("%s: gave up retrying %s: superseded by the %s at %s", r.Name, t.retry.action, action, stamp(at))
		s.emit(ctx, ev)
		s.mu.Lock()
		t.retry = nil
		s.mu.Unlock()
	}
	ok, err := s.cfg.Ledger.ClaimTransition(ctx, r.ID, at, action)
	if err != nil {
		ev := base
		ev.Kind, ev.Message = EventActionSkipped, fmt.Sprintf("%s: %s at %s not attempted: ledger: %v", r.Name, action, stamp(at), err)
		s.emit(ctx, ev)
		return nil
	}
	if !ok {
		return nil // acted on before (this process or an earlier one)
	}
	if t.obs.ChangeSeenAt.After(at) {
		ev := base
		ev.Kind, ev.State = EventActionSkipped, t.obs.State
		ev.Message = fmt.Sprintf("%s: missed %s at %s not applied: it was changed to %s outside almanac, possibly later", r.Name, action, stamp(at), t.obs.State)
		s.emit(ctx, ev)
		return nil
	}
	if t.obs.State == action.Target() {
		ev := base
		ev.Kind, ev.State = EventActionSkipped, t.obs.State
		ev.Message = fmt.Sprintf("%s: %s at %s not needed: already %s", r.Name, action, stamp(at), t.obs.State)
		s.emit(ctx, ev)
		return nil
	}
	return &pendingAction{action: action, at: at, deadline: now.Add(s.cfg.RetryFor)}
}

// runJobs runs one attempt of each job (in batches when the source takes
// them, else at most Parallelism at once), then records the outcomes in job
// order.
func (s *Scheduler) runJobs(ctx context.Context, now time.Time, jobs []*job) {
	if len(jobs) == 0 {
		return
	}
	s.mu.Lock()
	for _, j := range jobs {
		j.p.attempt++
	}
	s.mu.Unlock()
	for _, j := range jobs {
		if j.p.attempt == 1 {
			r := &j.t.obs.Resource
			s.emit(ctx, Event{Kind: EventActionStarted, Resource: r.ID, Name: r.Name, Action: j.p.action,
				Transition: j.p.at, Attempt: 1, State: j.t.obs.State,
				Message: fmt.Sprintf("%s: %s for the transition at %s", r.Name, j.p.action, stamp(j.p.at))})
		}
	}
	if bs, ok := s.cfg.Source.(BatchSource); ok {
		s.runBatch(ctx, bs, jobs)
	} else {
		s.runEach(ctx, jobs)
	}
	for _, j := range jobs {
		s.finish(ctx, now, j)
	}
}

// runEach runs one attempt of each job, one source call per job, at most
// Parallelism at once.
func (s *Scheduler) runEach(ctx context.Context, jobs []*job) {
	sem := make(chan struct{}, s.cfg.Parallelism)
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func(j *job) {
			defer func() { <-sem; wg.Done() }()
			actx, cancel := context.WithTimeout(ctx, s.cfg.ActionTimeout)
			defer cancel()
			j.err = do(actx, s.cfg.Source, j.p.action, j.t.obs.Resource.ID)
		}(j)
	}
	wg.Wait()
}

// finish records the outcome of one attempt.
func (s *Scheduler) finish(ctx context.Context, now time.Time, j *job) {
	t, p := j.t, j.p
	r := &t.obs.Resource
	base := Event{Resource: r.ID, Name: r.Name, Action: p.action, Transition: p.at, Attempt: p.attempt}
	if j.err == nil {
		s.mu.Lock()
		old := t.obs.State
		t.obs.State = p.action.Target()
		t.retry = nil
		obs := t.obs
		s.mu.Unlock()
		ev := base
		ev.Kind, ev.State, ev.OldState = EventActionSucceeded, obs.State, old
		ev.Message = fmt.Sprintf("%s: %s succeeded (attempt %d): now %s", r.Name, p.action, p.attempt, obs.State)
		s.emit(ctx, ev)
		if err := s.cfg.Ledger.SaveObserved(ctx, obs); err != nil {
			s.emit(ctx, Event{Kind: EventInventoryFailed, Resource: r.ID, Name: r.Name, Message: fmt.Sprintf("fleet: save state: %v", err)})
		}
		return
	}
	if now.Before(p.deadline) {
		delay := s.cfg.RetryMaxBackoff
		if p.attempt < 30 && s.cfg.RetryBackoff<<(p.attempt-1) < delay {
			delay = s.cfg.RetryBackoff << (p.attempt - 1)
		}
		s.mu.Lock()
		p.due = now.Add(delay)
		if p.due.After(p.deadline) {
			p.due = p.deadline
		}
		t.retry = p
		s.mu.Unlock()
		ev := base
		ev.Kind = EventActionRetried
		ev.Message = fmt.Sprintf("%s: %s failed (attempt %d), retrying at %s: %v", r.Name, p.action, p.attempt, stamp(p.due.In(p.at.Location())), j.err)
		s.emit(ctx, ev)
		return
	}
	s.mu.Lock()
	t.retry = nil
	notify := t.val.Notify
	s.mu.Unlock()
	ev := base
	ev.Kind = EventActionFailed
	ev.Message = fmt.Sprintf("%s: %s failed after %d attempts over %s: %v", r.Name, p.action, p.attempt, s.cfg.RetryFor, j.err)
	s.emit(ctx, ev)
	s.notify(ctx, t, notify, Notification{
		Kind:    NotifyActionFailed,
		Subject: fmt.Sprintf("almanac: %s of %s failed", p.action, r.Name),
		Body: fmt.Sprintf("almanac could not %s %s (%s) for its scheduled transition at %s.\n"+
			"It tried %d times over %s; the last error was:\n\n  %v\n\nThe resource is left as it is until its next transition.\n",
			p.action, r.Name, r.ID, stamp(p.at), p.attempt, s.cfg.RetryFor, j.err),
	})
}

// notify sends n to addr (when there is an address and a notifier) and logs
// the outcome.
func (s *Scheduler) notify(ctx context.Context, t *tracked, addr string, n Notification) {
	if addr == "" || s.cfg.Notifier == nil {
		return
	}
	r := &t.obs.Resource
	n.To, n.Resource, n.Name, n.Time = addr, r.ID, r.Name, s.cfg.Clock.Now()
	ev := Event{Resource: r.ID, Name: r.Name, Value: addr}
	if err := s.cfg.Notifier.Notify(ctx, n); err != nil {
		ev.Kind, ev.Message = EventNotificationError, fmt.Sprintf("%s: notifying %s failed: %v", r.Name, addr, err)
	} else {
		ev.Kind, ev.Message = EventNotificationSent, fmt.Sprintf("%s: notified %s: %s", r.Name, addr, n.Subject)
	}
	s.emit(ctx, ev)
}

// nextDue returns the earliest pending transition or retry instant.
func (s *Scheduler) nextDue() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best time.Time
	for _, t := range s.res {
		if !t.next.IsZero() && (best.IsZero() || t.next.Before(best)) {
			best = t.next
		}
		if t.retry != nil && (best.IsZero() || t.retry.due.Before(best)) {
			best = t.retry.due
		}
	}
	return best
}

func (s *Scheduler) emit(ctx context.Context, e Event) {
	if e.Time.IsZero() {
		e.Time = s.cfg.Clock.Now()
	}
	s.cfg.Events.Record(ctx, e)
}

// nextTransition returns the first start or stop instant strictly after t,
// or zero when the resource is not actionable.
func nextTransition(v *Validation, t time.Time) time.Time {
	var best time.Time
	if at, ok := v.NextStart(t); ok {
		best = at
	}
	if at, ok := v.NextStop(t); ok && (best.IsZero() || at.Before(best)) {
		best = at
	}
	return best
}

// latestTransition returns the latest start or stop instant in (floor, now]
// and its action. When a start and a stop resolve to the same instant (two
// wall times in one DST gap), the stop wins.
func latestTransition(v *Validation, floor, now time.Time) (time.Time, Action) {
	if !v.Actionable() {
		return time.Time{}, ""
	}
	end := now.Add(time.Nanosecond)
	var at time.Time
	var action Action
	if v.Start != nil {
		if p := v.Start.Prev(end); p.After(floor) {
			at, action = p, ActionStart
		}
	}
	if v.Stop != nil {
		if p := v.Stop.Prev(end); p.After(floor) && !p.Before(at) {
			at, action = p, ActionStop
			if v.Hibernate {
				action = ActionHibernate
			}
		}
	}
	return at, action
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func stamp(t time.Time) string { return t.Format(time.RFC3339) }
