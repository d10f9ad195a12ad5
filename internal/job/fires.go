package job

import "time"

// due summarises a schedule's fires in (from, to]: how many, the first,
// the last and the one before the last.
type due struct {
	n                   int64
	first, last, penult time.Time
}

// dueBetween counts and locates the fires of s in (from, to]. With a Counter
// it costs O(log(to-from)) Count calls whatever the number of fires, so a
// year of downtime of an every-second job is as cheap as a minute of it;
// without one it enumerates with Next.
func dueBetween(s Schedule, from, to time.Time) due {
	first := s.Next(from)
	if first.IsZero() || first.After(to) {
		return due{}
	}
	c, ok := s.(Counter)
	if !ok {
		d := due{n: 1, first: first, last: first}
		for t := s.Next(first); !t.IsZero() && !t.After(to); t = s.Next(t) {
			d.n++
			d.penult, d.last = d.last, t
		}
		return d
	}
	d := due{n: c.Count(from, to), first: first}
	if d.n <= 1 {
		d.n, d.last = 1, first
		return d
	}
	d.last = nth(c, from, to, d.n)
	d.penult = nth(c, from, d.last, d.n-1)
	return d
}

// nth returns the k-th fire after from (k >= 1), knowing it is at or
// before to: the earliest t in (from, to] with Count(from, t) >= k, by
// binary search over nanoseconds.
func nth(c Counter, from, to time.Time, k int64) time.Time {
	lo, hi := time.Duration(0), to.Sub(from) // Count(from, from+lo) < k <= Count(from, from+hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if c.Count(from, from.Add(mid)) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return from.Add(hi)
}

// maxBacklog bounds the runs catch_up all creates for the instants that
// passed at once (a daemon down for a day would otherwise queue a run per
// instant): the latest ones run, the others are reported missed, as a
// Kubernetes CronJob gives up past 100 missed schedules.
const maxBacklog = 100

// backlogOf returns the latest k instants of d before d.last, oldest
// first, and the instant before them (zero if there is none, that is if
// no instant of d is left out).
func backlogOf(s Schedule, d due, k int) (backlog []time.Time, before time.Time) {
	n := d.n
	if n <= 1 || k <= 0 {
		return nil, time.Time{}
	}
	want := min(n-1, int64(k)) // fires n-want .. n-1
	from := d.first.Add(-time.Nanosecond)
	if c, ok := s.(Counter); ok && n-want > 1 {
		before = nth(c, from, d.last, n-want-1)
		for t := s.Next(before); len(backlog) < int(want) && !t.IsZero() && t.Before(d.last); t = s.Next(t) {
			backlog = append(backlog, t)
		}
		return backlog, before
	}
	var all []time.Time
	for t := d.first; !t.IsZero() && t.Before(d.last); t = s.Next(t) {
		all = append(all, t)
		if len(all) > int(want)+1 {
			all = all[1:]
		}
	}
	if len(all) > int(want) {
		before, all = all[0], all[1:]
	}
	return all, before
}
