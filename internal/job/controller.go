package job

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// Config configures a Controller. Store, Clock and Parse are required.
type Config struct {
	Store store.Store
	Clock clock.Clock
	// Parse compiles cron expressions.
	Parse ParseFunc
	// Gates resolves `schedule` gate names; nil means no gate exists.
	Gates GateFunc
	// Executor starts processes; nil means &Exec{}.
	Executor Executor
	// Node names this process in runs it claims (default "local"). A
	// restarted node finds the runs its previous life left running by it.
	Node string
	// Nodes lists the cluster's nodes for jobs whose nodes selector is
	// not any (fanout.go); nil means this node alone, live, without
	// labels.
	Nodes NodeLister
	// Schema, if set, says whether fanned-out runs may be created yet;
	// while it answers false their instants are skipped with that reason.
	// nil means always (SQLite contracts its schema as it opens).
	Schema SchemaGate
	// Labels are this node's labels (serve --node-label, --node-window):
	// a targeted run is not claimed while the window they give is closed.
	Labels map[string]string
	// Slots hands out reboot slots to jobs with a reboot_group; nil
	// means such runs wait (and are missed at their deadline).
	Slots SlotTaker
	// Accept refuses a job for what only the caller knows (that the gates
	// its schedule and windows name exist, that its reboot group is
	// configured), before PutJob validates it; nil accepts every job. A
	// *ValidationError it returns is the job's.
	Accept func(spec store.JobSpec) error
	// Term returns the current leadership term for fenced writes; nil = 0.
	Term func() int64
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// KillGrace is the time between SIGTERM and SIGKILL (default 10 s).
	KillGrace time.Duration
	// ShutdownGrace is how long Run waits for active runs after its
	// context ends before killing them (default 30 s).
	ShutdownGrace time.Duration
	// BackoffBase and BackoffMax shape retry delays: base, 2×base, 4×base
	// ... capped at max (defaults 10 s and 6 min, as Kubernetes Jobs).
	BackoffBase, BackoffMax time.Duration
	// HeartbeatInterval is how often running runs are heart-beaten; a run
	// without a heartbeat for 3 intervals is presumed dead (default 10 s).
	HeartbeatInterval time.Duration
	// LostAfter is how long another node's running run may go without a
	// heartbeat before it is recorded lost and retried: the node is
	// presumed gone with its machine (default 1 min, at least 3
	// heartbeat intervals). A node back sooner attaches to its runs again.
	LostAfter time.Duration
	// Report, if set, receives each recorded outcome (failure, success,
	// recovered, missed) from the controller's loop; it must not block.
	Report func(ctx context.Context, o Outcome)
	// Alive, if set, is called on every turn of the scheduling loop, and
	// the loop then turns at least every AliveInterval even when nothing
	// is due, so a watchdog can tell a working loop from a wedged one. It
	// must not block.
	Alive         func()
	AliveInterval time.Duration
}

// Controller turns job specs into runs and executes them. Create it with
// NewController and drive it with Run; its other methods are safe to call
// from any goroutine, before or while Run runs.
type Controller struct {
	cfg   Config
	st    store.Store
	clock clock.Clock
	log   *slog.Logger
	exec  Executor

	kick    chan struct{}
	results chan result

	mu      sync.Mutex
	dirty   map[string]bool // jobs changed since the loop last looked
	kills   map[int64]bool  // runs Kill asked to stop
	running bool

	// Owned by the Run goroutine.
	jobs      map[string]*entry
	wakes     wakeHeap
	readyAt   timeHeap // future ReadyAt of released runs
	expireAt  timeHeap // starting deadlines of released targeted runs (fanout.go)
	active    map[int64]*execution
	waiting   map[string]*entry // entries holding pending runs
	fires     []pendingFire     // ready runs to insert at the end of the step
	beforeOf  map[string]map[string]bool
	fanned    int                       // jobs whose nodes selector is not any
	scheds    map[schedKey]*sharedSched // compiled cron schedules, shared by jobs with the same expression and zone
	stopping  bool
	claimable bool // a run may be ready to claim
	nextBeat  time.Time
	// unrecorded are run ends the store refused, kept to write later.
	unrecorded  []ending
	droppedEnds int

	health storeHealth
	clockw clockWatch // wall-clock steps (clockstep.go)
	// live maps the IDs of runs executing on this node to their output,
	// readable from any goroutine (the API follows it).
	live sync.Map
}

