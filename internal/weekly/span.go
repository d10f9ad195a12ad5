package weekly

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// winSpan is the stretch of time around an instant during which the calendar's
// zone keeps one UTC offset, and so the wall clock advances with real time.
//
// Windows open and close when the wall clock first reaches a time, so what
// matters at an instant is the furthest the clock has ever read, not what it
// reads now. The two differ only just after a backward transition (fall
// back): until the clock has caught up with where it stood before the
// transition, the furthest reading is the last moment before it, holdMin.
type winSpan struct {
	off     int64 // UTC offset in seconds
	end     int64 // first instant (Unix seconds) of the next period; MaxInt64 if none
	hold    int64 // the clock is held at holdMin before this instant
	holdMin int64 // absolute wall minute shown while held
}

// minute returns the absolute wall minute that decides whether the instant u
// (in this span) is inside a window: the clock's furthest reading.
func (sp winSpan) minute(u int64) int64 {
	if u < sp.hold {
		return sp.holdMin
	}
	return winFloorDiv(u+sp.off, 60)
}

// span returns the zone period containing the instant u (Unix seconds).
func (c *Calendar) span(u int64) winSpan {
	if c.utc {
		return winSpan{end: math.MaxInt64, hold: math.MinInt64}
	}
	if z := c.zone; z != nil && u >= z.starts[0] && u < z.hi {
		// Binary search for the last period starting at or before u.
		lo, hi := 0, len(z.starts)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if z.starts[mid] <= u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return z.spans[lo-1]
	}
	return winSpanAt(c.loc, u)
}

// winSpanAt computes the zone period containing u from the time package.
func winSpanAt(loc *time.Location, u int64) winSpan {
	t := time.Unix(u, 0).In(loc)
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	sp := winSpan{off: int64(off), end: math.MaxInt64, hold: math.MinInt64}
	if !end.IsZero() {
		sp.end = end.Unix()
		if sp.end <= u {
			// Past a zone's last listed transition the time package
			// derives periods from a yearly rule, and on the last day of a
			// leap year it can report an end that has already passed. The
			// offset is right; take the end from the period a day later.
			sp.end = u + 1
			if s, _ := time.Unix(u+86400, 0).In(loc).ZoneBounds(); s.Unix() > u {
				sp.end = s.Unix()
			}
		}
	}
	if start.IsZero() {
		return sp
	}
	s := start.Unix()
	_, prev := time.Unix(s-1, 0).In(loc).Zone()
	if prev > off {
		// The clock fell back at s from s+prev to s+off: it reads below
		// s+prev until s+prev-off, and until then the furthest it has read
		// is the instant just before s.
		sp.hold = min(s+int64(prev-off), sp.end)
		sp.holdMin = winFloorDiv(s+int64(prev)-1, 60)
	}
	return sp
}

// winZoneTable lists a zone's periods over the years queries usually ask
// about, so that finding the period of an instant is one binary search over
// a flat slice instead of several lookups in the time package. Instants
// outside the table fall back to the time package.
type winZoneTable struct {
	hi     int64     // the table covers [starts[0], hi)
	starts []int64   // spans[i] holds from starts[i] to starts[i+1] (or hi)
	spans  []winSpan // each as winSpanAt reports it at starts[i]
}

// The table covers 1970 to 2100.
var (
	winTableLo = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	winTableHi = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// winTables caches one table per *time.Location. The number of cached zones
// is bounded so that a caller loading locations over and over cannot grow
// it without limit; calendars beyond the bound use the time package.
var (
	winTables     sync.Map // *time.Location -> *winZoneTable
	winTableCount atomic.Int32
)

const winMaxTables = 1024

func winTableFor(loc *time.Location) *winZoneTable {
	if v, ok := winTables.Load(loc); ok {
		return v.(*winZoneTable)
	}
	if winTableCount.Load() >= winMaxTables {
		return nil
	}
	z := winBuildTable(loc)
	if v, loaded := winTables.LoadOrStore(loc, z); loaded {
		return v.(*winZoneTable)
	}
	winTableCount.Add(1)
	return z
}

func winBuildTable(loc *time.Location) *winZoneTable {
	z := &winZoneTable{hi: winTableHi}
	for u := winTableLo; u < winTableHi; {
		sp := winSpanAt(loc, u)
		z.starts = append(z.starts, u)
		z.spans = append(z.spans, sp)
		u = sp.end
	}
	return z
}
