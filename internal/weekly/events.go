package weekly

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// MinutesPerWeek is the number of minutes in a week; weekly minutes run from 0
// (Monday 00:00) to MinutesPerWeek-1 (Sunday 23:59).
const MinutesPerWeek = 7 * 24 * 60

const (
	eventSecondsPerDay  = 24 * 3600
	eventSecondsPerWeek = 7 * eventSecondsPerDay
	// eventEpochMonday is 1969-12-29, the Monday before the Unix epoch (a
	// Thursday), in seconds; weeks of wall time are counted from it.
	eventEpochMonday = -3 * eventSecondsPerDay
)

// eventDays lists the day abbreviations in week order, Monday first.
var eventDays = [7]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// Events is a parsed weekly event schedule such as "mon0900_tue0900_1700": a
// set of wall-clock times in the week, read in one time zone. It is immutable
// and safe for concurrent use.
type Events struct {
	loc     *time.Location
	minutes []int32 // sorted, distinct minutes since Monday 00:00
}

// EventParseError reports where an event schedule is malformed. Offset is the
// 1-based byte position of Token in the input.
type EventParseError struct {
	Input  string
	Token  string
	Offset int
	Msg    string
}

func (e *EventParseError) Error() string {
	if e.Token == "" && e.Offset == 0 {
		return "weekly: " + e.Msg
	}
	return fmt.Sprintf("weekly: %q at offset %d: %s", e.Token, e.Offset, e.Msg)
}

// ParseEvents parses the weekly event syntax: underscore-separated events, each
// a lower-case three-letter day (mon tue wed thu fri sat sun) followed by a
// four-digit 24-hour time HHMM, where a bare HHMM is another event on the day
// named before it. A nil loc means UTC. Errors are *EventParseError values
// naming the offending token and its position.
func ParseEvents(s string, loc *time.Location) (*Events, error) {
	if loc == nil {
		loc = time.UTC
	}
	if s == "" {
		return nil, &EventParseError{Input: s, Msg: "empty schedule"}
	}
	ev := &Events{loc: loc}
	seen := make(map[int32]bool)
	day := -1
	pos := 0
	for pos <= len(s) {
		end := strings.IndexByte(s[pos:], '_')
		if end < 0 {
			end = len(s)
		} else {
			end += pos
		}
		tok := s[pos:end]
		fail := func(format string, a ...any) error {
			return &EventParseError{Input: s, Token: tok, Offset: pos + 1, Msg: fmt.Sprintf(format, a...)}
		}
		d, minute, err := eventParseToken(tok, day)
		if err != "" {
			return nil, fail("%s", err)
		}
		day = d
		m := int32(d*24*60 + minute)
		if seen[m] {
			return nil, fail("duplicate event %s %02d:%02d", eventDays[d], minute/60, minute%60)
		}
		seen[m] = true
		ev.minutes = append(ev.minutes, m)
		pos = end + 1
	}
	slices.Sort(ev.minutes)
	return ev, nil
}

