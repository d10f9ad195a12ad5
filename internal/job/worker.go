package job

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// execution is a run this node is executing.
type execution struct {
	run  store.Run
	spec store.JobSpec
	proc Process
	// stopc carries a request to stop the run (Replace, deletion,
	// shutdown, a cancel seen in a heartbeat).
	stopc chan stopRequest
	// elapsed is how long the run had been running when this life of
	// the controller attached to it (reattach.go); its timeout counts it.
	elapsed time.Duration
}

type stopRequest struct {
	why   string
	state store.RunState
}

// stop asks the supervising goroutine to terminate the run; the first
// request wins.
func (x *execution) stop(why string, state store.RunState) {
	select {
	case x.stopc <- stopRequest{why, state}:
	default:
	}
}

// result is what a supervising goroutine reports when its process ended.
type result struct {
	x   *execution
	res Result
	// stopped is set if the run was stopped on purpose or timed out.
	stopped *stopRequest
}

// claimBatch is how many ready runs one claim takes.
const claimBatch = 256

// startWorkers bounds the processes started at the same time. Fork and
// exec are partly serialised by the runtime, but the work around them
// (pipes, environment, path lookup, waiting for the child's exec) overlaps.
const startWorkers = 8

// claim starts every run that is ready now.
func (c *Controller) claim(ctx context.Context, now time.Time) {
	skip := c.closedHere(ctx, now)
	for {
		runs, err := c.st.RunClaim(ctx, store.RunClaimParams{Node: c.cfg.Node, Now: now, Limit: claimBatch, Skip: skip})
		c.noteWrite(err, now)
		if err != nil {
			c.writeFailed(now, "claim runs", "err", err)
			return
		}
		c.startRuns(ctx, runs, now)
		if len(runs) < claimBatch {
			return
		}
		// Starting a batch of processes can take seconds on a loaded
		// machine. Keep the runs started so far heart-beating while
		// the burst drains, or the leader would presume them dead, and
		// claim the next batch at the time it is really claimed.
		now = c.clock.Now()
		if !now.Before(c.nextBeat) {
			c.heartbeat(ctx, now)
			c.nextBeat = now.Add(c.cfg.HeartbeatInterval)
		}
	}
}

// starting is a claimed run on its way to a process.
type starting struct {
	run  store.Run
	spec store.JobSpec
	proc Process
	err  error
}

// startRuns starts the processes of claimed runs, several at a time, and
// then supervises them.
func (c *Controller) startRuns(ctx context.Context, runs []store.Run, now time.Time) {
	list := make([]starting, 0, len(runs))
	for _, r := range runs {
		e := c.jobs[r.Job]
		if e == nil {
			c.endRun(ctx, r, now, store.RunFinishParams{State: store.RunKilled, Error: "job deleted before the run started"})
			continue
		}
		list = append(list, starting{run: r, spec: e.c.spec})
	}
	startAll(ctx, c.exec, list)
	c.recordGroups(ctx, list)
	for _, s := range list {
		if s.err != nil {
			c.endRun(ctx, s.run, now, store.RunFinishParams{State: store.RunFailed, Error: "start: " + s.err.Error()})
			c.retry(ctx, s.run, s.spec, now)
			continue
		}
		x := &execution{run: s.run, spec: s.spec, proc: s.proc, stopc: make(chan stopRequest, 1)}
		c.log.Info("run started", "job", s.run.Job, "run", s.run.ID, "instant", s.run.ScheduledTime, "attempt", s.run.Attempt, "reason", s.run.Reason)
		c.active[s.run.ID] = x
		if lo, ok := s.proc.(LiveOutput); ok {
			c.live.Store(s.run.ID, lo)
		}
		go c.supervise(x)
	}
}

