package weekly

import (
	"fmt"
	"slices"
	"time"
)

// Interval is a stretch of the week in minutes since Monday 00:00, half-open:
// [Start, End) with 0 <= Start < End <= 10080.
type Interval struct {
	Start, End int
}

// String formats the interval as days and wall-clock times, such as
// "Sat 23:30 - Sun 00:30"; an End of 10080 prints as "Mon 00:00".
func (iv Interval) String() string {
	return winFormatMinute(iv.Start) + " - " + winFormatMinute(iv.End%winMinutesPerWeek)
}

// winFormatMinute formats a minute of the week as "Mon 09:30".
func winFormatMinute(m int) string {
	days := [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	return fmt.Sprintf("%s %02d:%02d", days[m/winMinutesPerDay], m%winMinutesPerDay/60, m%60)
}

// Calendar is a merged set of weekly windows read in one time zone. It is
// immutable and safe for concurrent use; queries do not allocate.
type Calendar struct {
	loc    *time.Location
	utc    bool          // loc is UTC: no zone lookups needed
	zone   *winZoneTable // loc's periods, nil for UTC or when not cached
	starts []int32       // merged intervals, sorted, disjoint and not touching
	ends   []int32       // within the week (an interval ending at 10080 and one starting at 0 both stay)
	total  int
}

// NewCalendar merges windows into one weekly calendar read in loc (nil means
// UTC). Overlapping and touching windows merge; a window that runs past
// Sunday 24:00 is split at the week boundary. Windows from [ParseWindow] are
// valid; for others, days outside Sunday..Saturday and non-positive lengths
// are ignored, a Start beyond one day carries into the following days, and a
// Length beyond a week counts as a week.
func NewCalendar(loc *time.Location, windows ...Window) *Calendar {
	if loc == nil {
		loc = time.UTC
	}
	c := &Calendar{loc: loc, utc: loc == time.UTC}
	if !c.utc {
		c.zone = winTableFor(loc)
	}
	n := 0
	for _, w := range windows {
		n += 2 * len(w.Days)
	}
	ivs := make([]Interval, 0, n)
	for _, w := range windows {
		if w.Length <= 0 {
			continue
		}
		length := min(w.Length, winMinutesPerWeek)
		for _, d := range w.Days {
			if d < time.Sunday || d > time.Saturday {
				continue
			}
			day := (int(d) + 6) % 7 // Monday = 0
			s := winMod(day*winMinutesPerDay+w.Start, winMinutesPerWeek)
			e := s + length
			if e <= winMinutesPerWeek {
				ivs = append(ivs, Interval{s, e})
				continue
			}
			ivs = append(ivs, Interval{s, winMinutesPerWeek}, Interval{0, e - winMinutesPerWeek})
		}
	}
	slices.SortFunc(ivs, func(a, b Interval) int { return a.Start - b.Start })
	for _, iv := range ivs {
		if n := len(c.starts); n > 0 && int(c.ends[n-1]) >= iv.Start {
			c.ends[n-1] = int32(max(int(c.ends[n-1]), iv.End))
			continue
		}
		c.starts = append(c.starts, int32(iv.Start))
		c.ends = append(c.ends, int32(iv.End))
	}
	for i := range c.starts {
		c.total += int(c.ends[i] - c.starts[i])
	}
	return c
}

// Location returns the zone the calendar's windows are read in.
func (c *Calendar) Location() *time.Location { return c.loc }

// WeeklyMinutes returns how many minutes of a week (on the wall clock) lie
// inside the calendar: 0 for an empty calendar, 10080 for one covering the
// whole week.
func (c *Calendar) WeeklyMinutes() int { return c.total }

// Intervals returns the merged windows as minutes since Monday 00:00, sorted,
// for drawing a week or listing the calendar. A window running past Sunday
// midnight appears as two intervals, one ending at 10080 and one starting at 0.
func (c *Calendar) Intervals() []Interval {
	out := make([]Interval, len(c.starts))
	for i := range c.starts {
		out[i] = Interval{int(c.starts[i]), int(c.ends[i])}
	}
	return out
}

// JoinedIntervals is Intervals with a window across Sunday midnight, which
// Intervals gives as two, joined into one whose End passes 10080: the form
// in which `almanac windows` and the web UI show a week.
func (c *Calendar) JoinedIntervals() []Interval {
	ivs := c.Intervals()
	if n := len(ivs); n > 1 && ivs[0].Start == 0 && ivs[n-1].End == MinutesPerWeek {
		ivs[n-1].End = MinutesPerWeek + ivs[0].End
		ivs = ivs[1:]
	}
	return ivs
}

// Contains reports whether t lies inside a window.
func (c *Calendar) Contains(t time.Time) bool {
	if len(c.starts) == 0 {
		return false
	}
	u := t.Unix()
	sp := c.span(u)
	_, in := c.find(winWeekMinute(sp.minute(u)))
	return in
}

// NextOpen returns the first instant at or after t that lies inside a window:
// t itself (in the calendar's zone) when t is inside, otherwise the instant the next window opens, in
// the calendar's zone. It reports false only for an empty calendar.
func (c *Calendar) NextOpen(t time.Time) (time.Time, bool) {
	if len(c.starts) == 0 {
		return time.Time{}, false
	}
	u := t.Unix()
	sp := c.span(u)
	if _, in := c.find(winWeekMinute(sp.minute(u))); in {
		return t.In(c.loc), true
	}
	cur := u
	for range winMaxSpans {
		if cur < sp.hold {
			// The clock is held at holdMin, which is outside: skip the hold.
			cur = sp.hold
		}
		a := winFloorDiv(cur+sp.off, 60)
		wm := winWeekMinute(a)
		i, in := c.find(wm)
		if in {
			return c.instant(cur), true
		}
		next := a - int64(wm) + int64(c.startAfter(i))
		if x := next*60 - sp.off; x < sp.end {
			return c.instant(x), true
		}
		cur = sp.end
		sp = c.span(cur)
	}
	return time.Time{}, false
}

// CurrentEnd returns the instant the window containing t closes, in the
// calendar's zone. It reports false when t is outside every window, and when
// the calendar covers the whole week, since such a window never closes.
func (c *Calendar) CurrentEnd(t time.Time) (time.Time, bool) {
	if len(c.starts) == 0 || c.total == winMinutesPerWeek {
		return time.Time{}, false
	}
	u := t.Unix()
	sp := c.span(u)
	if _, in := c.find(winWeekMinute(sp.minute(u))); !in {
		return time.Time{}, false
	}
	cur := u
	for range winMaxSpans {
		if cur < sp.hold {
			if _, in := c.find(winWeekMinute(sp.holdMin)); !in {
				return c.instant(cur), true
			}
			cur = sp.hold
		}
		a := winFloorDiv(cur+sp.off, 60)
		wm := winWeekMinute(a)
		i, in := c.find(wm)
		if !in {
			return c.instant(cur), true
		}
		end := a - int64(wm) + int64(c.endOf(i))
		if x := end*60 - sp.off; x < sp.end {
			return c.instant(x), true
		}
		cur = sp.end
		sp = c.span(cur)
	}
	return time.Time{}, false
}

// winMaxSpans bounds the zone periods a query walks through. Each period of a
// real zone is far longer than the gap between two windows, so queries finish
// in one or two steps; the bound only guards against a pathological zone.
const winMaxSpans = 1000

func (c *Calendar) instant(u int64) time.Time { return time.Unix(u, 0).In(c.loc) }

// find returns the index of the first interval ending after week minute m and
// whether that interval contains m.
func (c *Calendar) find(m int) (int, bool) {
	lo, hi := 0, len(c.ends)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(c.ends[mid]) <= m {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(c.starts) && int(c.starts[lo]) <= m
}

// startAfter returns the week minute at which interval i starts, counting
// past the end of the week (i == len) as the first interval of next week.
func (c *Calendar) startAfter(i int) int {
	if i < len(c.starts) {
		return int(c.starts[i])
	}
	return winMinutesPerWeek + int(c.starts[0])
}

// endOf returns the week minute at which the run of windows containing
// interval i ends; a run across the week boundary ends next week.
func (c *Calendar) endOf(i int) int {
	e := int(c.ends[i])
	if e == winMinutesPerWeek && c.starts[0] == 0 {
		e += int(c.ends[0])
	}
	return e
}

// winWeekMinute maps an absolute wall minute (minutes since 1970-01-01 00:00
// of the wall clock, a Thursday) to minutes since that week's Monday 00:00.
func winWeekMinute(a int64) int {
	return int(winMod64(a+3*winMinutesPerDay, winMinutesPerWeek))
}

func winFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func winMod64(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func winMod(a, b int) int {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