// eventParseToken parses one event token given the day of the previous event
// (-1 for none). It returns the day index (Monday = 0), the minute of the day,
// or a message saying what is wrong.
func eventParseToken(tok string, prevDay int) (day, minute int, msg string) {
	if tok == "" {
		return 0, 0, "empty event (stray underscore)"
	}
	digits := tok
	day = prevDay
	if c := tok[0]; c < '0' || c > '9' {
		n := 0
		for n < len(tok) && (tok[n] < '0' || tok[n] > '9') {
			n++
		}
		name := tok[:n]
		day = eventDayIndex(name)
		if day < 0 {
			if d := eventDayIndex(strings.ToLower(name)); d >= 0 {
				return 0, 0, fmt.Sprintf("day %q must be lower case (%s)", name, eventDays[d])
			}
			return 0, 0, fmt.Sprintf("unknown day %q (want mon, tue, wed, thu, fri, sat or sun)", name)
		}
		digits = tok[n:]
	} else if prevDay < 0 {
		return 0, 0, "a time without a day must follow an event (write e.g. mon" + eventClip(tok, 4) + ")"
	}
	if digits == "" {
		return 0, 0, "missing time HHMM after the day"
	}
	n := 0
	for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
		n++
	}
	if n > 4 {
		return 0, 0, "time must be four digits HHMM"
	}
	if n == 4 && len(digits) > 4 && eventDayIndex(strings.ToLower(eventClip(digits[4:], 3))) >= 0 {
		return 0, 0, fmt.Sprintf("missing underscore after %q", tok[:len(tok)-len(digits)+4])
	}
	if n < len(digits) {
		return 0, 0, fmt.Sprintf("unexpected character %q in time", digits[n:n+1])
	}
	if n != 4 {
		return 0, 0, "time must be four digits HHMM"
	}
	h := int(digits[0]-'0')*10 + int(digits[1]-'0')
	mi := int(digits[2]-'0')*10 + int(digits[3]-'0')
	if h > 23 {
		return 0, 0, fmt.Sprintf("hour %d out of range", h)
	}
	if mi > 59 {
		return 0, 0, fmt.Sprintf("minute %d out of range", mi)
	}
	return day, h*60 + mi, ""
}

func eventDayIndex(name string) int {
	for i, d := range eventDays {
		if d == name {
			return i
		}
	}
	return -1
}

func eventClip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// LooksLikeEvents reports whether s is meant as weekly event syntax rather than
// a cron expression: a single word (no spaces, not an @macro) that starts with
// three letters followed by a digit, such as "mon0900_fri1700". It accepts
// malformed schedules too ("Mon0900", "tue2500") so their parse error, not a
// cron error, reaches the user.
func LooksLikeEvents(s string) bool {
	if len(s) < 4 || strings.ContainsAny(s, " \t\n\r") {
		return false
	}
	for i := 0; i < 3; i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s[3] >= '0' && s[3] <= '9'
}

// Location returns the zone the events are read in.
func (e *Events) Location() *time.Location { return e.loc }

// Len returns the number of distinct events in a week.
func (e *Events) Len() int { return len(e.minutes) }

// Times returns the events as minutes since Monday 00:00 (0 to
// MinutesPerWeek-1), sorted and distinct, for drawing a week or comparing
// schedules.
func (e *Events) Times() []int {
	out := make([]int, len(e.minutes))
	for i, m := range e.minutes {
		out[i] = int(m)
	}
	return out
}

// String returns the canonical spelling: events in week order starting on
// Monday, later events of the same day written as bare times
// ("mon0900_1700_tue0900"). ParseEvents(e.String()) yields the same events.
func (e *Events) String() string {
	var b strings.Builder
	day := -1
	for i, m := range e.minutes {
		if i > 0 {
			b.WriteByte('_')
		}
		d := int(m) / (24 * 60)
		if d != day {
			b.WriteString(eventDays[d])
			day = d
		}
		mi := int(m) % (24 * 60)
		fmt.Fprintf(&b, "%02d%02d", mi/60, mi%60)
	}
	return b.String()
}

// EventString formats a minute of the week (0 = Monday 00:00) in the event
// syntax, such as "tue0800".
func EventString(weekMinute int) string {
	weekMinute = ((weekMinute % MinutesPerWeek) + MinutesPerWeek) % MinutesPerWeek
	mi := weekMinute % (24 * 60)
	return fmt.Sprintf("%s%02d%02d", eventDays[weekMinute/(24*60)], mi/60, mi%60)
}

// eventSafeMargin is how far an instant must be from both ends of its zone
// period for its wall time to be unambiguous (offset jumps are under 26 h);
// the same bound the calendar core's fast path uses.
const eventSafeMargin = 26 * 3600

// eventZoneCache remembers the zone period around the query instant so most
// candidate wall times convert to instants with arithmetic alone.
type eventZoneCache struct {
	off        int64
	start, end int64 // period bounds in Unix seconds; math.MinInt64/MaxInt64 when open
}

