package puppetsched

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// Ruby's \s is [ \t\n\v\f\r]; Go's lacks \v, so the class is spelled out.
const rubySpace = `[ \t\n\v\f\r]`

var (
	// rangeRE is Puppet's range validation pattern. It is not anchored, so
	// any string containing something range-like passes.
	rangeRE = regexp.MustCompile(`[0-9]+(:[0-9]+){0,2}` + rubySpace + `*-` + rubySpace + `*[0-9]+(:[0-9]+){0,2}`)
	// rangeSplitRE splits a range into its two ends.
	rangeSplitRE = regexp.MustCompile(rubySpace + `*-` + rubySpace + `*`)
	// dayNameRE is Puppet's weekday name pattern, which also admits
	// spellings such as "Tueday", "Wednes" and "Satur".
	dayNameRE = regexp.MustCompile(`(?i)^(Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(day)?$`)
)

// weekdayIndex maps the first three letters of a day name to time.Weekday.
var weekdayIndex = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// clockTime is one end of a range: a time of day as Puppet hands it to Ruby's
// Time.local, which is where invalid seconds finally fail.
type clockTime struct {
	ns  int64  // wall-clock nanoseconds after midnight; second 60 rolls over
	err string // the error Time.local raises for these fields, "" if none
}

// span is one element of the range attribute.
type span struct {
	start, end clockTime
}

// err returns the error Ruby raises when this range is evaluated: the start
// is built before the end.
func (s span) err() string {
	if s.start.err != "" {
		return s.start.err
	}
	return s.end.err
}

// wrapArray returns v as a list: Arrays as they are, anything else as a list
// of one, as Puppet's `values = [values] unless values.is_a?(Array)` does.
func wrapArray(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return []any{v}
}

// parseRange validates and interprets the range attribute. The returned
// message is Puppet's.
func parseRange(v any) ([]span, string) {
	values := wrapArray(v)
	for _, e := range values {
		s, ok := e.(string)
		if !ok || !rangeRE.MatchString(s) {
			return nil, fmt.Sprintf("Invalid range value '%s'", rubyToS(e))
		}
	}
	munge := func(msg string) string {
		return fmt.Sprintf("Munging failed for value %s in class range: %s", rubyInspect(v), msg)
	}
	spans := make([]span, 0, len(values))
	for _, e := range values {
		s := e.(string)
		sides := dropTrailingEmpty(rangeSplitRE.Split(s, -1))
		if len(sides) != 2 {
			return nil, fmt.Sprintf("Invalid range %s", s)
		}
		var fields [2][]bigint
		for i, side := range sides {
			for _, f := range dropTrailingEmpty(strings.Split(side, ":")) {
				fields[i] = append(fields[i], rubyToI(f))
			}
			for len(fields[i]) < 3 {
				fields[i] = append(fields[i], bigint{dec: "0"})
			}
		}
		for _, f := range fields {
			if h := f[0]; h.big || h.v < 0 || h.v > 23 {
				return nil, munge(fmt.Sprintf("Invalid hour '%s'", h))
			}
		}
		for _, f := range fields {
			if m := f[1]; m.big || m.v < 0 || m.v > 59 {
				return nil, munge(fmt.Sprintf("Invalid minute '%s'", m))
			}
		}
		spans = append(spans, span{start: makeClockTime(fields[0]), end: makeClockTime(fields[1])})
	}
	return spans, ""
}

