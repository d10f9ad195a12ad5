package agent

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"
)

// ReasonNotScheduled is the ResourceStatus.Reason of a resource its
// schedule kept from running. Appliers must use it: the agent wakes up for
// the next opening of such resources' gates.
const ReasonNotScheduled = "not scheduled"

// Splay returns host's phase within the interval: a hash of the name
// reduced to [0, interval). Interval applies happen at k*interval + splay
// since the Unix epoch, so each host keeps its phase across restarts and a
// fleet spreads evenly over the interval.
func Splay(host string, interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(host))
	return time.Duration(h.Sum64() % uint64(interval))
}

// periodSlack is the tolerance, as a fraction of the period, before a gap
// between openings counts as a missed period: a daily wall-clock range is
// 25 hours apart across a DST change, a monthly `number` match up to 31 days.
const periodSlack = 24

// plan computes, after rep's apply ended at end, each gated resource's next
// opening, the warnings for gates that make a resource miss its period, and
// the earliest opening the agent must wake up for.
//
// The wake-up candidates are the gated resources that were not skipped for
// another reason (failed dependencies, an aborted apply): those will be
// retried by the next interval apply. For a resource the schedule kept back
// the opening may already have come during the apply (then the follow-up
// starts at once); for any other it must lie strictly after end, so a gate
// that is simply open (a range without a period) never makes the agent
// spin.
func (a *Agent) plan(rep *Report, end time.Time) *Trigger {
	byRef := make(map[string]*ResourceStatus, len(rep.Resources))
	for i := range rep.Resources {
		byRef[rep.Resources[i].Ref] = &rep.Resources[i]
	}
	var best time.Time
	var schedules, refs []string
	for _, g := range a.gated {
		if g.Gate == nil {
			continue
		}
		rs := byRef[g.Ref]
		notScheduled := rs != nil && rs.Status == StatusSkipped && rs.Reason == ReasonNotScheduled
		if rs != nil && rs.Status == StatusSkipped && !notScheduled {
			continue
		}
		last := a.state[g.Ref].Checked
		next, ok := g.Gate.NextMatch(last, end)
		if !ok {
			rep.Warnings = append(rep.Warnings, Warning{Ref: g.Ref, Schedule: g.Schedule,
				Message: fmt.Sprintf("%s is never applied: schedule %s never opens again after %s",
					g.Ref, g.Schedule, end.UTC().Format(time.RFC3339))})
			continue
		}
		if rs != nil {
			n := next
			rs.NextOpening = &n
		}
		if g.Period > 0 {
			if gap := next.Sub(end); gap > g.Period+g.Period/periodSlack {
				rep.Warnings = append(rep.Warnings, Warning{Ref: g.Ref, Schedule: g.Schedule,
					Message: fmt.Sprintf("%s misses at least one %s period: schedule %s next opens at %s, %s from now",
						g.Ref, periodName(g.Period), g.Schedule, next.UTC().Format(time.RFC3339), gap.Round(time.Second))})
			}
		}
		if notScheduled {
			if !next.After(rep.Start) {
				continue
			}
		} else if !next.After(end) {
			continue
		}
		switch {
		case best.IsZero() || next.Before(best):
			best, schedules, refs = next, []string{g.Schedule}, []string{g.Ref}
		case next.Equal(best):
			schedules = append(schedules, g.Schedule)
			refs = append(refs, g.Ref)
		}
	}
	if best.IsZero() {
		return nil
	}
	sort.Strings(schedules)
	schedules = compactStrings(schedules)
	return &Trigger{Kind: TriggerSchedule, Schedule: strings.Join(schedules, ","), Resources: refs, At: best}
}

func periodName(p time.Duration) string {
	switch p {
	case time.Hour:
		return "hourly"
	case 24 * time.Hour:
		return "daily"
	case 7 * 24 * time.Hour:
		return "weekly"
	case 30 * 24 * time.Hour:
		return "monthly"
	}
	return p.String()
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
