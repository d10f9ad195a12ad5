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