// recordGroups stores the process groups of the started runs in one
// write, so that the next life of this node can stop them if this one dies.
func (c *Controller) recordGroups(ctx context.Context, list []starting) {
	var groups []store.RunProcess
	for _, s := range list {
		if g, ok := s.proc.(grouped); ok && s.err == nil {
			pg := g.Group()
			pg.ID = s.run.ID
			groups = append(groups, pg)
		}
	}
	if len(groups) == 0 {
		return
	}
	if err := c.st.RunSetProcess(ctx, store.RunSetProcessParams{Node: c.cfg.Node, Items: groups}); err != nil {
		c.log.Error("record process groups of runs", "runs", len(groups), "err", err)
	}
}

// startAll starts the processes of list, startWorkers at a time, filling
// in each one's proc or err.
func startAll(ctx context.Context, exec Executor, list []starting) {
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for w := min(len(list), startWorkers); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(list); i = int(next.Add(1) - 1) {
				s := &list[i]
				s.proc, s.err = exec.Start(ctx, s.run, s.spec)
			}
		}()
	}
	wg.Wait()
}

// supervise waits for a run's process, enforcing its timeout and stop
// requests: SIGTERM first, SIGKILL after KillGrace.
func (c *Controller) supervise(x *execution) {
	var timeoutC, graceC <-chan time.Time
	if s := x.spec.TimeoutSeconds; s > 0 {
		t := c.clock.NewTimer(max(time.Duration(s)*time.Second-x.elapsed, 0))
		defer t.Stop()
		timeoutC = t.C()
	}
	var (
		stopped *stopRequest
		grace   clock.Timer
	)
	terminate := func(req stopRequest) {
		if stopped != nil {
			return
		}
		stopped = &req
		x.proc.Terminate()
		grace = c.clock.NewTimer(c.cfg.KillGrace)
		graceC = grace.C()
	}
	for {
		select {
		case <-x.proc.Done():
			if grace != nil {
				grace.Stop()
			}
			c.results <- result{x: x, res: x.proc.Result(), stopped: stopped}
			return
		case <-timeoutC:
			timeoutC = nil
			terminate(stopRequest{fmt.Sprintf("timed out after %s", time.Duration(x.spec.TimeoutSeconds)*time.Second), store.RunFailed})
		case req := <-x.stopc:
			terminate(req)
		case <-graceC:
			graceC = nil
			x.proc.Kill()
		}
	}
}

// finishBatch caps how many ended runs one store call records.
const finishBatch = 256

// drain returns first and every other result already waiting, up to
// finishBatch: the runs whose processes ended while the loop was busy are
// recorded together. It never waits, so a lone run's end is recorded at
// once; under a burst the queue fills by itself while the previous batch
// is written.
func (c *Controller) drain(first result) []result {
	rs := []result{first}
	for len(rs) < finishBatch {
		select {
		case r := <-c.results:
			rs = append(rs, r)
		default:
			return rs
		}
	}
	return rs
}

// finish records runs whose processes ended, in one store call, and
// retries those that failed and have attempts left.
func (c *Controller) finish(ctx context.Context, rs []result) {
	now := c.clock.Now()
	ends := make([]ending, len(rs))
	for i, r := range rs {
		delete(c.active, r.x.run.ID)
		c.live.Delete(r.x.run.ID)
		p := store.RunFinishParams{ExitCode: r.res.ExitCode, Output: r.res.Output, FinishedAt: r.res.Ended}
		switch {
		case r.stopped != nil:
			p.State, p.Error = r.stopped.state, r.stopped.why
		case r.res.Err == nil && r.res.ExitCode != nil && *r.res.ExitCode == 0:
			p.State = store.RunSucceeded
		default:
			p.State = store.RunFailed
			if r.res.Err != nil {
				p.Error = r.res.Err.Error()
			}
		}
		ends[i] = ending{run: r.x.run, p: p}
	}
	recorded, err := c.recordEnds(ctx, ends, now)
	if err != nil {
		// The processes have ended, but the store refuses writes (a full
		// disk, a lost database connection): keep the outcomes and write
		// them when it recovers, rather than let the runs look orphaned.
		c.keepUnrecorded(ends)
		return
	}
	for i, ok := range recorded {
		if d, isDurable := rs[i].x.proc.(durable); isDurable {
			d.Release()
		}
		if ok && ends[i].p.State == store.RunFailed {
			c.retry(ctx, rs[i].x.run, rs[i].x.spec, now)
		}
	}
}

