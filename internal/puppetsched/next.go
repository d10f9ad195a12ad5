package puppetsched

import (
	"slices"
	"time"
)

// nextHorizon bounds the search of NextMatch beyond the later of t and the
// moment the period is first due by distance. Everything else a schedule
// checks repeats within a year of wall-clock time (ranges daily, weekdays and
// windows weekly, the number fields hourly to yearly, DST yearly), so two
// years without a match means there is none.
const nextHorizon = 2 * 366 * 24 * time.Hour

// NextMatch returns the first instant >= t at which Match(lastChecked, ·) is
// true, or false if there is none: `period => never`, an empty weekday list,
// a schedule that fails while matching, or attributes that can never agree
// (a range inside the one hour that `hourly` by `number` excludes).
//
// It jumps between the instants at which a check can change (range limits,
// midnights and hour boundaries, zone transitions, the moment the period is
// due, window openings) rather than stepping through time, so it costs a few
// Match evaluations per day searched.
func (s *Schedule) NextMatch(lastChecked, t time.Time) (time.Time, bool) {
	if s.period == Never || (s.hasDays && s.days == 0) {
		return time.Time{}, false
	}
	if s.hasRange && len(s.spans) == 0 {
		return time.Time{}, false // the first range fails while matching
	}
	if s.period != PeriodNone && !s.number && s.repeat == 0 {
		return time.Time{}, false // divided by 0
	}
	prev := prevTime(lastChecked)
	base := t
	if s.period != PeriodNone && !s.number {
		if due := time.Unix(prev.Unix()+s.threshold, 0); due.After(base) {
			base = due
		}
	}
	deadline := base.Add(nextHorizon)
	c := t
	for !c.After(deadline) {
		moved := false
		step := func(n time.Time, ok bool) bool {
			if !ok {
				return false
			}
			if n.After(c) {
				c, moved = n, true
			}
			return true
		}
		if s.hasRange {
			if !step(s.nextRange(c)) {
				return time.Time{}, false
			}
		} else if s.hasDays {
			if !step(s.nextDay(c)) {
				return time.Time{}, false
			}
		}
		if !moved && s.period != PeriodNone {
			if !step(s.nextPeriod(prev, c)) {
				return time.Time{}, false
			}
		}
		if !moved && s.windows != nil && !s.windows.Contains(c) {
			if !step(s.windows.NextOpen(c)) {
				return time.Time{}, false
			}
		}
		if !moved {
			return c, true
		}
	}
	return time.Time{}, false
}

// rangeSearchDays bounds the search for the next instant inside a range.
// With a non-empty weekday set some range matches at least once a week.
const rangeSearchDays = 16

// nextRange returns the first instant >= c at which the range check (with
// its weekday rule) passes. It walks c's wall date by wall date; within one
// date the check can only change at a range limit (inclusive, so also just
// after one), and those candidates are tried in order.
func (s *Schedule) nextRange(c time.Time) (time.Time, bool) {
	var buf [32]time.Time // 6 candidates per range; more spill to the heap
	cands := buf[:0]
	for seg := 0; seg < rangeSearchDays*3; seg++ {
		end := nextBoundary(c, s.loc, daySeconds)
		z := newZView(c, s.loc)
		today := z.day()
		cands = append(cands[:0], c)
		for i := range s.spans {
			sp := &s.spans[i]
			for d := today - 1; d <= today+1; d++ {
				for _, ns := range [2]int64{sp.start.ns, sp.end.ns} {
					sec, nsec := z.local(d, ns)
					l := time.Unix(sec, nsec)
					if l.After(c) && l.Before(end) {
						cands = append(cands, l)
					}
					if l = l.Add(time.Nanosecond); l.After(c) && l.Before(end) {
						cands = append(cands, l)
					}
				}
			}
		}
		slices.SortFunc(cands, func(a, b time.Time) int { return a.Compare(b) })
		for _, x := range cands {
			zx := newZView(x, s.loc)
			if ok, _ := s.rangeMatch(&zx, x); ok {
				return x, true
			}
		}
		c = end
	}
	return time.Time{}, false
}

// nextDay returns the first instant >= c whose wall date falls on one of the
// weekdays (weekday without range).
func (s *Schedule) nextDay(c time.Time) (time.Time, bool) {
	for i := 0; i < 32; i++ {
		z := newZView(c, s.loc)
		if s.dayOK(weekdayOf(z.day())) {
			return c, true
		}
		c = nextBoundary(c, s.loc, daySeconds)
	}
	return time.Time{}, false
}

// nextPeriod returns the first instant >= c at which the period check passes
// for a resource last checked at prev.
func (s *Schedule) nextPeriod(prev, c time.Time) (time.Time, bool) {
	if !s.number {
		due := time.Unix(prev.Unix()+s.threshold, 0)
		if c.Before(due) {
			return due, true
		}
		return c, true
	}
	p := prev.In(s.loc)
	switch s.period {
	case Hourly:
		for i := 0; i < 8; i++ {
			if c.In(s.loc).Hour() != p.Hour() {
				return c, true
			}
			c = nextBoundary(c, s.loc, 3600)
		}
	case Daily:
		for i := 0; i < 8; i++ {
			if c.In(s.loc).Day() != p.Day() {
				return c, true
			}
			c = nextBoundary(c, s.loc, daySeconds)
		}
	case Monthly:
		for i := 0; i < 40; i++ {
			if c.In(s.loc).Month() != p.Month() {
				return c, true
			}
			c = nextBoundary(c, s.loc, daySeconds)
		}
	case Weekly:
		week := prev.Add(7*24*time.Hour + time.Nanosecond)
		for i := 0; i < 16; i++ {
			if !c.Before(week) || p.Weekday() > c.In(s.loc).Weekday() {
				return c, true
			}
			if c = nextBoundary(c, s.loc, daySeconds); c.After(week) {
				c = week
			}
		}
	}
	return time.Time{}, false
}
