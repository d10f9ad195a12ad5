package puppetsched

import (
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// Puppet builds range limits with Ruby's Time.local, so that is the rule for
// turning a wall-clock time into an instant here too. Ruby (3.1, glibc) reads
// a wall time skipped by a spring-forward transition with the offset in force
// before it (02:30 becomes 03:30 the new offset), and a wall time repeated by
// a fall-back transition as its later occurrence.

const (
	daySeconds = 24 * 60 * 60
	// fixedMargin is how far from both ends of its zone period an instant
	// must be for every wall time within two days of it to map through the
	// period's offset alone: two days of range limits plus the 26 hours that
	// offsets can differ by.
	fixedMargin = 2*daySeconds + 26*3600
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// zview is a zone read around one instant: the wall clock of that instant and
// a fast way to map nearby wall times back to instants.
type zview struct {
	loc   *time.Location
	off   int64 // UTC offset at the instant, seconds
	wall  int64 // the instant's wall clock, seconds since 1970-01-01 00:00 wall
	fixed bool  // every wall time within two days maps through off
}

func newZView(t time.Time, loc *time.Location) zview {
	tl := t.In(loc)
	_, off := tl.Zone()
	u := t.Unix()
	z := zview{loc: loc, off: int64(off), wall: u + int64(off)}
	start, end := tl.ZoneBounds()
	z.fixed = (start.IsZero() || u-start.Unix() >= fixedMargin) && (end.IsZero() || end.Unix()-u > fixedMargin)
	return z
}

// day returns the wall date of the instant as days since 1970-01-01.
func (z *zview) day() int64 { return floorDiv(z.wall, daySeconds) }

// local is Ruby's Time.local for the wall date `day` (days since 1970-01-01)
// at ns nanoseconds after midnight.
func (z *zview) local(day, ns int64) (sec int64, nsec int64) {
	w := day*daySeconds + floorDiv(ns, int64(time.Second))
	nsec = ns - floorDiv(ns, int64(time.Second))*int64(time.Second)
	if z.fixed {
		return w - z.off, nsec
	}
	return rubyLocal(z.loc, w), nsec
}

// rubyLocal maps the wall time w (seconds since 1970-01-01 00:00 wall) in loc
// to an instant the way Ruby's Time.local does.
func rubyLocal(loc *time.Location, w int64) int64 {
	r := calendar.ResolveWall(loc, w)
	switch r.Kind {
	case calendar.Repeated:
		return r.Second.Unix()
	case calendar.Gap:
		_, before := r.First.Add(-time.Second).In(loc).Zone()
		return w - int64(before)
	}
	return r.First.Unix()
}

// weekdayOf returns the weekday of a day count since 1970-01-01 (a Thursday).
func weekdayOf(day int64) time.Weekday {
	return time.Weekday((day%7 + 7 + 4) % 7)
}

// between reports whether (s, n) lies within [lo, hi], instants given as
// seconds and nanoseconds, as Ruby's Comparable#between? does.
func between(s, n, loS, loN, hiS, hiN int64) bool {
	if s < loS || (s == loS && n < loN) {
		return false
	}
	return s < hiS || (s == hiS && n <= hiN)
}

// nextBoundary returns the first instant after t at which the wall clock in
// loc enters a new unit (3600: a new hour, daySeconds: a new date) or the
// zone's offset changes.
func nextBoundary(t time.Time, loc *time.Location, unit int64) time.Time {
	tl := t.In(loc)
	_, off := tl.Zone()
	w := t.Unix() + int64(off)
	nb := (floorDiv(w, unit)+1)*unit - int64(off)
	if _, end := tl.ZoneBounds(); !end.IsZero() && end.Unix() < nb {
		nb = end.Unix()
	}
	return time.Unix(nb, 0)
}
