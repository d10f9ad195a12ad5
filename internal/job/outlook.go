package job

import (
	"context"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// Outlook states: what a job's gate does to one of its upcoming fires.
const (
	// OnTime: the run may start at its scheduled instant.
	OnTime = "on-time"
	// Waits: the gate is closed then; the run waits until Outlook.Until,
	// or without bound when Until is zero (the gate does not exist yet).
	Waits = "waits"
	// WillMiss: the gate does not open before the starting deadline, or
	// never again; the run will end as missed.
	WillMiss = "will-miss"
)

// Outlook is what the job's `schedule` gate does to one upcoming fire, as
// the controller will decide it when the instant comes (if nothing changes
// before). Upstream jobs (requires, before) are not foreseen: a run that
// waits for them still shows OnTime.
type Outlook struct {
	// State is OnTime, Waits or WillMiss.
	State string
	// Until is when a waiting run's gate opens; zero otherwise.
	Until time.Time
	// Reason says why a run waits or will be missed; empty for OnTime.
	Reason string
}

// outlook foresees what the gate of spec does to a fire at t, with the
// same rules the lifecycle decision (decide) applies when the instant comes.
func (c *Controller) outlook(spec store.JobSpec, t time.Time) Outlook {
	if spec.Schedule == "" {
		return Outlook{State: OnTime}
	}
	limit, hasLimit := deadline(spec)
	var g Gate
	ok := false
	if c.cfg.Gates != nil {
		g, ok = c.cfg.Gates(spec.Schedule)
	}
	switch {
	case !ok && hasLimit:
		return Outlook{State: WillMiss, Reason: fmt.Sprintf("schedule gate %q does not exist", spec.Schedule)}
	case !ok:
		return Outlook{State: Waits, Reason: fmt.Sprintf("schedule gate %q does not exist", spec.Schedule)}
	case g.Contains(t):
		return Outlook{State: OnTime}
	}
	open, ok := g.NextOpen(t)
	if !ok {
		return Outlook{State: WillMiss, Reason: fmt.Sprintf("schedule gate %q never opens again", spec.Schedule)}
	}
	if hasLimit && !open.Before(t.Add(RandomizedDelay(spec)).Add(limit)) {
		return Outlook{State: WillMiss, Until: open, Reason: fmt.Sprintf("schedule gate %q opens only after the starting deadline", spec.Schedule)}
	}
	return Outlook{State: Waits, Until: open, Reason: fmt.Sprintf("schedule gate %q is closed", spec.Schedule)}
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
	var out []Fire
	for t := comp.sched.Next(from); !t.IsZero() && len(out) < n; t = comp.sched.Next(t) {
		out = append(out, Fire{Job: name, Time: t.In(comp.loc), Outlook: c.outlook(j.Spec, t)})
	}
	return out, nil
}
