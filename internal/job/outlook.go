package job

import (
	"context"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/store"
)

// Outlook states: what the lifecycle decision will do to one of a job's
// upcoming fires.
const (
	// OnTime: the run may start at its scheduled instant.
	OnTime = "on-time"
	// Waits: the run is held at its instant; it is released at
	// Outlook.Until, or without a bound in time when Until is zero (the
	// gate does not exist yet, the waves are paused).
	Waits = "waits"
	// WillMiss: the run cannot start before its starting deadline (a gate
	// or a node's window stays closed, the waves stay paused, catch_up
	// none); it will end as missed.
	WillMiss = "will-miss"
)

// Outlook is what the lifecycle decision (decide) will say about one
// upcoming fire if nothing changes before it: the job's suspension and
// paused waves, its `schedule` gate, each fanned-out node's window, the
// starting deadline and catch_up are foreseen. What cannot be known ahead
// is not: nodes are taken to be up, upstream jobs to have succeeded, and
// max_parallel turns and reboot-group slots to be free.
type Outlook struct {
	// State is OnTime, Waits or WillMiss.
	State string
	// Until is when a waiting run is released; zero otherwise.
	Until time.Time
	// Reason says why a run waits or will be missed; empty for OnTime.
	// For a fanned-out job it is the first affected node's, with how many
	// more nodes are affected.
	Reason string
}

// foresightSteps bounds how many successive obstacles outlook follows for
// one fire (a gate that opens onto a closed window that opens onto ...).
const foresightSteps = 16

// outlook foresees what decide will do to the fire of spec at t. nodes are
// the registered nodes, read only for a fanned-out job (nil otherwise).
func (c *Controller) outlook(spec store.JobSpec, t time.Time, loc *time.Location, nodes []NodeInfo) Outlook {
	if !fanned(spec) {
		return c.foresee(spec, t, loc, NodeInfo{}, "")
	}
	sel, err := nodeselect.Parse(spec.Nodes)
	if err != nil {
		return Outlook{State: WillMiss, Reason: fmt.Sprintf("nodes selector %q does not parse", spec.Nodes)}
	}
	var worst Outlook
	matched, affected := 0, 0
	for _, n := range nodes {
		if !sel.Matches(n.Name, n.Labels) {
			continue
		}
		matched++
		o := c.foresee(spec, t, loc, n, n.Name)
		switch {
		case o.State == OnTime:
		case outlookRank[o.State] > outlookRank[worst.State]:
			worst, affected = o, 1
		case o.State == worst.State:
			affected++
		}
	}
	switch {
	case matched == 0:
		return Outlook{State: WillMiss, Reason: fmt.Sprintf("no node matches %s", sel)}
	case affected > 1:
		worst.Reason += fmt.Sprintf(" (and %d more node(s))", affected-1)
	case affected == 0:
		return Outlook{State: OnTime}
	}
	return worst
}

// outlookRank orders outlook states from good to bad.
var outlookRank = map[string]int{"": 0, OnTime: 0, Waits: 1, WillMiss: 2}

// foresee asks decide about a run of spec at t for node (target "" for an
// untargeted run), with the facts it will see at t; while the run would
// wait, it asks again when the obstacle ends (or, for one without an end,
// after the starting deadline), as the lifecycle will.
func (c *Controller) foresee(spec store.JobSpec, t time.Time, loc *time.Location, node NodeInfo, target string) Outlook {
	limit, hasLimit := deadline(spec)
	f := heldFacts{
		run:      store.Run{Job: spec.Name, ScheduledTime: t, Attempt: 1, Reason: store.ReasonSchedule, Target: target},
		deadline: t.Add(RandomizedDelay(spec)).Add(limit), hasDeadline: hasLimit,
		suspended: spec.Suspend, paused: spec.WavePaused, catchUp: catchUpOf(spec), policy: spec.ConcurrencyPolicy,
		maxFailures: spec.MaxFailures, loc: loc, nodeUp: true, free: -1,
	}
	window := ""
	if target != "" {
		window = nodeWindow(spec, node)
	}
	var first store.Waiting // the first obstacle, which the outlook names
	now := t
	for range foresightSteps {
		f.now = now
		if spec.Gate != "" {
			f.gate = c.gateFact(spec.Gate, fmt.Sprintf("schedule gate %q", spec.Gate), now)
		}
		if window != "" {
			f.window = c.gateFact(window, fmt.Sprintf("window %q of node %s", window, target), now)
		}
		d := decide(f)
		switch d.verdict {
		case verdictRelease:
			if now.Equal(t) {
				return Outlook{State: OnTime}
			}
			return Outlook{State: Waits, Until: now, Reason: first.Detail}
		case verdictMiss:
			return Outlook{State: WillMiss, Reason: d.why}
		}
		if first.Kind == "" {
			first = d.wait
		}
		next := d.wait.Until
		if next.IsZero() || hasLimit && next.After(f.deadline) {
			if !hasLimit {
				return Outlook{State: Waits, Reason: first.Detail}
			}
			next = f.deadline.Add(time.Nanosecond)
		}
		if !next.After(now) {
			break
		}
		f.prevUnavailable = unavailable(d.wait.Kind)
		now = next
	}
	return Outlook{State: Waits, Reason: first.Detail}
}

// JobFires returns up to n instants strictly after from at which the job
// is scheduled, each with what its gate will do to it.
func (c *Controller) JobFires(ctx context.Context, name string, from time.Time, n int) ([]Fire, error) {
	j, err := c.st.JobGet(ctx, name)
	if err != nil {
		return nil, err
	}
	comp, err := compile(j.Spec, c.cfg.Parse)
	if err != nil {
		return nil, err
	}
	var nodes []NodeInfo
	if fanned(j.Spec) {
		if nodes, err = c.listNodes(ctx); err != nil {
			return nil, fmt.Errorf("list nodes: %w", err)
		}
	}
	var out []Fire
	for t := comp.sched.Next(from); !t.IsZero() && len(out) < n; t = comp.sched.Next(t) {
		out = append(out, Fire{Job: name, Time: t.In(comp.loc), Outlook: c.outlook(j.Spec, t, comp.loc, nodes)})
	}
	return out, nil
}
