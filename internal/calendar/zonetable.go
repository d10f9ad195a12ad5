package calendar

import (
	"math"
	"sync"
	"time"
)

// NoStart is the start of a zone's first period in a ZoneTable.
const NoStart = math.MinInt64

// ZoneTable is a location's offset history as sorted period starts, so a
// lookup is one binary search over integers instead of time.Location's
// lookup plus two time.Time constructions (and, past the zone's transition
// table, a parse of its POSIX rule). Periods with equal offsets are merged:
// only the offset matters to a schedule. It covers instants up to the
// start of 2200; Lookup reports later instants as not covered.
type ZoneTable struct {
	starts []int64 // starts[0] is NoStart
	offs   []int64
	end    int64
	// bucket[i] is the index of the period containing bucketBase+i<<bucketShift,
	// so a lookup between 1900 and the table's end scans one or two entries.
	bucket []uint16
}

const bucketShift = 22 // about 48.5 days, shorter than any DST period in use

var bucketBase = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// zoneTables caches the tables by zone name rather than by *time.Location,
// so callers that load the same zone twice (time.LoadLocation returns a new
// location each time) share one table and the cache stays bounded by the
// number of zones.
var zoneTables sync.Map // zone name -> *ZoneTable

var tableEnd = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// TableFor returns the cached table of loc, building it on first use (one
// walk over the zone's transitions, once per zone per process). It is safe
// for concurrent use, and so is the table.
func TableFor(loc *time.Location) *ZoneTable {
	if v, ok := zoneTables.Load(loc.String()); ok {
		return v.(*ZoneTable)
	}
	zt := &ZoneTable{end: tableEnd}
	t := time.Unix(-1<<40, 0).In(loc) // before any zone's first transition
	_, off := t.Zone()
	zt.starts = append(zt.starts, NoStart)
	zt.offs = append(zt.offs, int64(off))
	for {
		_, e := t.ZoneBounds()
		if e.IsZero() || e.Unix() >= tableEnd {
			break
		}
		if e.Unix() <= t.Unix() {
			// Go reports a leap year's end a day early past its table; step
			// over the bogus bound (see Spec.zoneAt).
			e = time.Unix(e.Unix()+86400, 0)
		}
		t = e.In(loc)
		_, o := t.Zone()
		if int64(o) != zt.offs[len(zt.offs)-1] {
			zt.starts = append(zt.starts, t.Unix())
			zt.offs = append(zt.offs, int64(o))
		}
	}
	if len(zt.starts) < 1<<16 {
		n := (tableEnd-bucketBase)>>bucketShift + 1
		zt.bucket = make([]uint16, n)
		i := 0
		for b := range zt.bucket {
			at := bucketBase + int64(b)<<bucketShift
			for i+1 < len(zt.starts) && zt.starts[i+1] <= at {
				i++
			}
			zt.bucket[b] = uint16(i)
		}
	}
	v, _ := zoneTables.LoadOrStore(loc.String(), zt)
	return v.(*ZoneTable)
}

// Lookup returns the offset at instant u (Unix seconds) and its period
// [start, end), start being NoStart for the first period, or ok=false past
// the table.
func (zt *ZoneTable) Lookup(u int64) (off, start, end int64, ok bool) {
	if u >= zt.end {
		return 0, 0, 0, false
	}
	lo, hi := 0, len(zt.starts) // find the last start <= u
	if b := (u - bucketBase) >> bucketShift; u >= bucketBase && b < int64(len(zt.bucket)) {
		lo = int(zt.bucket[b])
		for lo+1 < len(zt.starts) && zt.starts[lo+1] <= u {
			lo++
		}
		hi = lo + 1
	}
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if zt.starts[mid] <= u {
			lo = mid
		} else {
			hi = mid
		}
	}
	end = zt.end
	if lo+1 < len(zt.starts) {
		end = zt.starts[lo+1]
	}
	return zt.offs[lo], zt.starts[lo], end, true
}