// entry is the controller's view of one job. It keeps only what
// scheduling needs (the compiled spec and two instants), not the stored
// job, so that tens of thousands of jobs stay cheap to hold.
type entry struct {
	c *compiled
	// created is when the job was created; last is its LastScheduleTime.
	created, last time.Time
	held          []store.Run // pending runs the controller holds
	// waits are the waiting reasons last recorded for held runs
	// (lifecycle.go), so that only a change is written.
	waits map[int64]store.Waiting
	wake  time.Time // zero: nothing scheduled
	index int       // in wakes; -1 if absent
	fresh bool      // not reconciled since the controller started
	// storeRecheck, when set, is when to try again an instant whose run the
	// store refused to create (storehealth.go).
	storeRecheck time.Time
}

// NewController checks cfg and returns a controller; call Run to start it.
func NewController(cfg Config) (*Controller, error) {
	if cfg.Store == nil || cfg.Clock == nil || cfg.Parse == nil {
		return nil, errors.New("job controller: Store, Clock and Parse are required")
	}
	if cfg.Node == "" {
		cfg.Node = "local"
	}
	if cfg.Term == nil {
		cfg.Term = func() int64 { return 0 }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Executor == nil {
		cfg.Executor = &Exec{}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.KillGrace, 10*time.Second)
	def(&cfg.ShutdownGrace, 30*time.Second)
	def(&cfg.BackoffBase, 10*time.Second)
	def(&cfg.BackoffMax, 6*time.Minute)
	def(&cfg.HeartbeatInterval, 10*time.Second)
	def(&cfg.LostAfter, time.Minute)
	cfg.LostAfter = max(cfg.LostAfter, 3*cfg.HeartbeatInterval)
	return &Controller{
		cfg: cfg, st: cfg.Store, clock: cfg.Clock, log: cfg.Logger, exec: cfg.Executor,
		kick:     make(chan struct{}, 1),
		results:  make(chan result, 64),
		dirty:    map[string]bool{},
		kills:    map[int64]bool{},
		jobs:     map[string]*entry{},
		active:   map[int64]*execution{},
		waiting:  map[string]*entry{},
		beforeOf: map[string]map[string]bool{},
		scheds:   map[schedKey]*sharedSched{},
	}, nil
}

// Notify tells the controller that a job changed in the store behind its
// back (another node, a direct store write); an empty name reloads all jobs.
func (c *Controller) Notify(name string) {
	c.mu.Lock()
	c.dirty[name] = true
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Run loads the jobs, recovers runs a previous life left running, and
// schedules until ctx ends. Then it stops starting runs, waits up to
// ShutdownGrace for active runs, kills the rest, records them as killed,
// and returns nil (or the error that stopped it).
func (c *Controller) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		return errors.New("job controller: already running")
	}
	c.running = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
	}()
	if err := c.start(ctx); err != nil {
		return err
	}
	timer := c.clock.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		c.step(ctx)
		now := c.clock.Now()
		wake := c.nextWake()
		if c.cfg.Alive != nil {
			c.cfg.Alive()
			if a := now.Add(c.cfg.AliveInterval); c.cfg.AliveInterval > 0 && (wake.IsZero() || a.Before(wake)) {
				wake = a
			}
		}
		if wake.IsZero() {
			timer.Stop()
		} else {
			timer.Reset(max(wake.Sub(now), 0))
		}
		select {
		case <-ctx.Done():
			return c.shutdown(context.WithoutCancel(ctx))
		case <-timer.C():
		case <-c.kick:
		case r := <-c.results:
			c.finish(ctx, c.drain(r))
		}
	}
}

