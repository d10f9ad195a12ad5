package calendar

import "time"

// Kind says how a wall-clock time maps onto instants in a zone.
type Kind uint8

const (
	// Unique: the wall time happens exactly once.
	Unique Kind = iota
	// Gap: the wall time is skipped by a forward transition (spring forward).
	// Resolution.First is the transition instant, the first instant after the gap.
	Gap
	// Repeated: the wall time happens twice (fall back). First is the earlier
	// instant (before the transition), Second the later one.
	Repeated
)

func (k Kind) String() string {
	switch k {
	case Unique:
		return "unique"
	case Gap:
		return "gap"
	case Repeated:
		return "repeated"
	}
	return "invalid"
}

// Resolution is the result of [Resolve].
type Resolution struct {
	Kind   Kind
	First  time.Time // the instant (Unique), the end of the gap (Gap), or the earlier occurrence (Repeated)
	Second time.Time // the later occurrence (Repeated only)
}

// GapPolicy says what a schedule does with a wall time that a spring-forward
// transition skips.
type GapPolicy uint8

const (
	// GapRun fires once at the first instant after the gap (ISC/Vixie cron).
	GapRun GapPolicy = iota
	// GapSkip does not fire at all that day.
	GapSkip
)

// RepeatPolicy says what a schedule does with a wall time that a fall-back
// transition repeats.
type RepeatPolicy uint8

const (
	// RepeatOnce fires at the first occurrence only (ISC/Vixie cron).
	RepeatOnce RepeatPolicy = iota
	// RepeatTwice fires at both occurrences.
	RepeatTwice
)

// maxOffsetSpan bounds how far a wall time can sit from its instant: zone
// offsets in the tz database lie within [-12h, +14h], so every candidate
// instant for wall time w is within 15 h of w read as UTC.
const maxOffsetSpan = 15 * 3600

// safeMargin is how far an instant must be from both ends of its zone period
// for its wall time to be unambiguous (offset jumps are at most 24 h).
const safeMargin = 26 * 3600

// Resolve maps the civil time year-month-day hour:min:sec in loc to instants.
// Out-of-range fields are normalized as time.Date does. It never allocates.
func Resolve(loc *time.Location, year int, month time.Month, day, hour, min, sec int) Resolution {
	w := time.Date(year, month, day, hour, min, sec, 0, time.UTC).Unix()
	return ResolveWall(loc, w)
}

// ResolveWall is [Resolve] for a wall time given as seconds since 1970-01-01
// 00:00:00 of the zone's wall clock (that is, the civil time read as if UTC).
func ResolveWall(loc *time.Location, w int64) Resolution {
	// Fast path: the offset at instant w usually holds at w-offset too, and if
	// that instant is far from both zone transitions no other reading exists.
	_, off := time.Unix(w, 0).In(loc).Zone()
	u := w - int64(off)
	t := time.Unix(u, 0).In(loc)
	_, o := t.Zone()
	if o == off {
		start, end := t.ZoneBounds()
		if (start.IsZero() || u-start.Unix() >= safeMargin) && (end.IsZero() || end.Unix()-u > safeMargin) {
			return Resolution{Kind: Unique, First: t}
		}
	}
	return resolveSlow(loc, w)
}

func resolveSlow(loc *time.Location, w int64) Resolution {
	var found [3]int64
	n := 0
	var gapAt int64
	gap := false
	t := time.Unix(w-maxOffsetSpan, 0).In(loc)
	for i := 0; i < 8; i++ {
		_, o := t.Zone()
		start, end := t.ZoneBounds()
		u := w - int64(o)
		inStart := start.IsZero() || u >= start.Unix()
		inEnd := end.IsZero() || u < end.Unix()
		if inStart && inEnd && n < len(found) {
			found[n] = u
			n++
		}
		if !inEnd && !end.IsZero() {
			// w lies past this period's end in this period's offset; if the
			// next period reads it before its start, w is in the gap at end.
			next := end.In(loc)
			_, o2 := next.Zone()
			if w-int64(o2) < end.Unix() && !gap {
				gap, gapAt = true, end.Unix()
			}
		}
		if end.IsZero() || end.Unix() > w+maxOffsetSpan {
			break
		}
		t = end.In(loc)
	}
	switch {
	case n == 1:
		return Resolution{Kind: Unique, First: time.Unix(found[0], 0).In(loc)}
	case n >= 2:
		a, b := found[0], found[1]
		if b < a {
			a, b = b, a
		}
		return Resolution{Kind: Repeated, First: time.Unix(a, 0).In(loc), Second: time.Unix(b, 0).In(loc)}
	case gap:
		return Resolution{Kind: Gap, First: time.Unix(gapAt, 0).In(loc)}
	}
	// Unreachable for a consistent zone database; fall back to time.Date's pick.
	tt := time.Unix(w, 0).UTC()
	return Resolution{Kind: Unique, First: time.Date(tt.Year(), tt.Month(), tt.Day(), tt.Hour(), tt.Minute(), tt.Second(), 0, loc)}
}

// Instants applies the DST policies to r and returns the instants at which a
// schedule naming that wall time fires: zero, one or two of them.
func (r Resolution) Instants(gap GapPolicy, repeat RepeatPolicy) (first, second time.Time, n int) {
	switch r.Kind {
	case Gap:
		if gap == GapSkip {
			return time.Time{}, time.Time{}, 0
		}
		return r.First, time.Time{}, 1
	case Repeated:
		if repeat == RepeatTwice {
			return r.First, r.Second, 2
		}
		return r.First, time.Time{}, 1
	}
	return r.First, time.Time{}, 1
}

// Wall returns t's wall clock in loc as seconds since 1970-01-01 00:00:00 of
// that wall clock (the inverse of [ResolveWall] for an existing wall time).
func Wall(t time.Time, loc *time.Location) int64 {
	_, off := t.In(loc).Zone()
	return t.Unix() + int64(off)
}