// eventCacheFor reads t's zone period and returns t's wall time.
func (e *Events) eventCacheFor(t time.Time) (eventZoneCache, int64) {
	if e.loc == time.UTC {
		return eventZoneCache{start: -1 << 63, end: 1<<63 - 1}, t.Unix()
	}
	tl := t.In(e.loc)
	_, off := tl.Zone()
	zs, ze := tl.ZoneBounds()
	c := eventZoneCache{off: int64(off), start: -1 << 63, end: 1<<63 - 1}
	if !zs.IsZero() {
		c.start = zs.Unix()
	}
	if !ze.IsZero() {
		c.end = ze.Unix()
	}
	return c, t.Unix() + int64(off)
}

// eventInstant maps the wall time w (seconds, civil time read as UTC) to the
// instant the event fires: the first instant after a spring-forward gap, the
// first occurrence of a repeated wall time.
func (e *Events) eventInstant(c *eventZoneCache, w int64) time.Time {
	if u := w - c.off; u-c.start >= eventSafeMargin && c.end-u > eventSafeMargin {
		return time.Unix(u, 0).In(e.loc)
	}
	first, _, _ := calendar.ResolveWall(e.loc, w).Instants(calendar.GapRun, calendar.RepeatOnce)
	return first
}

// eventWeekStart splits the wall time w into the wall time of its week's
// Monday 00:00 and the index of the first event later than w in that week
// (len(minutes) when none is).
func (e *Events) eventWeekStart(w int64) (weekStart int64, idx int) {
	off := (w - eventEpochMonday) % eventSecondsPerWeek
	if off < 0 {
		off += eventSecondsPerWeek
	}
	weekStart = w - off
	// First event whose wall second is > off: minute*60 > off.
	target := int32(off / 60) // events at minutes <= target are not later than w
	lo, hi := 0, len(e.minutes)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if e.minutes[mid] <= target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return weekStart, lo
}

// Next returns the first instant strictly after t at which an event fires, in
// the schedule's zone. A wall time skipped by a spring-forward transition
// fires at the first instant after the gap; a wall time that a fall-back
// transition repeats fires once, at its first occurrence. Next is pure.
func (e *Events) Next(t time.Time) time.Time {
	if len(e.minutes) == 0 {
		return time.Time{}
	}
	c, w := e.eventCacheFor(t)
	weekStart, i := e.eventWeekStart(w)
	// Instants are non-decreasing in wall time, so the first event after
	// wall(t) whose instant is after t is the answer; only inside a repeated
	// hour does a later wall time map to an instant not after t.
	for {
		if i == len(e.minutes) {
			i = 0
			weekStart += eventSecondsPerWeek
		}
		at := e.eventInstant(&c, weekStart+int64(e.minutes[i])*60)
		if at.After(t) {
			return at
		}
		i++
	}
}

// Prev returns the last instant strictly before t at which an event fired,
// with the same DST rules as Next.
func (e *Events) Prev(t time.Time) time.Time {
	if len(e.minutes) == 0 {
		return time.Time{}
	}
	c, w := e.eventCacheFor(t)
	weekStart, i := e.eventWeekStart(w)
	// Events with wall time after wall(t) may still fire before t when t is the
	// second pass through a repeated hour: look forward first.
	var best time.Time
	fws, fi := weekStart, i
	for {
		if fi == len(e.minutes) {
			fi = 0
			fws += eventSecondsPerWeek
		}
		at := e.eventInstant(&c, fws+int64(e.minutes[fi])*60)
		if !at.Before(t) {
			break
		}
		best = at
		fi++
	}
	if !best.IsZero() {
		return best
	}
	for {
		i--
		if i < 0 {
			i = len(e.minutes) - 1
			weekStart -= eventSecondsPerWeek
		}
		at := e.eventInstant(&c, weekStart+int64(e.minutes[i])*60)
		if at.Before(t) {
			return at
		}
	}
}
