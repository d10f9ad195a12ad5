package e2e

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// This file holds what TestFleetJobs prints for scripts/fleet-demo besides
// its checks: each rolling wave and the figures.

// logWaves logs each instant of the rolling job: every node's latest
// attempt, when it started and ended (seconds after the instant) or why
// it did not.
func (a *fleetAudit) logWaves(t *testing.T) {
	t.Helper()
	byInstant := map[time.Time][]fleetRun{}
	var instants []time.Time
	for _, r := range a.runs {
		if r.Job != fleetRolling {
			continue
		}
		if byInstant[r.Instant] == nil {
			instants = append(instants, r.Instant)
		}
		byInstant[r.Instant] = append(byInstant[r.Instant], r)
	}
	slices.SortFunc(instants, time.Time.Compare)
	for _, at := range instants {
		rs := byInstant[at]
		slices.SortFunc(rs, func(x, y fleetRun) int {
			return cmp.Or(cmp.Compare(x.Target, y.Target), cmp.Compare(x.Attempt, y.Attempt))
		})
		var parts []string
		for _, r := range rs {
			p := fmt.Sprintf("%s#%d %s", r.Target, r.Attempt, r.State)
			if !r.Started.IsZero() {
				p += fmt.Sprintf(" +%.1f", r.Started.Sub(at).Seconds())
				if !r.Finished.IsZero() {
					p += fmt.Sprintf("..+%.1f", r.Finished.Sub(at).Seconds())
				}
			} else if r.Err != "" {
				p += " (" + r.Err + ")"
			}
			parts = append(parts, p)
		}
		t.Logf("%s wave %s: %s", fleetRolling, at.UTC().Format(time.TimeOnly), strings.Join(parts, "; "))
	}
}

// report logs the figures scripts/fleet-demo prints: runs, kills, the
// largest concurrency seen and the time from an instant of fleet-all (or
// its node's window's opening, if later) to its run's start, for all runs,
// for those whose node was not killed in between, and per node.
func (a *fleetAudit) report(t *testing.T, kills string, missed, overlapLog, overlapRuns int) {
	t.Helper()
	count := map[string]int{}
	delays := map[string][]time.Duration{}
	var all, up []time.Duration
	for _, r := range a.runs {
		count[r.Job]++
		if r.Job == fleetAll && r.Attempt == 1 && !r.Started.IsZero() {
			due, _ := a.opens(r.Job, r.Target, r.Instant)
			d := r.Started.Sub(due)
			delays[r.Target] = append(delays[r.Target], d)
			all = append(all, d)
			if a.f.aliveThroughout(r.Target, r.Instant, r.Started) {
				up = append(up, d)
			}
		}
	}
	pct := func(ds []time.Duration, p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ds[int(p*float64(len(ds)-1))].Round(time.Millisecond)
	}
	var took []time.Duration
	for _, k := range a.takeovers {
		took = append(took, k.elected.Sub(k.killed))
	}
	var per []string
	for _, n := range fleetNodes {
		ds := delays[n.name]
		per = append(per, fmt.Sprintf("%s %v/%v", n.name, pct(ds, 0.5), pct(ds, 0.99)))
	}
	t.Logf("fleet figures: %d runs (%s %d, %s %d), %s, a new leader after p50 %v max %v, %d instants missed during takeovers; "+
		"largest rolling concurrency %d by the commands' log, %d by the runs (max_parallel 2); "+
		"%s instant (or window opening) to start p50/p99: all %v/%v, node up throughout %v/%v (%d runs), %s",
		len(a.runs), fleetAll, count[fleetAll], fleetRolling, count[fleetRolling], kills, pct(took, 0.5), pct(took, 1), missed,
		overlapLog, overlapRuns, fleetAll, pct(all, 0.5), pct(all, 0.99), pct(up, 0.5), pct(up, 0.99), len(up),
		strings.Join(per, ", "))
}
