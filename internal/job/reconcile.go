package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// reconcile brings one job up to date at now: it turns the instants that
// came due since the job's last schedule time into (at most) one run plus
// one missed event, decides what each held run should do, and sets the
// job's next wake time.
func (c *Controller) reconcile(ctx context.Context, e *entry, now time.Time) {
	spec := e.c.spec
	fresh := e.fresh
	e.fresh = false
	if !spec.Suspend && !c.stopping {
		cursor := e.last
		if cursor.IsZero() {
			cursor = e.created
			if spec.At != nil && !spec.At.After(cursor) {
				// A one-shot whose instant had passed when it was created
				// is due at once (within its deadline).
				cursor = spec.At.Add(-time.Nanosecond)
			}
		}
		// A randomized delay shifts when an instant comes due, not the
		// instant itself: the run keeps its nominal scheduled time.
		if d := dueBetween(e.c.sched, cursor, now.Add(-e.c.delay)); d.n > 0 {
			c.fire(ctx, e, d, now, fresh)
		}
	}
	var wake time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	if !spec.Suspend {
		if next := e.c.sched.Next(maxTime(e.last, now.Add(-e.c.delay))); !next.IsZero() {
			earliest(next.Add(e.c.delay))
		}
	}
	if e.storeRecheck.After(now) {
		// fire's insert failed: reconcile's own wake must not lose it.
		earliest(e.storeRecheck)
	}
	e.storeRecheck = time.Time{}
	held := e.held
	e.held = nil
	w, keep := c.evaluateHeld(ctx, e, held, now)
	e.held = append(e.held, keep...)
	earliest(w)
	if len(e.held) > 0 {
		c.waiting[spec.Name] = e
	} else {
		delete(c.waiting, spec.Name)
	}
	if !wake.IsZero() && !wake.After(now) {
		c.log.Warn("schedule returned an instant not in the future; looking again in a second", "job", spec.Name, "at", wake)
		wake = now.Add(time.Second)
	}
	c.schedule(e, wake)
}

