package job

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// evaluateHeld decides what each of an entry's held runs does now (decide)
// and carries it out: it releases, keeps or misses each run, records why
// the kept ones wait, and returns when to look again (zero: when something
// changes) and the runs still held. Runs are decided in instant order, and
// within an instant in the wave's order, so the earliest instant and the
// first node in the wave take a free slot first.
func (c *Controller) evaluateHeld(ctx context.Context, e *entry, held []store.Run, now time.Time) (wake time.Time, keep []store.Run) {
	if len(held) == 0 {
		e.waits = nil
		return time.Time{}, nil
	}
	spec := e.c.spec
	limit, hasLimit := deadline(spec)
	base := heldFacts{
		now: now, hasDeadline: hasLimit, suspended: spec.Suspend, stopping: c.stopping,
		paused: spec.WavePaused, catchUp: catchUpOf(spec), policy: spec.ConcurrencyPolicy,
		maxFailures: spec.MaxFailures, loc: e.c.loc, nodeUp: true, free: -1,
	}
	if spec.Gate != "" {
		base.gate = c.gateFact(spec.Gate, fmt.Sprintf("schedule gate %q", spec.Gate), now)
	}
	targeted := false
	for _, r := range held {
		targeted = targeted || r.Target != "" && r.Reason != store.ReasonManual
	}
	var nodes map[string]NodeInfo
	var waves map[time.Time]waveView
	if targeted {
		var err error
		if nodes, waves, err = c.viewWaves(ctx, spec, held); err != nil {
			c.log.Error("look at a wave", "job", spec.Name, "err", err)
			return now.Add(waveRecheck), held
		}
	}
	// The job's runs active anywhere: max_parallel counts them across
	// instants, and the concurrency policy looks at those of a run's node.
	var active []store.Run
	all := base.catchUp == CatchUpAll
	if targeted && spec.MaxParallel != "" || spec.ConcurrencyPolicy == store.Forbid || spec.ConcurrencyPolicy == store.Replace || all {
		active = c.activeRuns(ctx, spec.Name, 0)
	}
	// busy counts the job's targeted runs active across instants, and
	// goes up with each release.
	busy := 0
	for _, a := range active {
		if a.Target != "" {
			busy++
		}
	}
	slices.SortStableFunc(held, func(a, b store.Run) int {
		if by := a.ScheduledTime.Compare(b.ScheduledTime); by != 0 {
			return by
		}
		w := waves[a.ScheduledTime.UTC()]
		return cmp.Compare(w.order[a.Target], w.order[b.Target])
	})
	// Per node, the instants of its held runs (and with catch_up all, of
	// its active ones: a backlog runs one instant after another), oldest
	// first.
	byNode := map[string][]time.Time{}
	if all {
		for _, a := range active {
			if a.Reason != store.ReasonManual {
				byNode[a.Target] = append(byNode[a.Target], a.ScheduledTime)
			}
		}
	}
	for _, r := range held {
		if r.Reason != store.ReasonManual {
			byNode[r.Target] = append(byNode[r.Target], r.ScheduledTime)
		}
	}
	for _, list := range byNode {
		slices.SortFunc(list, time.Time.Compare)
	}
	ups := c.upstreams(spec)
	upFacts := map[time.Time]upstreamFact{}
	stopped := map[time.Time][]string{}
	var waits []store.RunWaiting
	seen := map[int64]bool{}
	for _, r := range held {
		f := base
		f.run = r
		f.deadline = r.ScheduledTime.Add(e.c.delay).Add(limit)
		if r.Reason == store.ReasonRetry {
			f.backoff = r.CreatedAt.Add(c.backoff(r.Attempt - 1))
		}
		if len(ups) > 0 {
			at := r.ScheduledTime.UTC()
			uf, ok := upFacts[at]
			if !ok {
				uf = c.upstreamFactOf(ctx, ups, r.ScheduledTime)
				upFacts[at] = uf
			}
			f.up = uf
		}
		if instants := byNode[r.Target]; r.Reason != store.ReasonManual && len(instants) > 0 {
			if instants[0].Before(r.ScheduledTime) {
				f.earlier = instants[0]
			}
			if last := instants[len(instants)-1]; last.After(r.ScheduledTime) {
				f.newer = last
			}
		}
		if w, ok := e.waits[r.ID]; ok {
			f.prevUnavailable = unavailable(w.Kind)
		}
		for _, a := range active {
			if a.Target == r.Target && a.ID != r.ID {
				f.activeHere = a.ID
				break
			}
		}
		if r.Target != "" && r.Reason != store.ReasonManual {
			node, known := nodes[r.Target]
			f.nodeUp = known && node.Alive
			if w := nodeWindow(spec, node); known && w != "" {
				f.window = c.gateFact(w, fmt.Sprintf("window %q of node %s", w, r.Target), now)
			}
			v := waves[r.ScheduledTime.UTC()]
			f.failed = v.failed
			if f.limit = WaveLimit(spec, v.targets); f.limit > 0 {
				f.active, f.free = busy, max(f.limit-busy, 0)
			}
			f.slotGroup = spec.RebootGroup
		}
		d := decide(f)
		if d.verdict == verdictRelease && f.slotGroup != "" {
			if err := c.takeSlot(ctx, spec, r); err != nil {
				f.slotErr = err
				d = decide(f)
			}
		}
		switch d.verdict {
		case verdictWait:
			keep = append(keep, r)
			seen[r.ID] = true
			wake = earliestOf(wake, d.wakeOf())
			if w, ok := e.waits[r.ID]; !ok || !sameWaiting(w, d.wait) {
				wt := d.wait
				waits = append(waits, store.RunWaiting{ID: r.ID, Waiting: &wt})
				if e.waits == nil {
					e.waits = map[int64]store.Waiting{}
				}
				e.waits[r.ID] = wt
			}
			continue
		case verdictMiss:
			dropHeld(byNode, r)
			switch {
			case d.stopped:
				c.finishHeld(ctx, r, now, store.RunMissed, d.why, store.EventRunSkipped,
					fmt.Sprintf("run %d on %s %s", r.ID, r.Target, d.why))
				stopped[r.ScheduledTime.UTC()] = append(stopped[r.ScheduledTime.UTC()], r.Target)
			case d.skip:
				c.finishHeld(ctx, r, now, store.RunMissed, d.why, store.EventRunSkipped,
					fmt.Sprintf("skipped run %d%s: previous run active (run %d)", r.ID, onNode(r.Target), f.activeHere))
				c.log.Info("run skipped", "job", r.Job, "run", r.ID, "node", r.Target, "instant", r.ScheduledTime,
					"reason", "previous run active", "active_run", f.activeHere)
			default:
				c.miss(ctx, r, now, d.why)
			}
			continue
		}
		if d.replace {
			for _, a := range active {
				if a.Target == r.Target && a.ID != r.ID {
					c.replace(ctx, a, fmt.Sprintf("replaced by run %d", r.ID), now)
				}
			}
		}
		if !all {
			dropHeld(byNode, r) // with catch_up all, it is now active and still first
		}
		c.release(ctx, r, now)
		if r.Target != "" {
			busy++
		}
		if hasLimit && r.Target != "" {
			// Should its node die before claiming it, it is missed then.
			heap.Push(&c.expireAt, f.deadline.Add(time.Nanosecond))
		}
	}
	for id := range e.waits {
		if !seen[id] {
			delete(e.waits, id)
		}
	}
	if len(waits) > 0 {
		if err := c.st.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: waits, Term: c.term()}); err != nil {
			c.log.Error("record why runs wait", "job", spec.Name, "runs", len(waits), "err", err)
			for _, w := range waits {
				delete(e.waits, w.ID) // written again next time
			}
		}
	}
	for at, skipped := range stopped {
		c.waveStopped(ctx, e, at, waves[at], skipped, now)
	}
	return wake, keep
}

