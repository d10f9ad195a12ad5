package cron

import (
	"math"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// Spec is a compiled cron expression. It is immutable: every method is pure
// and safe for concurrent use.
type Spec struct {
	expr string
	loc  *time.Location

	// fixedZone is set when loc has a single offset forever (UTC, Etc/GMT+5),
	// so no zone lookups are needed; off is that offset in seconds.
	fixedZone bool
	off       int64
	zt        *zoneTable // cached offset history of loc (nil for fixed zones)

	every int64 // @every interval in seconds; 0 for calendar specs

	secs, mins uint64 // bits 0..59
	hours      uint32 // bits 0..23
	dom        uint32 // bits 1..31
	month      uint16 // bits 1..12
	dow        uint8  // bits 0..6, Sunday = 0

	everyDay   bool // every day of every month matches: skip the calendar
	and        bool // Vixie: dom or dow field starts with '*' (or '?'), so both must match
	domStar    bool // dom field is exactly '*' or '?'
	dowStar    bool
	domSpecial bool // L, LW or nW present
	dowSpecial bool // nL or n#k present

	lastDay        bool
	lastWeekday    bool
	nearestWeekday uint32 // nW: bit n
	lastDow        uint8  // nL: bit n (weekday)
	nth            uint64 // n#k: bit wd*5 + k-1

	dowByFirst [7]uint32 // plain dow days for each weekday of the 1st

	firstSec, lastSec, firstMin, lastMin int
	firstTOD, lastTOD                    int64
	perDay                               int64

	// fixedTime: neither the minute nor the hour field starts with '*', so
	// the DST policies apply (otherwise the job follows real elapsed time).
	fixedTime bool
	gap       calendar.GapPolicy
	repeat    calendar.RepeatPolicy

	cfg    config    // the options Parse was given
	fields [6]string // source text of each field (seconds first), for Describe
	hasSec bool
}

// safeMargin is the distance from a zone transition beyond which a wall time
// cannot be ambiguous: offsets span at most 26 hours (-12h..+14h).
const safeMargin = 26 * 3600

const (
	noStart = math.MinInt64
	noEnd   = math.MaxInt64
)

// Location returns the zone the spec is evaluated in.
func (s *Spec) Location() *time.Location { return s.loc }

// String returns the expression in normalized form (single spaces, the time
// zone prefix kept); parsing it yields an equivalent Spec.
func (s *Spec) String() string { return s.expr }

// zoneAt returns the offset at instant u and the bounds [start, end) of the
// zone period containing it (noStart/noEnd when unbounded).
func (s *Spec) zoneAt(u int64) (off, start, end int64) {
	if s.zt != nil {
		// The table's last period ends at its horizon, which is not a
		// transition; the searches treat it as an ordinary period bound.
		if off, start, end, ok := s.zt.Lookup(u); ok {
			return off, start, end
		}
	}
	return s.zoneAtLoc(u)
}

// zoneAtLoc is zoneAt answered by the location itself.
func (s *Spec) zoneAtLoc(u int64) (off, start, end int64) {
	t := time.Unix(u, 0).In(s.loc)
	_, o := t.Zone()
	st, en := t.ZoneBounds()
	start, end = noStart, noEnd
	if !st.IsZero() {
		start = st.Unix()
	}
	if !en.IsZero() {
		end = en.Unix()
	}
	if end <= u {
		// Past the end of its transition table, Go derives periods from
		// the zone's rule year by year and reports the end of a leap year
		// one day early, so the last day of such a year claims to lie past
		// its own period. That boundary is not a transition: continue
		// with the period that starts a day later.
		_, o2, _, end2 := s.zoneAtRaw(end + secondsPerDay)
		if o2 == o {
			end = end2
		} else {
			end += secondsPerDay
		}
	}
	return int64(o), start, end
}

func (s *Spec) zoneAtRaw(u int64) (t time.Time, off int, start, end int64) {
	t = time.Unix(u, 0).In(s.loc)
	_, off = t.Zone()
	st, en := t.ZoneBounds()
	start, end = noStart, noEnd
	if !st.IsZero() {
		start = st.Unix()
	}
	if !en.IsZero() {
		end = en.Unix()
	}
	return t, off, start, end
}

func (s *Spec) offsetAt(u int64) int64 {
	off, _, _ := s.zoneAt(u)
	return off
}

// onceOnly reports whether later occurrences of a repeated wall time are not
// fires.
func (s *Spec) onceOnly() bool {
	return s.fixedTime && s.repeat == calendar.RepeatOnce
}

// gapRuns reports whether a matching wall time inside a spring-forward gap
// fires at the end of the gap.
func (s *Spec) gapRuns() bool {
	return s.fixedTime && s.gap == calendar.GapRun
}

// farFrom reports whether u is at least safeMargin after start.
func farFrom(u, start int64) bool {
	return start == noStart || u-start >= safeMargin
}

// farBefore reports whether u is more than safeMargin before end.
func farBefore(u, end int64) bool {
	return end == noEnd || end-u > safeMargin
}

// isSecondCopy reports whether instant u, at wall time c, is the later
// occurrence of a repeated wall time.
func (s *Spec) isSecondCopy(c, u int64) bool {
	r := calendar.ResolveWall(s.loc, c)
	return r.Kind == calendar.Repeated && r.Second.Unix() == u
}

func (s *Spec) instant(u int64) time.Time { return time.Unix(u, 0).In(s.loc) }

// Next returns the first fire time strictly after t, in the spec's zone. For a
// spec returned by Parse it never returns the zero time. It does not allocate.
func (s *Spec) Next(t time.Time) time.Time {
	lo := t.Unix() + 1 // fires are whole seconds; the first candidate after t
	switch {
	case s.every > 0:
		return s.instant(ceilDiv(lo, s.every) * s.every)
	case s.fixedZone:
		return s.instant(s.nextCivil(lo+s.off) - s.off)
	}
	u, _ := s.nextZone(lo, noEnd)
	return s.instant(u)
}

// Prev returns the last fire time strictly before t, in the spec's zone.
func (s *Spec) Prev(t time.Time) time.Time {
	hi := t.Unix()
	if t.Nanosecond() == 0 {
		hi--
	}
	switch {
	case s.every > 0:
		return s.instant(floorDiv(hi, s.every) * s.every)
	case s.fixedZone:
		return s.instant(s.prevCivil(hi+s.off) - s.off)
	}
	return s.instant(s.prevZone(hi))
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// nextZone returns the first fire at or after instant lo. With a limit other
// than noEnd it gives up (false) once the search passes that instant.
func (s *Spec) nextZone(lo, limit int64) (int64, bool) {
	if limit == noEnd {
		off, ps, pe := s.zoneAt(lo)
		c := s.nextCivil(lo + off)
		u := c - off
		if ps == lo {
			// A transition at the first candidate instant: its gap may fire.
		} else if u < pe {
			if farFrom(u, ps) || !s.onceOnly() || !s.isSecondCopy(c, u) {
				return u, true
			}
		} else if farBefore(lo, pe) {
			// No transition within a day after lo: any fire the civil search
			// cannot see would need one there or within a day before the
			// candidate, which the bounds of its own period rule out.
			off1, ps1, pe1 := s.zoneAt(u)
			if u1 := c - off1; u1 >= ps1 && u1 < pe1 && farFrom(u1, ps1) {
				return u1, true
			}
		}
	}
	return s.nextWalk(lo, limit)
}

// nextWalk is the general search: it visits the zone periods after lo one
// by one, applying the gap and repeat policies at each transition.
func (s *Spec) nextWalk(lo, limit int64) (int64, bool) {
	cur := lo
	for cur <= limit {
		off, ps, pe := s.zoneAt(cur)
		if ps == cur && ps != noStart && s.gapRuns() {
			if prevOff := s.offsetAt(ps - 1); off > prevOff && s.nextCivil(ps+prevOff) < ps+off {
				return ps, true
			}
		}
		w := cur + off
		for {
			c := s.nextCivil(w)
			u := c - off
			if u >= pe {
				break
			}
			if s.onceOnly() && !farFrom(u, ps) && s.isSecondCopy(c, u) {
				w = c + 1
				continue
			}
			return u, true
		}
		if pe == noEnd {
			break
		}
		cur = pe
	}
	return 0, false
}

// prevZone returns the last fire at or before instant hi.
func (s *Spec) prevZone(hi int64) int64 {
	off, ps, _ := s.zoneAt(hi)
	c := s.prevCivil(hi + off)
	u := c - off
	if u >= ps {
		if farFrom(u, ps) || !s.onceOnly() || !s.isSecondCopy(c, u) {
			return u
		}
	} else if farFrom(hi, ps) {
		off1, ps1, pe1 := s.zoneAt(u)
		if u1 := c - off1; u1 >= ps1 && u1 < pe1 && farFrom(u1, ps1) && farBefore(u1, pe1) {
			return u1
		}
	}
	return s.prevWalk(hi)
}

func (s *Spec) prevWalk(hi int64) int64 {
	cur := hi
	for {
		off, ps, _ := s.zoneAt(cur)
		w := cur + off
		for {
			c := s.prevCivil(w)
			u := c - off
			if u < ps {
				break
			}
			if s.onceOnly() && !farFrom(u, ps) && s.isSecondCopy(c, u) {
				w = c - 1
				continue
			}
			return u
		}
		if s.gapRuns() {
			if prevOff := s.offsetAt(ps - 1); off > prevOff && s.nextCivil(ps+prevOff) < ps+off {
				return ps
			}
		}
		cur = ps - 1
	}
}

// Count returns the number of fire times in (from, to]. It works by whole
// days and months (and by zone period in a zone with transitions), so a
// count over years of downtime costs microseconds, not one step per fire.
func (s *Spec) Count(from, to time.Time) int64 {
	lo, hi := from.Unix()+1, to.Unix()
	if lo > hi {
		return 0
	}
	switch {
	case s.every > 0:
		return floorDiv(hi, s.every) - floorDiv(lo-1, s.every)
	case s.fixedZone:
		return s.countCivil(lo+s.off, hi+s.off)
	}
	var n int64
	for cur := lo; cur <= hi; {
		off, ps, pe := s.zoneAt(cur)
		end := hi
		if pe != noEnd && pe-1 < hi {
			end = pe - 1
		}
		wlo, whi := cur+off, end+off
		n += s.countCivil(wlo, whi)
		if ps != noStart {
			prevOff := s.offsetAt(ps - 1)
			switch {
			case off > prevOff && ps == cur && s.gapRuns():
				// A matching wall time in the gap fires at ps, unless the
				// wall time at ps matches itself (already counted).
				if s.countCivil(ps+prevOff, ps+off-1) > 0 && !s.civilMatches(ps+off) {
					n++
				}
			case off < prevOff && s.onceOnly():
				// Wall times up to ps+prevOff-1 already happened before ps.
				n -= s.countCivil(wlo, min(whi, ps+prevOff-1))
			}
		}
		if pe == noEnd {
			break
		}
		cur = pe
	}
	return n
}