// missedData is the Data of a run.missed event for instants that got no run.
type missedData struct {
	Count int64     `json:"count"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// fire handles the instants d that came due: the latest runs if it is still
// inside the starting deadline, and all the others become one missed event.
func (c *Controller) fire(ctx context.Context, e *entry, d due, now time.Time, fresh bool) {
	spec := e.c.spec
	limit, hasLimit := deadline(spec)
	// The starting deadline counts from the delayed instant (docs/jobs.md).
	runIt := !hasLimit || now.Sub(d.last.Add(e.c.delay)) <= limit
	policy := catchUpOf(spec)
	late := d.n > 1 || fresh // the instants passed while nobody could start them
	if policy == CatchUpNone && late {
		runIt = false
	}
	// With catch_up all, the latest instants before d.last also get runs
	// (a backlog), up to maxBacklog of them; the ones before are missed.
	missed, lastMissed := d.n-1, d.penult
	var backlog []time.Time
	if policy == CatchUpAll && runIt && d.n > 1 {
		backlog, lastMissed = backlogOf(e.c.sched, d, maxBacklog)
		missed -= int64(len(backlog))
	}
	if !runIt {
		missed, lastMissed = d.n, d.last
	}
	var events []store.Event
	if missed > 0 {
		data, _ := json.Marshal(missedData{Count: missed, First: d.first, Last: lastMissed})
		msg := fmt.Sprintf("missed %d scheduled run(s) from %s to %s", missed,
			d.first.In(e.c.loc).Format(time.RFC3339), lastMissed.In(e.c.loc).Format(time.RFC3339))
		switch {
		case policy == CatchUpNone && late:
			msg += ": catch_up none"
		case len(backlog) > 0:
			msg += fmt.Sprintf(": catch_up all keeps the latest %d", maxBacklog)
		case hasLimit && !runIt:
			msg += fmt.Sprintf(": later than the starting deadline of %s", limit)
		case hasLimit:
			msg += fmt.Sprintf(": later than the starting deadline of %s, or not the latest (catch_up %s)", limit, policy)
		default:
			msg += fmt.Sprintf(": only the latest runs (catch_up %s)", policy)
		}
		events = append(events, store.Event{Time: now, Kind: store.EventRunMissed, Job: spec.Name, Message: msg, Data: data})
		c.report(ctx, Outcome{Kind: OutcomeMissed, Spec: spec, Run: store.Run{Job: spec.Name, ScheduledTime: lastMissed}, Message: msg, Time: now})
		c.logMissed(spec.Name, missed, d.first, lastMissed)
	}
	if !runIt {
		c.advanceJob(ctx, e, d.last, events)
		return
	}
	if len(events) > 0 {
		// The instants given up got no run, so their event names none: it
		// is written as the schedule moves past them, not with the run
		// that follows, which would give it that run's id. If the store
		// refuses, nothing is written and the whole fire is tried again.
		if !c.advanceJob(ctx, e, lastMissed, events) {
			c.recheckStoreSoon(e, now)
			return
		}
		events = nil
	}
	reason := store.ReasonSchedule
	if late {
		reason = store.ReasonCatchUp
	}
	for _, at := range backlog {
		// Held: each waits for the one before it (decide's catch-up order).
		if fanned(spec) {
			c.fireNodes(ctx, e, at, store.ReasonCatchUp, now, nil)
			continue
		}
		p := store.RunInsertParams{Run: store.Run{Job: spec.Name, ScheduledTime: at, Attempt: 1, Reason: store.ReasonCatchUp},
			Advance: true, Term: c.term(), Now: now,
			Events: []store.Event{{Time: now, Kind: store.EventRunScheduled, Job: spec.Name,
				Message: fmt.Sprintf("scheduled catch-up run for %s (catch_up all)", at.In(e.c.loc).Format(time.RFC3339))}}}
		r, err := c.st.RunInsert(ctx, p)
		c.fired(ctx, e, p.Run, r, err)
	}
	if fanned(spec) {
		c.fireNodes(ctx, e, d.last, reason, now, events)
		return
	}
	if spec.ConcurrencyPolicy == store.Forbid {
		if active := c.activeRuns(ctx, spec.Name, 0); len(active) > 0 {
			events = append(events, store.Event{Time: now, Kind: store.EventRunSkipped, Job: spec.Name,
				Message: fmt.Sprintf("skipped the run for %s: previous run active (run %d)", d.last.In(e.c.loc).Format(time.RFC3339), active[0].ID)})
			c.log.Info("run skipped", "job", spec.Name, "instant", d.last, "reason", "previous run active", "active_run", active[0].ID)
			c.advanceJob(ctx, e, d.last, events)
			return
		}
	}
	at := d.last.In(e.c.loc).Format(time.RFC3339)
	// A run with nothing to wait for is inserted ready to start, saving a
	// round trip; otherwise it is held and evaluated below.
	var readyAt time.Time
	if len(e.held) == 0 && c.canStart(spec, now) {
		// Nothing of the job is held: no earlier instant to go first or
		// to supersede.
		if spec.ConcurrencyPolicy == store.Replace {
			for _, a := range c.activeRuns(ctx, spec.Name, 0) {
				c.replace(ctx, a, "replaced by the run for "+at, now)
			}
		}
		readyAt = now
	}
	events = append(events, store.Event{Time: now, Kind: store.EventRunScheduled, Job: spec.Name,
		Message: fmt.Sprintf("scheduled %s run for %s", reason, at)})
	p := store.RunInsertParams{
		Run:     store.Run{Job: spec.Name, ScheduledTime: d.last, Attempt: 1, Reason: reason, ReadyAt: readyAt},
		Advance: true, Events: events,
	}
	if !readyAt.IsZero() {
		// Ready runs due together are inserted together (flushFires):
		// one transaction for all of them instead of one each.
		c.fires = append(c.fires, pendingFire{e: e, p: p})
		return
	}
	p.Term, p.Now = c.term(), now
	r, err := c.st.RunInsert(ctx, p)
	// A refused insert (a schema the code does not match, a full disk)
	// makes /healthz say so, as a refused batch does.
	c.noteWrite(err, now)
	c.fired(ctx, e, p.Run, r, err)
}

// pendingFire is a ready run reconcile decided to create, waiting for the
// batch insert at the end of the step.
type pendingFire struct {
	e *entry
	p store.RunInsertParams
}

// maxFireBatch bounds the runs inserted in one transaction.
const maxFireBatch = 1000

// flushFires inserts the pending fires in one batch (per maxFireBatch)
// and records the outcomes as a single insert would.
func (c *Controller) flushFires(ctx context.Context, now time.Time) {
	for len(c.fires) > 0 {
		n := min(len(c.fires), maxFireBatch)
		batch := c.fires[:n:n]
		c.fires = c.fires[n:]
		items := make([]store.RunInsertParams, n)
		for i, f := range batch {
			items[i] = f.p
		}
		res, err := c.st.RunInsertBatch(ctx, store.RunInsertBatchParams{Items: items, Term: c.term(), Now: now})
		c.noteWrite(err, now)
		if err != nil {
			c.writeFailed(now, "create runs", "runs", n, "err", err)
			for _, f := range batch {
				c.recheckStoreSoon(f.e, now)
			}
			continue
		}
		for i, f := range batch {
			c.fired(ctx, f.e, f.p.Run, res[i].Run, res[i].Err)
		}
	}
	c.fires = nil
}

// fired records the outcome of inserting a scheduled run (want): the
// job's schedule time moves on, and the run is held or marked claimable.
func (c *Controller) fired(ctx context.Context, e *entry, want, r store.Run, err error) {
	switch {
	case errors.Is(err, store.ErrDuplicate):
		// Another controller life (or node) created it: the key held.
		c.advanceJob(ctx, e, want.ScheduledTime, nil)
		return
	case err != nil:
		c.log.Error("create run", "job", want.Job, "at", want.ScheduledTime, "err", err)
		c.recheckStoreSoon(e, c.clock.Now())
		return
	}
	e.last = maxTime(e.last, want.ScheduledTime)
	if r.ReadyAt.IsZero() {
		e.held = append(e.held, r)
	} else {
		c.claimable = true
	}
}

// advanceJob records that the instants up to t were dealt with without a
// new run (missed, skipped, or created elsewhere). It reports whether the
// store took it.
func (c *Controller) advanceJob(ctx context.Context, e *entry, t time.Time, events []store.Event) bool {
	err := c.st.JobAdvance(ctx, store.JobAdvanceParams{Name: e.c.spec.Name, LastScheduleTime: t, Term: c.term(), Events: events})
	if err != nil {
		c.log.Error("record schedule time", "job", e.c.spec.Name, "err", err)
		return false
	}
	e.last = maxTime(e.last, t)
	return true
}

// canStart reports whether a new run of spec may start at now without
// waiting: no gate or an open one, and no upstream jobs.
func (c *Controller) canStart(spec store.JobSpec, now time.Time) bool {
	if len(spec.Requires) > 0 || len(c.beforeOf[spec.Name]) > 0 {
		return false
	}
	if spec.Gate == "" {
		return true
	}
	if c.cfg.Gates == nil {
		return false
	}
	g, ok := c.cfg.Gates(spec.Gate)
	return ok && g.Contains(now)
}

// upstreams lists the jobs a job's runs wait for: its require list and the
// jobs that name it in their before list.
func (c *Controller) upstreams(spec store.JobSpec) []string {
	ups := append([]string(nil), spec.Requires...)
	for up := range c.beforeOf[spec.Name] {
		ups = append(ups, up)
	}
	return ups
}

// upstreamDone reports whether job up's run for instant t succeeded. If it
// did not and never will, why says so; if it may still, why is empty.
func (c *Controller) upstreamDone(ctx context.Context, up string, t time.Time) (ok bool, why string) {
	ue := c.jobs[up]
	if ue == nil {
		return false, fmt.Sprintf("required job %q does not exist", up)
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: up, ScheduledTime: t})
	if err != nil {
		c.log.Error("look up upstream run", "job", up, "err", err)
		return false, ""
	}
	failed := false
	for _, r := range runs {
		switch {
		case r.State == store.RunSucceeded:
			return true, ""
		case !r.State.Terminal():
			return false, ""
		default:
			failed = true
		}
	}
	at := t.In(ue.c.loc).Format(time.RFC3339)
	switch {
	case failed:
		return false, fmt.Sprintf("required job %q did not succeed for %s", up, at)
	case !ue.c.sched.Next(t.Add(-time.Nanosecond)).Equal(t):
		return false, fmt.Sprintf("required job %q has no run scheduled at %s", up, at)
	case !ue.last.Before(t):
		return false, fmt.Sprintf("required job %q did not run for %s", up, at)
	}
	return false, ""
}

// activeRuns returns the job's runs that are running or released to start,
// other than except.
func (c *Controller) activeRuns(ctx context.Context, job string, except int64) []store.Run {
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: job,
		States: []store.RunState{store.RunPending, store.RunRunning}, Page: store.Page{Limit: 1000}})
	if err != nil {
		c.log.Error("list active runs", "job", job, "err", err)
		return nil
	}
	var out []store.Run
	for _, r := range runs {
		if r.ID != except && (r.State == store.RunRunning || !r.ReadyAt.IsZero()) {
			out = append(out, r)
		}
	}
	return out
}

// replace stops an active run in favour of a new one (concurrency Replace).
func (c *Controller) replace(ctx context.Context, a store.Run, why string, now time.Time) {
	if x := c.active[a.ID]; x != nil {
		x.stop(why, store.RunKilled)
	}
	if a.State == store.RunPending {
		_, err := c.st.RunFinish(ctx, store.RunFinishParams{ID: a.ID, State: store.RunKilled, Error: why, Now: now, Term: c.term(),
			Events: []store.Event{{Kind: store.EventRunKilled, Message: fmt.Sprintf("run %d %s before it started", a.ID, why)}},
			Prune:  c.pruneOf(a.Job)})
		if err == nil || !errors.Is(err, store.ErrConflict) {
			return
		}
	}
	// Running here or on another node: ask whoever runs it to stop.
	if _, err := c.st.RunCancel(ctx, store.RunCancelParams{ID: a.ID, Term: c.term()}); err != nil && !errors.Is(err, store.ErrConflict) {
		c.log.Error("cancel replaced run", "run", a.ID, "err", err)
	}
}

// release makes a held run claimable now.
func (c *Controller) release(ctx context.Context, r store.Run, now time.Time) {
	if !r.ReadyAt.IsZero() {
		return
	}
	if _, err := c.st.RunRelease(ctx, store.RunReleaseParams{ID: r.ID, ReadyAt: now, Term: c.term()}); err != nil {
		c.log.Error("release run", "run", r.ID, "err", err)
	}
	c.claimable = true
}

// miss ends a held run that can no longer start in time.
func (c *Controller) miss(ctx context.Context, r store.Run, now time.Time, why string) {
	msg := fmt.Sprintf("run %d for %s missed: %s", r.ID, r.ScheduledTime.Format(time.RFC3339), why)
	c.finishHeld(ctx, r, now, store.RunMissed, why, store.EventRunMissed, msg)
	c.log.Info("run missed", "job", r.Job, "run", r.ID, "instant", r.ScheduledTime, "reason", why)
	if e := c.jobs[r.Job]; e != nil {
		r.State = store.RunMissed
		c.report(ctx, Outcome{Kind: OutcomeMissed, Spec: e.c.spec, Run: r, Message: msg, Time: now})
	}
}

func (c *Controller) finishHeld(ctx context.Context, r store.Run, now time.Time, state store.RunState, why string, kind store.EventKind, msg string) {
	_, err := c.st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: state, Error: why, Now: now, Term: c.term(),
		Events: []store.Event{{Kind: kind, Message: msg}}, Prune: c.pruneOf(r.Job)})
	if err != nil {
		c.log.Error("finish run", "run", r.ID, "err", err)
		return
	}
	c.afterFinish(ctx, r.Job, now)
}

// pruneOf returns the history limits of job for a run's end, so that every
// way a run ends prunes the job's history as the workers' ends do; nil
// for a job the controller no longer has. Called from the Run goroutine.
func (c *Controller) pruneOf(job string) *store.HistoryLimits {
	e := c.jobs[job]
	if e == nil {
		return nil
	}
	return historyLimits(e.c.spec)
}

// historyLimits are spec's history limits as a prune.
func historyLimits(spec store.JobSpec) *store.HistoryLimits {
	ok, failed := spec.HistoryLimits()
	return &store.HistoryLimits{KeepSucceeded: ok, KeepFailed: failed}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
