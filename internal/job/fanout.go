package job

import (
	"container/heap"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/store"
)

// This file fans a job's instant out to the nodes its `nodes` selector
// picks and lets each node's run start when its turn comes (docs/fleet-jobs.md):
//
//   - At the instant, one held run is inserted per matching registered
//     node, with Target set, in one batch; the unique key (job, instant,
//     target, attempt) makes this exactly once per node.
//   - Each held run is decided like any held run (decide, lifecycle.go):
//     released (made claimable, by its node only) when its node is alive,
//     the job's gate and the node's window are open, the wave is not paused
//     or stopped, fewer than max_parallel of the job's nodes are active
//     across instants, and the concurrency policy allows it on that node.
//     Runs are considered in instant order, then the wave's order, so a run
//     whose window is closed keeps its place and goes first once it opens.
//   - A run that cannot start before its starting deadline ends missed,
//     saying why (node down, window closed, waiting for its turn).
//   - When max_failures nodes have failed, the waiting nodes are skipped
//     and a wave.stopped event is recorded.

// WindowLabel is the node label `serve --node-window` registers: the
// window a node's targeted runs wait for unless the job names one for it.
const WindowLabel = "almanac.sh/window"

// waveRecheck bounds how long a waiting wave goes without a fresh look:
// runs on other nodes end, and nodes come and go, without a local signal.
const waveRecheck = 5 * time.Second

// SchemaGate says whether the store can hold one run per node of an
// instant: on PostgreSQL, not until the leader contracted the schema
// after a rolling upgrade (no live node of an older version left to
// insert with the old key).
type SchemaGate interface {
	FanOutReady(ctx context.Context) (bool, error)
}

// fanned reports whether spec's instants become one run per node.
func fanned(spec store.JobSpec) bool {
	return spec.Nodes != "" && spec.Nodes != "any"
}

// listNodes returns the registered nodes (Config.Nodes), or this node
// alone.
func (c *Controller) listNodes(ctx context.Context) ([]NodeInfo, error) {
	if c.cfg.Nodes == nil {
		return []NodeInfo{c.self()}, nil
	}
	return c.cfg.Nodes.ListNodes(ctx)
}

// self is this node as fan-out sees it.
func (c *Controller) self() NodeInfo {
	return NodeInfo{Name: c.cfg.Node, Labels: c.cfg.Labels, Alive: true}
}

// closedHere lists the released runs targeted at this node that must not
// start now because their window (or their job's gate) has closed since
// the leader released them, for instance while the node was away. They
// wait for it to open again, or for their deadline (expireUnclaimed).
func (c *Controller) closedHere(ctx context.Context, now time.Time) []int64 {
	if !c.fannedOut() {
		return nil
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Node: c.cfg.Node, States: []store.RunState{store.RunPending}, Page: store.Page{Limit: 1000}})
	if err != nil {
		c.log.Error("list this node's pending runs", "err", err)
		return nil
	}
	var skip []int64
	for _, r := range runs {
		e := c.jobs[r.Job]
		if r.Target != c.cfg.Node || r.ReadyAt.IsZero() || r.ReadyAt.After(now) || e == nil {
			continue
		}
		if !c.gatesOpen(e.c.spec, c.self(), now) {
			skip = append(skip, r.ID)
			if at, ok := c.opensAt(e.c.spec, c.self(), now); ok {
				heap.Push(&c.readyAt, at) // look again then
			}
			if limit, ok := deadline(e.c.spec); ok {
				heap.Push(&c.expireAt, r.ScheduledTime.Add(e.c.delay).Add(limit).Add(time.Nanosecond))
			}
		}
	}
	return skip
}

// opensAt returns when spec's gate and node's window may next both be
// open: the latest of their next openings (the claim loop looks again
// then); false if one never opens or does not exist.
func (c *Controller) opensAt(spec store.JobSpec, node NodeInfo, now time.Time) (time.Time, bool) {
	at := now
	for _, name := range []string{spec.Gate, nodeWindow(spec, node)} {
		if name == "" || c.cfg.Gates == nil {
			continue
		}
		g, ok := c.cfg.Gates(name)
		if !ok {
			return time.Time{}, false
		}
		open, ok := g.NextOpen(now)
		if !ok {
			return time.Time{}, false
		}
		at = maxTime(at, open)
	}
	return at, at.After(now)
}