// start loads every job and pending run, and fails or retries the runs
// this node's previous life left running.
func (c *Controller) start(ctx context.Context) error {
	now := c.clock.Now()
	began := now
	after := ""
	for {
		jobs, err := c.st.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			return fmt.Errorf("job controller: load jobs: %w", err)
		}
		for _, j := range jobs {
			c.setJob(j, now)
		}
		if len(jobs) < 1000 {
			break
		}
		after = jobs[len(jobs)-1].Spec.Name
	}
	if err := c.loadPending(ctx, true); err != nil {
		return fmt.Errorf("job controller: %w", err)
	}
	c.clockAtStart(ctx, now)
	stale, err := c.st.RunListStale(ctx, store.RunListStaleParams{Node: c.cfg.Node})
	if err != nil {
		return fmt.Errorf("job controller: find interrupted runs: %w", err)
	}
	stale = c.reattach(ctx, stale)
	notes := c.reapOrphans(stale)
	now = c.clock.Now()
	for _, r := range stale {
		why := fmt.Sprintf("interrupted: almanac stopped on node %s while the run was active", r.Node)
		if n := notes[r.ID]; n != "" {
			why += "; " + n
		}
		c.recover(ctx, r, store.RunFailed, why, now)
	}
	c.nextBeat = now.Add(c.cfg.HeartbeatInterval)
	c.claimable = true
	c.log.Info("jobs loaded", "jobs", len(c.jobs), "interrupted_runs", len(stale), "took", c.clock.Now().Sub(began))
	return nil
}

// step does everything due now: reload changed jobs, reconcile due jobs,
// heartbeat, and start ready runs.
func (c *Controller) step(ctx context.Context) {
	now := c.clock.Now()
	c.watchClock(ctx, now)
	c.mu.Lock()
	dirty, kills := c.dirty, c.kills
	c.dirty, c.kills = map[string]bool{}, map[int64]bool{}
	c.mu.Unlock()
	for id := range kills {
		if x := c.active[id]; x != nil {
			x.stop("killed on request", store.RunKilled)
		}
	}
	if len(dirty) > 0 {
		c.claimable = true // a trigger, or another node's release
		// A run may have ended on another node: waves waiting for a slot
		// look again now rather than at their next recheck.
		if c.fannedOut() || c.cfg.Nodes != nil {
			// Retries other nodes inserted are held here like any run.
			if err := c.loadHeld(ctx); err != nil {
				c.log.Error("reload held runs", "err", err)
			}
		}
		for _, w := range c.waiting {
			if holdsTargeted(w) {
				c.schedule(w, now)
			}
		}
	}
	if dirty[""] {
		c.reloadAll(ctx, now)
	}
	for name := range dirty {
		if name != "" {
			c.reload(ctx, name, now)
		}
	}
	for len(c.wakes) > 0 && !c.wakes[0].wake.After(now) {
		e := c.wakes[0]
		c.reconcile(ctx, e, now)
		if len(c.fires) >= maxFireBatch {
			// Insert a thousand at a time, but start nothing before the
			// whole instant has its runs: starting processes here would
			// hold the remaining runs back until this node had started
			// them, while other nodes could. The fires left claimable
			// set, so the claim at the end of the step starts them.
			c.flushFires(ctx, now)
		}
	}
	c.flushFires(ctx, now)
	if !now.Before(c.nextBeat) {
		c.heartbeat(ctx, now)
		c.nextBeat = now.Add(c.cfg.HeartbeatInterval)
	}
	expire := false
	for len(c.expireAt) > 0 && !c.expireAt[0].After(now) {
		heap.Pop(&c.expireAt)
		expire = true
	}
	if expire {
		c.expireUnclaimed(ctx, now)
	}
	for len(c.readyAt) > 0 && !c.readyAt[0].After(now) {
		heap.Pop(&c.readyAt)
		c.claimable = true
	}
	if !c.stopping && c.claimable {
		c.claimable = false
		c.claim(ctx, now)
	}
}