// makeClockTime builds the time of day Ruby's Time.local(y, m, d, *f) would,
// recording the error it would raise instead. f has at least three fields,
// with valid hour and minute. A fourth field is microseconds; a fifth is
// ignored; six or more change Time.local's calling convention or arity.
func makeClockTime(f []bigint) clockTime {
	n := len(f)
	switch {
	case n == 6 || n >= 8:
		return clockTime{err: fmt.Sprintf("wrong number of arguments (given %d, expected 1..8)", n+3)}
	case n == 7:
		// Ten arguments select Time.local(sec, min, hour, day, month,
		// year, ...), so the year lands in the seconds.
		return clockTime{err: "argument out of range"}
	}
	sec := f[2]
	switch {
	case sec.big:
		return clockTime{err: "bignum too big to convert into `long'"}
	case sec.v > math.MaxInt32:
		return clockTime{err: fmt.Sprintf("integer %d too big to convert to `int'", sec.v)}
	case sec.v >= 64:
		return clockTime{err: "argument out of range"}
	case sec.v > 60:
		return clockTime{err: "sec out of range"}
	}
	var usec int64
	if n == 4 {
		if u := f[3]; u.big || u.v >= 1_000_000 {
			return clockTime{err: "subsecx out of range"}
		}
		usec = f[3].v
	}
	ns := (f[0].v*3600+f[1].v*60+sec.v)*int64(time.Second) + usec*int64(time.Microsecond)
	return clockTime{ns: ns}
}

// parseWeekday validates and interprets the weekday attribute as a bit set of
// time.Weekday values. A name that validates but does not map to a day (it
// can happen with multi-line strings) adds nothing, as in Puppet.
func parseWeekday(v any) (uint8, string) {
	values := wrapArray(v)
	for _, e := range values {
		if n, ok := asInt(e); ok && n >= 0 && n <= 6 {
			continue
		}
		if s, ok := e.(string); ok && (anyLine(s, isDigit06) || anyLine(s, dayNameRE.MatchString)) {
			continue
		}
		return 0, fmt.Sprintf("%s is not a valid day of the week", rubyToS(e))
	}
	var days uint8
	for _, e := range values {
		if n, ok := asInt(e); ok {
			days |= 1 << uint(n)
			continue
		}
		s := e.(string)
		if anyLine(s, isDigit06) {
			// String#to_i of the whole value, e.g. "x\n1" is 0.
			if n := rubyToI(s); !n.big && n.v >= 0 && n.v <= 6 {
				days |= 1 << uint(n.v)
			}
			continue
		}
		r := []rune(s)
		if len(r) > 3 {
			r = r[:3]
		}
		if d, ok := weekdayIndex[strings.ToLower(string(r))]; ok {
			days |= 1 << uint(d)
		}
	}
	return days, ""
}

func isDigit06(s string) bool { return len(s) == 1 && s[0] >= '0' && s[0] <= '6' }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseRepeat validates and interprets the repeat attribute. number says
// whether periodmatch is `number`, under which Puppet requires the Integer 1
// (the String "1" does not do: the check runs before the value is munged).
func parseRepeat(v any, number bool) (bigint, string) {
	n, isInt := asInt(v)
	s, isStr := v.(string)
	if !isInt && !(isStr && anyLine(s, isDigits)) {
		return bigint{}, "Repeat must be a number"
	}
	if number && !(isInt && n == 1) {
		return bigint{}, "Repeat must be 1 unless periodmatch is 'distance', not 'number'"
	}
	if isInt {
		return bigint{v: n}, ""
	}
	r, ok := rubyInteger(s)
	if !ok {
		return bigint{}, fmt.Sprintf("Munging failed for value %s in class repeat: invalid value for Integer(): %s", inspectString(s), inspectString(s))
	}
	return r, ""
}

// parseEnum validates a parameter with a fixed set of values, as Puppet's
// value collections do: the value is compared as a symbol (case matters) and
// the message lists the valid values.
func parseEnum(v any, valid []string) (string, string) {
	var key string
	switch x := v.(type) {
	case string:
		key = x
	case bool:
		key = fmt.Sprint(x)
	default:
		key = rubyToS(v)
	}
	for _, ok := range valid {
		if key == ok {
			return key, ""
		}
	}
	return "", fmt.Sprintf("Invalid value %s. Valid values are %s.", rubyInspect(v), strings.Join(valid, ", "))
}
