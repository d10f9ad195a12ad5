package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// This file tells the jobs whose gate went away. A job is refused when it
// names no gate, but a gate can disappear afterwards: a manifest change
// removes a schedule an API job names. Such a job keeps its schedule
// attribute; each of its runs waits for the gate to exist again and is
// recorded missed when its starting deadline passes (the controller's
// rule for a gate it cannot find). So that this is not silent, every such
// job gets a job.gate-missing event, and the default notification targets
// an alert, once per load that removed the gate.

// lostGates returns the names of before that reg no longer resolves.
func lostGates(before []string, reg *gateRegistry) []string {
	var out []string
	for _, name := range before {
		if _, ok := reg.Lookup(name); !ok {
			out = append(out, name)
		}
	}
	return out
}

// gateLossReporter records and announces the jobs a load left without
// their gate.
type gateLossReporter struct {
	st interface {
		jobWriter
		EventAppend(ctx context.Context, events ...store.Event) error
	}
	alert func(ctx context.Context, subject, body string)
	now   func() time.Time
	log   *slog.Logger
}

// report handles one load that removed gates.
func (g gateLossReporter) report(ctx context.Context, gates []string) {
	var jobs []string
	after := ""
	for {
		page, err := g.st.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			g.log.Error("list jobs for removed gates", "gates", gates, "err", err)
			return
		}
		now := g.now()
		for _, j := range page {
			if j.Spec.Gate == "" || !slices.Contains(gates, j.Spec.Gate) {
				continue
			}
			jobs = append(jobs, j.Spec.Name)
			err := g.st.EventAppend(ctx, store.Event{Time: now, Kind: store.EventJobGateMissing, Job: j.Spec.Name,
				Message: fmt.Sprintf("schedule gate %q no longer exists (the manifests stopped declaring it); runs wait for it and are missed when their starting deadline passes", j.Spec.Gate)})
			if err != nil {
				g.log.Error("record removed gate", "job", j.Spec.Name, "err", err)
			}
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].Spec.Name
	}
	g.log.Warn("schedule gates removed", "gates", gates, "jobs", jobs)
	if len(jobs) == 0 || g.alert == nil {
		return
	}
	g.alert(ctx, fmt.Sprintf("[almanac] %d %s lost %s schedule gate", len(jobs), plural(len(jobs), "job", "jobs"), plural(len(jobs), "its", "their")),
		fmt.Sprintf("The manifests no longer declare %s. These jobs name a gate that no longer exists; their runs wait and are missed when their starting deadline passes: %s.",
			strings.Join(quoteAll(gates), ", "), strings.Join(jobs, ", ")))
}

// quoteAll quotes each name.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// plural picks the singular or plural word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