// nextWake is when the loop must next wake up by itself.
func (c *Controller) nextWake() time.Time {
	var w time.Time
	min := func(t time.Time) {
		if !t.IsZero() && (w.IsZero() || t.Before(w)) {
			w = t
		}
	}
	if len(c.wakes) > 0 {
		min(c.wakes[0].wake)
	}
	if len(c.readyAt) > 0 {
		min(c.readyAt[0])
	}
	if len(c.expireAt) > 0 {
		min(c.expireAt[0])
	}
	if len(c.active) > 0 || len(c.unrecorded) > 0 {
		min(c.nextBeat) // unrecorded run ends are retried at heartbeats
	}
	return w
}

// setJob installs or refreshes a job's entry and schedules it for an
// immediate reconcile.
func (c *Controller) setJob(j store.Job, now time.Time) {
	comp, err := compile(j.Spec, c.cfg.Parse)
	if err != nil {
		c.log.Error("job cannot be scheduled", "job", j.Spec.Name, "err", err)
		c.removeJob(j.Spec.Name)
		return
	}
	c.share(comp)
	e := c.jobs[j.Spec.Name]
	if e == nil {
		e = &entry{index: -1, fresh: true}
		c.jobs[j.Spec.Name] = e
	} else {
		c.index(e.c.spec, false)
		c.unshare(e.c)
	}
	e.c, e.created, e.last = comp, j.CreatedAt, j.Status.LastScheduleTime
	c.index(comp.spec, true)
	c.schedule(e, now)
}

// schedKey identifies a compiled cron schedule: its expression, time zone
// and, for an expression with H (hash) fields, the job's name, which the
// hash spreads by (see ParseFunc).
type schedKey struct{ expr, dialect, zone, name string }

// keyOf returns the key of spec's cron schedule.
func keyOf(spec store.JobSpec) schedKey {
	k := schedKey{expr: spec.Cron, dialect: spec.CronDialect, zone: spec.TimeZone}
	if strings.Contains(spec.Cron, "H") {
		k.name = spec.Name
	}
	return k
}

// sharedSched is a compiled schedule and how many jobs use it.
type sharedSched struct {
	s    Schedule
	refs int
}

// share makes comp use the schedule already compiled for its expression
// and zone, if any (jobs often share expressions, and a compiled cron
// expression is a few hundred bytes), or registers its own.
func (c *Controller) share(comp *compiled) {
	if comp.spec.Cron == "" {
		return
	}
	k := keyOf(comp.spec)
	if sh := c.scheds[k]; sh != nil {
		sh.refs++
		comp.sched = sh.s
		return
	}
	c.scheds[k] = &sharedSched{s: comp.sched, refs: 1}
}

// unshare releases comp's hold on its shared schedule.
func (c *Controller) unshare(comp *compiled) {
	if comp.spec.Cron == "" {
		return
	}
	k := keyOf(comp.spec)
	if sh := c.scheds[k]; sh != nil {
		if sh.refs--; sh.refs <= 0 {
			delete(c.scheds, k)
		}
	}
}

func (c *Controller) removeJob(name string) {
	e := c.jobs[name]
	if e == nil {
		return
	}
	c.index(e.c.spec, false)
	c.unshare(e.c)
	if e.index >= 0 {
		heap.Remove(&c.wakes, e.index)
	}
	delete(c.jobs, name)
	delete(c.waiting, name)
	for _, x := range c.active {
		if x.run.Job == name {
			x.stop("job deleted", store.RunKilled)
		}
	}
}