// recordedWaits reads the waiting reasons recorded for the held runs, per
// job, so that the decision knows what held a run before this controller
// took over (catch_up latest gives up a run a gate held once a newer
// instant comes, even if the gate has opened meanwhile) and writes only
// the reasons that change. A read error leaves them unknown: they are
// written again.
func (c *Controller) recordedWaits(ctx context.Context, held map[string][]store.Run) map[string]map[int64]store.Waiting {
	var ids []int64
	job := map[int64]string{}
	for name, runs := range held {
		for _, r := range runs {
			ids = append(ids, r.ID)
			job[r.ID] = name
		}
	}
	if len(ids) == 0 {
		return nil
	}
	waits, err := c.st.RunWaiting(ctx, ids)
	if err != nil {
		c.log.Error("read why held runs wait", "runs", len(ids), "err", err)
		return nil
	}
	out := map[string]map[int64]store.Waiting{}
	for id, w := range waits {
		if out[job[id]] == nil {
			out[job[id]] = map[int64]store.Waiting{}
		}
		out[job[id]][id] = w
	}
	return out
}

// dropHeld forgets r's instant among its node's held instants once r is
// no longer held, so the next instant of the node is no longer behind it.
func dropHeld(byNode map[string][]time.Time, r store.Run) {
	list := byNode[r.Target]
	if i := slices.IndexFunc(list, r.ScheduledTime.Equal); i >= 0 {
		byNode[r.Target] = slices.Delete(list, i, i+1)
	}
}