// gatesOpen reports whether spec's gate and node's window are both open
// at now (a gate that does not exist counts as closed).
func (c *Controller) gatesOpen(spec store.JobSpec, node NodeInfo, now time.Time) bool {
	for _, name := range []string{spec.Gate, nodeWindow(spec, node)} {
		if name == "" {
			continue
		}
		if c.cfg.Gates == nil {
			return false
		}
		g, ok := c.cfg.Gates(name)
		if !ok || !g.Contains(now) {
			return false
		}
	}
	return true
}

// waveOrder sorts node names in the order spec's waves take them: by
// name, or shuffled with a seed drawn from the job and the instant, so
// every leader computes the same order.
func waveOrder(spec store.JobSpec, instant time.Time, names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	if spec.WaveOrder != "random" {
		return out
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", spec.Name, instant.UnixNano())
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, seed>>1|1))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// nodeWindow returns the window a targeted run on node waits for: the
// job's entry for the first (in key order) selector the node matches,
// else the job's default, else the node's own window (serve
// --node-window); "" if none. A job opts out of node windows with a
// default of "anytime".
func nodeWindow(spec store.JobSpec, node NodeInfo) string {
	keys := make([]string, 0, len(spec.Window))
	for k := range spec.Window {
		if k != "default" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		sel, err := nodeselect.Parse(k)
		if err == nil && sel.Mode == nodeselect.ModeMatch && sel.Matches(node.Name, node.Labels) {
			return spec.Window[k]
		}
	}
	if w, ok := spec.Window["default"]; ok {
		return w
	}
	return node.Labels[WindowLabel]
}

// fireNodes creates the runs of instant d.last, one per matching node, all
// held; reconcile evaluates them right after. events go with the first.
func (c *Controller) fireNodes(ctx context.Context, e *entry, at time.Time, reason store.Reason, now time.Time, events []store.Event) {
	spec := e.c.spec
	if c.cfg.Schema != nil {
		ready, err := c.cfg.Schema.FanOutReady(ctx)
		if err != nil {
			c.log.Error("read whether the store can hold a run per node", "job", spec.Name, "err", err)
			c.recheckStoreSoon(e, now)
			return
		}
		if !ready {
			stamp := at.In(e.c.loc).Format(time.RFC3339)
			events = append(events, store.Event{Time: now, Kind: store.EventRunSkipped, Job: spec.Name,
				Message: fmt.Sprintf("skipped the run for %s: runs on several nodes wait until every node runs this almanac version or newer (the schema is not contracted yet)", stamp)})
			c.log.Warn("run skipped", "job", spec.Name, "instant", at, "reason", "fan-out waits for the schema contraction after a rolling upgrade")
			c.advanceJob(ctx, e, at, events)
			return
		}
	}
	sel, err := nodeselect.Parse(spec.Nodes)
	if err != nil { // validated on the way in; an old row may not be
		c.log.Error("job has a bad nodes selector", "job", spec.Name, "err", err)
		c.advanceJob(ctx, e, at, events)
		return
	}
	nodes, err := c.listNodes(ctx)
	if err != nil {
		c.log.Error("list nodes", "job", spec.Name, "err", err)
		c.recheckStoreSoon(e, now)
		return
	}
	var names []string
	for _, n := range nodes {
		if sel.Matches(n.Name, n.Labels) {
			names = append(names, n.Name)
		}
	}
	stamp := at.In(e.c.loc).Format(time.RFC3339)
	if len(names) == 0 {
		events = append(events, store.Event{Time: now, Kind: store.EventRunSkipped, Job: spec.Name,
			Message: fmt.Sprintf("skipped the run for %s: no node matches %s", stamp, sel)})
		c.log.Info("run skipped", "job", spec.Name, "instant", at, "reason", "no node matches", "nodes", sel.String())
		c.advanceJob(ctx, e, at, events)
		return
	}
	names = waveOrder(spec, at, names)
	items := make([]store.RunInsertParams, len(names))
	for i, n := range names {
		items[i] = store.RunInsertParams{
			Run:     store.Run{Job: spec.Name, ScheduledTime: at, Attempt: 1, Reason: reason, Target: n},
			Advance: true,
			Events: []store.Event{{Time: now, Kind: store.EventRunScheduled, Job: spec.Name,
				Message: fmt.Sprintf("scheduled %s run for %s on node %s", reason, stamp, n)}},
		}
	}
	items[0].Events = append(events, items[0].Events...)
	res, err := c.st.RunInsertBatch(ctx, store.RunInsertBatchParams{Items: items, Term: c.term(), Now: now})
	c.noteWrite(err, now)
	if err != nil {
		c.writeFailed(now, "create runs", "runs", len(items), "err", err)
		c.recheckStoreSoon(e, now)
		return
	}
	created := 0
	for i, it := range items {
		if res[i].Err == nil {
			created++
		}
		c.fired(ctx, e, it.Run, res[i].Run, res[i].Err)
	}
	if created > 0 {
		// A follower, or a leader whose predecessor created them, is
		// answered that they exist: only the node that creates them says so.
		c.log.Info("runs scheduled on nodes", "job", spec.Name, "instant", at, "nodes", created)
	}
}

