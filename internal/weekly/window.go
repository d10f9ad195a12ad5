package weekly

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// winMinutesPerDay and winMinutesPerWeek size the weekly minute grid: minute 0
// is Monday 00:00, minute winMinutesPerWeek-1 is Sunday 23:59.
const (
	winMinutesPerDay  = 24 * 60
	winMinutesPerWeek = 7 * winMinutesPerDay
)

// MaxWindowLength is the longest window in minutes: a whole week. Longer
// windows are rejected, as Zincati rejects them, since they would only say
// "always" in a roundabout way.
const MaxWindowLength = winMinutesPerWeek

// Window is one recurring weekly window: on each of Days, starting Start
// minutes after midnight (wall clock) and lasting Length minutes. A window may
// run past midnight and past the end of the week; it covers the half-open span
// [start, start+Length).
type Window struct {
	Days   []time.Weekday // distinct, in week order starting on Monday
	Start  int            // minutes after midnight, 0 to 1439
	Length int            // minutes, 1 to MaxWindowLength
}

// FieldError reports a bad value in one field of a window. Its message names
// the field as configuration files spell it ("days", "start_time",
// "length_minutes"), the offending value and what is wrong with it, as in
// `start_time "25:00": hour out of range`.
type FieldError struct {
	Field  string // "days", "start_time" or "length_minutes"
	Index  int    // for "days", the position of the bad entry; otherwise -1
	Value  string // the value as written in TOML (strings quoted); may be empty
	Reason string // what is wrong
}

func (e *FieldError) Error() string {
	field := e.Field
	if e.Index >= 0 {
		field = fmt.Sprintf("%s[%d]", e.Field, e.Index)
	}
	if e.Value == "" {
		return field + ": " + e.Reason
	}
	return field + " " + e.Value + ": " + e.Reason
}

// winDayNames maps every accepted day spelling (lower case) to its weekday.
var winDayNames = map[string]time.Weekday{
	"mon": time.Monday, "monday": time.Monday,
	"tue": time.Tuesday, "tuesday": time.Tuesday,
	"wed": time.Wednesday, "wednesday": time.Wednesday,
	"thu": time.Thursday, "thursday": time.Thursday,
	"fri": time.Friday, "friday": time.Friday,
	"sat": time.Saturday, "saturday": time.Saturday,
	"sun": time.Sunday, "sunday": time.Sunday,
}

// ParseDay reads an English weekday name, full ("Saturday") or abbreviated to
// its first three letters ("Sat"), in any letter case.
func ParseDay(s string) (time.Weekday, bool) {
	d, ok := winDayNames[strings.ToLower(s)]
	return d, ok
}

// ParseWindow builds a window from the three fields of a Zincati
// `[[updates.periodic.window]]` entry: days (full or three-letter English
// names, any case; repeats are ignored), startTime ("HH:MM", 24-hour clock;
// a one-digit hour or minute such as "7:05" is accepted, as Zincati does) and
// lengthMinutes (1 to MaxWindowLength). Errors are *FieldError values naming
// the field.
func ParseWindow(days []string, startTime string, lengthMinutes int64) (Window, error) {
	var w Window
	if len(days) == 0 {
		return w, &FieldError{Field: "days", Index: -1, Reason: "at least one day is required"}
	}
	var seen [7]bool
	for i, s := range days {
		d, ok := ParseDay(s)
		if !ok {
			return Window{}, &FieldError{Field: "days", Index: i, Value: strconv.Quote(s),
				Reason: "unknown day (want Mon..Sun or Monday..Sunday)"}
		}
		seen[d] = true
	}
	for i := range 7 {
		d := time.Weekday((i + 1) % 7) // Monday first
		if seen[d] {
			w.Days = append(w.Days, d)
		}
	}
	start, reason := winParseClock(startTime)
	if reason != "" {
		return Window{}, &FieldError{Field: "start_time", Index: -1, Value: strconv.Quote(startTime), Reason: reason}
	}
	w.Start = start
	switch {
	case lengthMinutes < 1:
		return Window{}, &FieldError{Field: "length_minutes", Index: -1,
			Value: strconv.FormatInt(lengthMinutes, 10), Reason: "must be at least 1"}
	case lengthMinutes > MaxWindowLength:
		return Window{}, &FieldError{Field: "length_minutes", Index: -1,
			Value:  strconv.FormatInt(lengthMinutes, 10),
			Reason: fmt.Sprintf("longer than a week (%d minutes)", MaxWindowLength)}
	}
	w.Length = int(lengthMinutes)
	return w, nil
}

// winParseClock reads "HH:MM" (one or two digits each) and returns minutes
// after midnight, or a reason it is invalid.
func winParseClock(s string) (int, string) {
	hs, ms, ok := strings.Cut(s, ":")
	if !ok {
		return 0, "want HH:MM"
	}
	h, okH := winDigits(hs)
	m, okM := winDigits(ms)
	switch {
	case !okH || !okM:
		return 0, "want HH:MM"
	case h > 23:
		return 0, "hour out of range"
	case m > 59:
		return 0, "minute out of range"
	}
	return h*60 + m, ""
}

// winDigits parses one or two ASCII digits.
func winDigits(s string) (int, bool) {
	if len(s) < 1 || len(s) > 2 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// String formats the window in the fields' own terms, such as
// "Sat,Sun 23:30 +60m".
func (w Window) String() string {
	var b strings.Builder
	for i, d := range w.Days {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.String()[:3])
	}
	fmt.Fprintf(&b, " %02d:%02d +%dm", w.Start/60, w.Start%60, w.Length)
	return b.String()
}