// indexBefore records (or forgets) the reverse edges of spec.Before.
func (c *Controller) indexBefore(spec store.JobSpec, add bool) {
	for _, down := range spec.Before {
		m := c.beforeOf[down]
		if add {
			if m == nil {
				m = map[string]bool{}
				c.beforeOf[down] = m
			}
			m[spec.Name] = true
		} else if m != nil {
			delete(m, spec.Name)
		}
	}
}

// schedule sets e's wake time (zero removes it from the heap).
func (c *Controller) schedule(e *entry, t time.Time) {
	e.wake = t
	switch {
	case t.IsZero() && e.index >= 0:
		heap.Remove(&c.wakes, e.index)
	case t.IsZero():
	case e.index >= 0:
		heap.Fix(&c.wakes, e.index)
	default:
		heap.Push(&c.wakes, e)
	}
}

func (c *Controller) reload(ctx context.Context, name string, now time.Time) {
	j, err := c.st.JobGet(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		c.removeJob(name)
		return
	}
	if err != nil {
		c.log.Error("reload job", "job", name, "err", err)
		return
	}
	c.setJob(j, now)
}

func (c *Controller) reloadAll(ctx context.Context, now time.Time) {
	seen := map[string]bool{}
	after := ""
	for {
		jobs, err := c.st.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			c.log.Error("reload jobs", "err", err)
			return
		}
		for _, j := range jobs {
			seen[j.Spec.Name] = true
			c.setJob(j, now)
		}
		if len(jobs) < 1000 {
			break
		}
		after = jobs[len(jobs)-1].Spec.Name
	}
	for name := range c.jobs {
		if !seen[name] {
			c.removeJob(name)
		}
	}
	// A new leader takes over the runs the previous one held; a node's own
	// list may be stale after another node led.
	if err := c.loadPending(ctx, true); err != nil {
		c.log.Error("reload pending runs", "err", err)
	}
}

// loadHeld replaces what each job's entry holds with the store's held runs.
func (c *Controller) loadHeld(ctx context.Context) error { return c.loadPending(ctx, false) }

// fannedOut reports whether some job fans out to nodes. The claim and
// every wake-up ask, so it is a counter, not a walk over the jobs.
func (c *Controller) fannedOut() bool { return c.fanned > 0 }

// index records (or forgets) what the controller keeps across jobs about
// spec: the reverse edges of its before list, and whether it fans out.
func (c *Controller) index(spec store.JobSpec, add bool) {
	c.indexBefore(spec, add)
	switch {
	case fanned(spec) && add:
		c.fanned++
	case fanned(spec):
		c.fanned--
	}
}

// loadPending reads every pending run: held ones replace what each job's
// entry holds, and with ready, ready ones wake the claim loop at their
// ReadyAt.
func (c *Controller) loadPending(ctx context.Context, ready bool) error {
	held := map[string][]store.Run{}
	var readyAt []time.Time
	var cursor int64
	for {
		runs, next, err := c.st.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunPending}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			return fmt.Errorf("load pending runs: %w", err)
		}
		for _, r := range runs {
			if !r.ReadyAt.IsZero() {
				if ready {
					readyAt = append(readyAt, r.ReadyAt)
				}
				continue
			}
			held[r.Job] = append(held[r.Job], r)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	for _, t := range readyAt {
		heap.Push(&c.readyAt, t)
	}
	waits := c.recordedWaits(ctx, held)
	for name, e := range c.jobs {
		e.held = held[name]
		e.waits = waits[name]
		if len(e.held) > 0 {
			c.waiting[name] = e
		} else {
			delete(c.waiting, name)
		}
	}
	return nil
}

// term is the leadership term for fenced writes.
func (c *Controller) term() int64 { return c.cfg.Term() }

// wakeHeap orders entries by wake time.
type wakeHeap []*entry

func (h wakeHeap) Len() int           { return len(h) }
func (h wakeHeap) Less(i, j int) bool { return h[i].wake.Before(h[j].wake) }
func (h wakeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *wakeHeap) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *wakeHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}

// timeHeap is a min-heap of instants.
type timeHeap []time.Time

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }
func (h *timeHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