// ending is a run to record as ended.
type ending struct {
	run store.Run
	p   store.RunFinishParams
}

// endRun records a terminal state with its event and reports whether it was
// recorded (false if the run or its job was deleted meanwhile).
func (c *Controller) endRun(ctx context.Context, r store.Run, now time.Time, p store.RunFinishParams) bool {
	recorded, _ := c.recordEnds(ctx, []ending{{run: r, p: p}}, now)
	return recorded[0]
}

// recordEnds records terminal states with their events and history pruning
// in one store call, and reports per run whether it was recorded; err is
// set when the store call as a whole failed.
func (c *Controller) recordEnds(ctx context.Context, ends []ending, now time.Time) ([]bool, error) {
	items := make([]store.RunFinishParams, len(ends))
	for i, en := range ends {
		p := en.p
		p.ID = en.run.ID
		msg := fmt.Sprintf("run %d %s", en.run.ID, p.State)
		if p.ExitCode != nil {
			msg += fmt.Sprintf(" (exit %d)", *p.ExitCode)
		}
		if p.Error != "" {
			msg += ": " + p.Error
		}
		p.Events = []store.Event{{Kind: store.EventRunFinished(p.State), Message: msg}}
		p.Prune = c.pruneOf(en.run.Job)
		items[i] = p
	}
	recorded := make([]bool, len(ends))
	res, err := c.st.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: items, Term: c.term(), Now: now})
	c.noteWrite(err, now)
	if err != nil {
		c.writeFailed(now, "record run ends", "runs", len(items), "err", err)
		return recorded, err
	}
	woken := map[string]bool{}
	for i, r := range res {
		if r.Err != nil {
			if !errors.Is(r.Err, store.ErrNotFound) {
				c.log.Error("record run end", "run", items[i].ID, "err", r.Err)
			}
			continue
		}
		recorded[i] = true
		c.logEnd(r.Run, items[i])
		c.reportEnd(ctx, r.Run, items[i].Output, now)
		if e := c.jobs[r.Run.Job]; e != nil {
			c.releaseSlot(ctx, e.c.spec, r.Run)
		}
		if job := ends[i].run.Job; !woken[job] {
			woken[job] = true
			c.afterFinish(ctx, job, now)
		}
	}
	return recorded, nil
}

// retry schedules the next attempt of a failed run with exponential
// backoff, if the job's backoff_limit allows one.
func (c *Controller) retry(ctx context.Context, r store.Run, spec store.JobSpec, now time.Time) {
	if r.Attempt > spec.BackoffLimit || c.jobs[r.Job] == nil {
		return
	}
	delay := c.backoff(r.Attempt)
	// The retry is held like any run (lifecycle.go): it waits out its
	// backoff, then its gate, window, turn and slot.
	next := store.Run{Job: r.Job, ScheduledTime: r.ScheduledTime, Attempt: r.Attempt + 1, Reason: store.ReasonRetry, Target: r.Target}
	inserted, err := c.st.RunInsert(ctx, store.RunInsertParams{Run: next, Term: c.term(), Now: now, Events: []store.Event{{
		Kind:    store.EventRunRetry,
		Message: fmt.Sprintf("attempt %d of %d after run %d failed; starting in %s", next.Attempt, spec.BackoffLimit+1, r.ID, delay),
	}}})
	if err != nil && !errors.Is(err, store.ErrDuplicate) {
		c.log.Error("schedule retry", "run", r.ID, "err", err)
		return
	}
	c.log.Info("run retry scheduled", "job", r.Job, "run", r.ID, "instant", r.ScheduledTime, "attempt", next.Attempt, "in", delay)
	if e := c.jobs[r.Job]; e != nil && err == nil {
		e.held = append(e.held, inserted)
		c.waiting[r.Job] = e
		c.schedule(e, now)
	}
}

