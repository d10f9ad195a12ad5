package oncalendar

import (
	"math/bits"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// Spec is a compiled calendar event. It is immutable: every method is pure
// and safe for concurrent use.
type Spec struct {
	expr string // as given
	norm string // systemd's normalized form
	loc  *time.Location
	utc  bool   // the event ends in UTC
	zone string // the event's own zone suffix, if any

	comps [6][]comp // the fields as normalized; nil = "*"
	eom   bool      // the day field counts from the end of the month (~)

	weekdays uint8 // bit 0 = Monday ... bit 6 = Sunday; 0x7f = any

	// Lookup tables.
	fixed     bool                // loc has one offset forever
	off       int64               // that offset, in seconds
	zt        *calendar.ZoneTable // loc's offset history, when not fixed
	years     [4]uint64
	months    uint16    // bits 1..12
	dayMask   [4]uint32 // days (bits 1..31) for months of 28..31 days
	dowFirst  [7]uint32 // days matching weekdays, by weekday (Mon = 0) of the 1st
	hours     uint32
	mins      uint64
	secs      []comp // microseconds within the minute
	secsWhole uint64 // when every item is whole seconds without fraction: bits 0..59
	secsBits  bool   // secsWhole is usable
}

// Location returns the zone the event is evaluated in: its own zone
// suffix, UTC, or the zone given to Parse.
func (s *Spec) Location() *time.Location { return s.loc }

// String returns the event's normalized form, as `systemd-analyze
// calendar` prints it ("Normalized form:").
func (s *Spec) String() string { return s.norm }

// tables derives the bitsets Next searches.
func (s *Spec) tables() {
	set := func(c []comp, lo, hi int, fn func(v int)) {
		if c == nil {
			for v := lo; v <= hi; v++ {
				fn(v)
			}
			return
		}
		for _, x := range c {
			end := x.start
			if x.repeat > 0 {
				end = hi
				if x.stop >= 0 {
					end = min(x.stop, hi)
				}
			}
			step := max(x.repeat, 1)
			for v := x.start; v <= end; v += step {
				fn(v)
			}
		}
	}
	set(s.comps[fYear], MinYear, MaxYear, func(v int) { y := v - MinYear; s.years[y/64] |= 1 << (y % 64) })
	set(s.comps[fMonth], 1, 12, func(v int) { s.months |= 1 << v })
	set(s.comps[fHour], 0, 23, func(v int) { s.hours |= 1 << v })
	set(s.comps[fMinute], 0, 59, func(v int) { s.mins |= 1 << v })
	for n := 28; n <= 31; n++ {
		var m uint32
		if s.eom {
			for _, x := range s.comps[fDay] {
				// ~d is the d-th day from the end: n+1-d. A range
				// ~a..b covers n+1-b .. n+1-a, stepping from its start.
				start, stop := n+1-x.start, -1
				if x.stop >= 0 {
					start, stop = n+1-x.stop, n+1-x.start
				}
				end := start
				if x.repeat > 0 {
					end = n
					if stop >= 0 {
						end = stop
					}
				}
				for v := start; v <= end && v <= n; v += max(x.repeat, 1) {
					if v >= 1 {
						m |= 1 << v
					}
				}
			}
		} else {
			set(s.comps[fDay], 1, 31, func(v int) { m |= 1 << v })
		}
		s.dayMask[n-28] = m & (uint32(1)<<(n+1) - 2)
	}
	// Day d of a month whose 1st is weekday f (Mon = 0) is weekday (f+d-1)%7.
	for f := 0; f < 7; f++ {
		var m uint32
		for d := 1; d <= 31; d++ {
			if s.weekdays&(1<<((f+d-1)%7)) != 0 {
				m |= 1 << d
			}
		}
		s.dowFirst[f] = m
	}
	s.secs = s.comps[fSecond]
	s.secsBits = true
	for _, x := range s.secs {
		if x.start%usPerSec != 0 || x.repeat%usPerSec != 0 {
			s.secsBits = false
		}
	}
	if s.secsBits {
		set(s.secs, 0, 60*usPerSec-1, func(v int) { s.secsWhole |= 1 << (v / usPerSec) })
	}
	if s.loc == time.UTC {
		s.fixed = true
	} else {
		t := time.Unix(0, 0).In(s.loc)
		if st, en := t.ZoneBounds(); st.IsZero() && en.IsZero() {
			_, o := t.Zone()
			s.fixed, s.off = true, int64(o)
		}
	}
	if !s.fixed {
		s.zt = calendar.TableFor(s.loc)
	}
}

// Next returns the first instant strictly after t at which the event
// fires, or the zero time if there is none (the event names only past
// years, or dates that do not exist). Instants have microsecond precision,
// as systemd's.
//
// Local times follow systemd: the search walks the wall clock forward from
// t's wall time, so a wall time skipped by a spring-forward transition
// does not fire, and a wall time repeated by a fall-back transition fires
// at its first instant only (or at its second, when t is already past the
// transition's first pass).
func (s *Spec) Next(t time.Time) time.Time {
	u := t.Unix()
	off, pStart, pEnd := s.off, int64(0), int64(0)
	if !s.fixed {
		var ok bool
		if off, pStart, pEnd, ok = s.zt.Lookup(u); !ok {
			off = s.offsetAt(u)
		}
	}
	wall := u + off
	us := t.Nanosecond()/1000 + 1
	if us == usPerSec {
		wall, us = wall+1, 0
	}
	for i := 0; i < 64; i++ {
		w, wus, ok := s.nextWall(wall, us)
		if !ok {
			return time.Time{}
		}
		if s.fixed {
			return time.Unix(w-s.off, int64(wus)*1000).In(s.loc)
		}
		if c := w - off; pEnd != 0 && (pStart == calendar.NoStart || c-pStart > safeMargin) && pEnd-c > safeMargin {
			// Deep inside t's zone period: w has one reading, in t's
			// offset, and it is after t because w is after t's wall time.
			return time.Unix(c, int64(wus)*1000).In(s.loc)
		}
		a, b, n, gapEnd := s.resolve(w)
		cands := [2]int64{a, b}
		for _, c := range cands[:n] {
			if c := time.Unix(c, int64(wus)*1000); c.After(t) {
				return c.In(s.loc)
			}
		}
		if n == 0 && gapEnd+s.offsetAt(gapEnd) > w {
			// Nothing in the gap exists: go on from its end.
			wall, us = gapEnd+s.offsetAt(gapEnd), 0
			continue
		}
		wall, us = w, wus+1
		if us == usPerSec {
			wall, us = wall+1, 0
		}
	}
	return time.Time{}
}

// safeMargin is how far an instant must be from its zone period's bounds
// for its wall time to have no other reading: offsets differ by at most
// 26 hours.
const safeMargin = 26 * 3600

// maxOffset bounds a zone's offset from UTC (the tz database's lie within
// -12h..+14h).
const maxOffset = 15 * 3600

// offsetAt returns the zone's offset at instant u, in seconds.
func (s *Spec) offsetAt(u int64) int64 {
	if off, _, _, ok := s.zt.Lookup(u); ok {
		return off
	}
	_, o := time.Unix(u, 0).In(s.loc).Zone()
	return int64(o)
}

// resolve returns the instants whose wall clock reads w: n of them (0, 1
// or 2), in order, and when there are none the instant at which the
// spring-forward gap holding w ends.
func (s *Spec) resolve(w int64) (a, b int64, n int, gapEnd int64) {
	off, start, end, ok := s.zt.Lookup(w - maxOffset)
	for i := 0; ok && i < 8; i++ {
		switch u := w - off; {
		case u >= start && u < end:
			if n == 0 {
				a = u
			} else {
				b = u
			}
			n++
		case u < start && n == 0 && gapEnd == 0:
			gapEnd = start
		}
		if n == 2 || end > w+maxOffset {
			return a, b, n, gapEnd
		}
		off, start, end, ok = s.zt.Lookup(end)
	}
	// Past the table (the year 2200): ask the location.
	r := calendar.ResolveWall(s.loc, w)
	switch r.Kind {
	case calendar.Gap:
		return 0, 0, 0, r.First.Unix()
	case calendar.Repeated:
		return r.First.Unix(), r.Second.Unix(), 2, 0
	}
	return r.First.Unix(), 0, 1, 0
}

const secondsPerDay = 86400

// nextWall returns the first matching wall time at or after (wall, us):
// seconds since 1970-01-01 of the wall clock, and microseconds. It tracks
// the day number of the month's first day so that moving on by a day or a
// month costs no calendar conversion.
func (s *Spec) nextWall(wall int64, us int) (int64, int, bool) {
	days := floorDiv(wall, secondsPerDay)
	tod := int(wall - days*secondsPerDay)
	y, m, d := civil(days)
	first := days - int64(d-1)
	h, mi, usMin := tod/3600, tod/60%60, tod%60*usPerSec+us
	for y <= MaxYear {
		if y < MinYear || s.years[(y-MinYear)/64]&(1<<((y-MinYear)%64)) == 0 {
			ny, ok := s.nextYear(max(y+1, MinYear))
			if !ok {
				return 0, 0, false
			}
			y, m, d, h, mi, usMin = ny, 1, 1, 0, 0, 0
			first = daysFromCivil(y, 1, 1)
			continue
		}
		if s.months&(1<<m) == 0 {
			if rest := s.months >> (m + 1) << (m + 1); rest == 0 {
				y, m = y+1, 1
			} else {
				m = bits.TrailingZeros16(rest)
			}
			d, h, mi, usMin = 1, 0, 0, 0
			first = daysFromCivil(y, m, 1)
			continue
		}
		n := monthLen(y, m)
		mask := s.dayMask[n-28]
		if s.weekdays != 0x7f {
			mask &= s.dowFirst[(first+3)%7] // 1970-01-01 was a Thursday
		}
		mask &^= uint32(uint64(1)<<d - 1)
		if mask != 0 {
			if nd := bits.TrailingZeros32(mask); nd != d {
				d, h, mi, usMin = nd, 0, 0, 0
			}
			if nh, nm, nus, ok := s.timeOfDay(h, mi, usMin); ok {
				return (first+int64(d-1))*secondsPerDay + int64(nh*3600+nm*60+nus/usPerSec), nus % usPerSec, true
			}
			d, h, mi, usMin = d+1, 0, 0, 0
			if d <= n {
				continue
			}
		}
		// On to the next month.
		first += int64(n)
		m, d, h, mi, usMin = m+1, 1, 0, 0, 0
		if m > 12 {
			y, m = y+1, 1
		}
	}
	return 0, 0, false
}

// nextYear returns the first year at or after y the event names.
func (s *Spec) nextYear(y int) (int, bool) {
	for i := y - MinYear; i <= MaxYear-MinYear; {
		w := s.years[i/64] >> (i % 64)
		if w != 0 {
			i += bits.TrailingZeros64(w)
			return i + MinYear, i <= MaxYear-MinYear
		}
		i = (i/64 + 1) * 64
	}
	return 0, false
}

// timeOfDay returns the first matching time of day at or after h:mi and
// us microseconds into the minute.
func (s *Spec) timeOfDay(h, mi, us int) (int, int, int, bool) {
	for h < 24 {
		hm := s.hours >> h
		if hm == 0 {
			return 0, 0, 0, false
		}
		if nh := h + bits.TrailingZeros32(hm); nh != h {
			h, mi, us = nh, 0, 0
		}
		for mi < 60 {
			mm := s.mins >> mi
			if mm == 0 {
				break
			}
			if nm := mi + bits.TrailingZeros64(mm); nm != mi {
				mi, us = nm, 0
			}
			if v, ok := s.nextSecond(us); ok {
				return h, mi, v, true
			}
			mi++
			us = 0
		}
		h++
		mi, us = 0, 0
	}
	return 0, 0, 0, false
}

// nextSecond returns the first matching microsecond of the minute at or
// after us.
func (s *Spec) nextSecond(us int) (int, bool) {
	if s.secsBits {
		sec := (us + usPerSec - 1) / usPerSec
		if sec >= 60 {
			return 0, false
		}
		w := s.secsWhole >> sec
		if w == 0 {
			return 0, false
		}
		return (sec + bits.TrailingZeros64(w)) * usPerSec, true
	}
	best, found := 0, false
	for _, x := range s.secs {
		var k int
		switch {
		case x.start >= us:
			k = x.start
		case x.repeat > 0:
			k = x.start + x.repeat*((us-x.start+x.repeat-1)/x.repeat)
			if x.stop >= 0 && k > x.stop {
				continue
			}
		default:
			continue
		}
		if k < 60*usPerSec && (!found || k < best) {
			best, found = k, true
		}
	}
	return best, found
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civil converts days since 1970-01-01 to a date (proleptic Gregorian).
func civil(z int64) (y, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

// daysFromCivil is the inverse of civil.
func daysFromCivil(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func monthLen(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// format renders the normalized form.
func (s *Spec) format() string {
	var b strings.Builder
	if s.weekdays != 0x7f {
		formatWeekdays(&b, s.weekdays)
		b.WriteByte(' ')
	}
	formatChain(&b, 4, s.comps[fYear], false)
	b.WriteByte('-')
	formatChain(&b, 2, s.comps[fMonth], false)
	if s.eom {
		b.WriteByte('~')
	} else {
		b.WriteByte('-')
	}
	formatChain(&b, 2, s.comps[fDay], false)
	b.WriteByte(' ')
	formatChain(&b, 2, s.comps[fHour], false)
	b.WriteByte(':')
	formatChain(&b, 2, s.comps[fMinute], false)
	b.WriteByte(':')
	formatChain(&b, 2, s.comps[fSecond], true)
	switch {
	case s.utc:
		b.WriteString(" UTC")
	case s.zone != "":
		b.WriteString(" " + s.zone)
	}
	return b.String()
}

var weekdayNames = [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// formatWeekdays writes runs of three or more days as a..b, others with
// commas.
func formatWeekdays(b *strings.Builder, bitsSet uint8) {
	first := true
	for x := 0; x < 7; {
		if bitsSet&(1<<x) == 0 {
			x++
			continue
		}
		end := x
		for end+1 < 7 && bitsSet&(1<<(end+1)) != 0 {
			end++
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(weekdayNames[x])
		switch {
		case end >= x+2:
			b.WriteString("..")
			b.WriteString(weekdayNames[end])
		case end == x+1:
			b.WriteByte(',')
			b.WriteString(weekdayNames[end])
		}
		x = end + 1
	}
}

// formatChain writes one field as systemd does.
func formatChain(b *strings.Builder, width int, c []comp, usec bool) {
	d := 1
	if usec {
		d = usPerSec
	}
	if c == nil || usec && len(c) == 1 && c[0].start == 0 && c[0].repeat == usPerSec {
		b.WriteByte('*')
		return
	}
	pad := func(v int) {
		s := itoa(v)
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	frac := func(v int) {
		if v%d > 0 {
			s := itoa(v % d)
			b.WriteByte('.')
			for i := len(s); i < 6; i++ {
				b.WriteByte('0')
			}
			b.WriteString(s)
		}
	}
	for i, x := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		pad(x.start / d)
		frac(x.start)
		if x.stop > 0 {
			b.WriteString("..")
			pad(x.stop / d)
			frac(x.stop)
		}
		if x.repeat > 0 && !(x.stop > 0 && x.repeat == d) {
			b.WriteByte('/')
			b.WriteString(itoa(x.repeat / d))
			frac(x.repeat)
		}
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return string(buf[i:])
}