// sameWaiting reports whether two waiting reasons read the same.
func sameWaiting(a, b store.Waiting) bool {
	return a.Kind == b.Kind && a.Detail == b.Detail && a.Until.Equal(b.Until)
}

// onNode is " on NODE" for a targeted run's messages, "" otherwise.
func onNode(target string) string {
	if target == "" {
		return ""
	}
	return " on " + target
}

// catchUpOf returns spec's catch-up policy, CatchUpLatest by default.
func catchUpOf(spec store.JobSpec) string {
	if spec.CatchUp == "" {
		return CatchUpLatest
	}
	return spec.CatchUp
}

// gateFact reads the gate called name at now (what describes it in
// messages).
func (c *Controller) gateFact(name, what string, now time.Time) gateFact {
	f := gateFact{name: name, what: what}
	if c.cfg.Gates == nil {
		return f
	}
	g, ok := c.cfg.Gates(name)
	if !ok {
		return f
	}
	f.exists = true
	if f.open = g.Contains(now); !f.open {
		f.next, f.opens = g.NextOpen(now)
	}
	return f
}

// upstreamFactOf returns the first of ups whose run for instant t has not
// succeeded.
func (c *Controller) upstreamFactOf(ctx context.Context, ups []string, t time.Time) upstreamFact {
	for _, up := range ups {
		if ok, why := c.upstreamDone(ctx, up, t); !ok {
			return upstreamFact{name: up, never: why}
		}
	}
	return upstreamFact{}
}

// viewWaves reads the registered nodes and the waves of the instants of
// the held targeted runs.
func (c *Controller) viewWaves(ctx context.Context, spec store.JobSpec, held []store.Run) (map[string]NodeInfo, map[time.Time]waveView, error) {
	list, err := c.listNodes(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list nodes: %w", err)
	}
	nodes := make(map[string]NodeInfo, len(list))
	for _, n := range list {
		nodes[n.Name] = n
	}
	waves := map[time.Time]waveView{}
	for _, r := range held {
		at := r.ScheduledTime.UTC()
		if _, ok := waves[at]; ok || r.Target == "" {
			continue
		}
		v, err := c.viewWave(ctx, spec, at)
		if err != nil {
			return nil, nil, err
		}
		waves[at] = v
	}
	return nodes, waves, nil
}

// waveView is what deciding one instant's held runs needs to know.
type waveView struct {
	order   map[string]int
	failed  int
	targets int
}

// viewWave reads an instant's runs.
func (c *Controller) viewWave(ctx context.Context, spec store.JobSpec, at time.Time) (waveView, error) {
	runs, err := c.instantRuns(ctx, spec.Name, at)
	if err != nil {
		return waveView{}, err
	}
	latest := latestByTarget(runs)
	v := waveView{order: map[string]int{}, targets: len(latest)}
	names := make([]string, len(latest))
	for i, r := range latest {
		names[i] = r.Target
		if waveNodeState(r) == apitype.WaveNodeFailed {
			v.failed++
		}
	}
	for i, n := range waveOrder(spec, at, names) {
		v.order[n] = i
	}
	return v, nil
}

// waveStopped records one wave.stopped event for an instant whose waiting
// nodes were skipped once max_failures nodes failed, and reports it.
func (c *Controller) waveStopped(ctx context.Context, e *entry, at time.Time, v waveView, skipped []string, now time.Time) {
	spec := e.c.spec
	msg := fmt.Sprintf("wave of %s for %s stopped: %d of %d node(s) failed (max_failures %d); skipped %s",
		spec.Name, at.In(e.c.loc).Format(time.RFC3339), v.failed, v.targets, spec.MaxFailures, strings.Join(skipped, ", "))
	if err := c.st.EventAppend(ctx, store.Event{Time: now, Kind: store.EventWaveStopped, Job: spec.Name, Message: msg}); err != nil {
		c.log.Error("record wave stop", "job", spec.Name, "err", err)
	}
	c.log.Warn("wave stopped", "job", spec.Name, "instant", at, "failed", v.failed, "skipped", len(skipped))
	c.report(ctx, Outcome{Kind: OutcomeFailure, Spec: spec, Run: store.Run{Job: spec.Name, ScheduledTime: at, State: store.RunMissed}, Message: msg, Time: now})
}