// logEnd logs a recorded run end, one line.
func (c *Controller) logEnd(r store.Run, p store.RunFinishParams) {
	attrs := []any{"job", r.Job, "run", r.ID, "instant", r.ScheduledTime, "state", p.State}
	if p.ExitCode != nil {
		attrs = append(attrs, "exit", *p.ExitCode)
	}
	if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() {
		attrs = append(attrs, "took", r.FinishedAt.Sub(r.StartedAt))
	}
	if p.Error != "" {
		attrs = append(attrs, "error", p.Error)
	}
	if p.State == store.RunFailed {
		c.log.Warn("run finished", attrs...)
		return
	}
	c.log.Info("run finished", attrs...)
}

// backoff is the delay before attempt+1: base × 2^(attempt-1), capped.
func (c *Controller) backoff(attempt int) time.Duration {
	d := c.cfg.BackoffBase
	for i := 1; i < attempt && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, c.cfg.BackoffMax)
}

// afterFinish wakes whatever waits on a job's run ending: its own held
// runs (Forbid) and held runs of jobs that require it.
func (c *Controller) afterFinish(_ context.Context, job string, now time.Time) {
	for name, w := range c.waiting {
		if name == job || slices.Contains(c.upstreams(w.c.spec), job) {
			c.schedule(w, now)
		}
	}
}

// heartbeat refreshes this node's running runs, stops those whose
// cancellation was requested elsewhere, and fails or retries runs whose
// node stopped heart-beating.
func (c *Controller) heartbeat(ctx context.Context, now time.Time) {
	c.flushUnrecorded(ctx, now)
	if len(c.active)+len(c.unrecorded) > 0 {
		ids := c.unrecordedIDs()
		for id := range c.active {
			ids = append(ids, id)
		}
		cancel, err := c.st.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: c.cfg.Node, IDs: ids, Now: now})
		c.noteWrite(err, now)
		if err != nil {
			c.writeFailed(now, "heartbeat", "err", err)
		}
		for _, id := range cancel {
			if x := c.active[id]; x != nil {
				x.stop("cancelled", store.RunKilled)
			}
		}
	}
	c.expireUnclaimed(ctx, now)
	c.expireLost(ctx, now)
}

// recover ends a run nobody executes any more (failed or lost) and
// retries it per backoff.
func (c *Controller) recover(ctx context.Context, r store.Run, state store.RunState, why string, now time.Time) {
	c.log.Warn("run interrupted", "run", r.ID, "job", r.Job, "state", state, "why", why)
	if !c.endRun(ctx, r, now, store.RunFinishParams{State: state, Error: why}) {
		return
	}
	if e := c.jobs[r.Job]; e != nil {
		c.retry(ctx, r, e.c.spec, now)
	}
}

// shutdown stops starting runs, waits up to ShutdownGrace for the active
// ones, then kills the rest and records them.
func (c *Controller) shutdown(ctx context.Context) error {
	c.stopping = true
	defer func() {
		c.flushUnrecorded(ctx, c.clock.Now())
		if n := len(c.unrecorded); n > 0 {
			c.log.Error("stopping with run ends the store refused; those runs will be recovered as interrupted", "runs", n, "ids", c.unrecordedIDs())
		}
	}()
	c.detachDurable()
	if len(c.active) == 0 {
		return nil
	}
	grace := c.clock.NewTimer(c.cfg.ShutdownGrace)
	defer grace.Stop()
	for len(c.active) > 0 {
		select {
		case r := <-c.results:
			c.finish(ctx, c.drain(r))
		case <-grace.C():
			for _, x := range c.active {
				x.stop("killed: almanac shut down", store.RunKilled)
			}
		}
	}
	return nil
}