// holdsTargeted reports whether e holds runs of a wave.
func holdsTargeted(e *entry) bool {
	for _, r := range e.held {
		if r.Target != "" {
			return true
		}
	}
	return false
}

// expireUnclaimed ends as missed the released targeted runs whose node
// did not claim them before their starting deadline: it is down (released
// while it was alive, it died before claiming), or its window closed
// before it could (closedHere). Called with the heartbeat.
func (c *Controller) expireUnclaimed(ctx context.Context, now time.Time) {
	if !c.fannedOut() {
		return // no targeted runs to look for
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunPending}, Page: store.Page{Limit: 1000}})
	if err != nil {
		c.log.Error("list pending runs", "err", err)
		return
	}
	var nodes map[string]NodeInfo
	for _, r := range runs {
		e := c.jobs[r.Job]
		if r.Target == "" || r.ReadyAt.IsZero() || e == nil {
			continue
		}
		limit, ok := deadline(e.c.spec)
		if !ok || !now.After(maxTime(r.ReadyAt, r.ScheduledTime.Add(e.c.delay).Add(limit))) {
			continue
		}
		if nodes == nil {
			list, err := c.listNodes(ctx)
			if err != nil {
				c.log.Error("list nodes", "err", err)
				return
			}
			nodes = make(map[string]NodeInfo, len(list))
			for _, n := range list {
				nodes[n.Name] = n
			}
		}
		n, ok := nodes[r.Target]
		switch {
		case !ok || !n.Alive:
			c.miss(ctx, r, now, fmt.Sprintf("node %s was down until the starting deadline", r.Target))
		case !c.gatesOpen(e.c.spec, n, now):
			c.miss(ctx, r, now, fmt.Sprintf("the window of node %s closed before the node could start the run", r.Target))
		}
	}
}

// SlotTaker hands out reboot slots of FleetLock groups: a fanned-out
// job with a reboot_group takes its node's slot before the node's run is
// released and gives it back when the run ends, sharing the group's slots
// with Zincati machines.
type SlotTaker interface {
	// Acquire takes (or keeps) holder's slot of group; an error means not
	// now.
	Acquire(ctx context.Context, group, holder string) error
	// Release gives holder's slot back; not holding one is no error.
	Release(ctx context.Context, group, holder string) error
}

// takeSlot takes r's node's slot of spec's reboot group.
func (c *Controller) takeSlot(ctx context.Context, spec store.JobSpec, r store.Run) error {
	if c.cfg.Slots == nil {
		return fmt.Errorf("reboot groups are not served here")
	}
	return c.cfg.Slots.Acquire(ctx, spec.RebootGroup, r.Target)
}

// releaseSlot gives r's node's slot back when r's job takes one.
func (c *Controller) releaseSlot(ctx context.Context, spec store.JobSpec, r store.Run) {
	if spec.RebootGroup == "" || r.Target == "" || c.cfg.Slots == nil {
		return
	}
	if err := c.cfg.Slots.Release(ctx, spec.RebootGroup, r.Target); err != nil {
		c.log.Error("release reboot slot", "job", r.Job, "run", r.ID, "group", spec.RebootGroup, "node", r.Target, "err", err)
	}
}
