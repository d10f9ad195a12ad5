package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// timespanUnits are systemd.time(7)'s time span units.
var timespanUnits = map[string]time.Duration{
	"usec": time.Microsecond, "us": time.Microsecond, "µs": time.Microsecond,
	"msec": time.Millisecond, "ms": time.Millisecond,
	"seconds": time.Second, "second": time.Second, "sec": time.Second, "s": time.Second, "": time.Second,
	"minutes": time.Minute, "minute": time.Minute, "min": time.Minute, "m": time.Minute,
	"hours": time.Hour, "hour": time.Hour, "hr": time.Hour, "h": time.Hour,
	"days": 24 * time.Hour, "day": 24 * time.Hour, "d": 24 * time.Hour,
	"weeks": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "w": 7 * 24 * time.Hour,
	"months": 2629800 * time.Second, "month": 2629800 * time.Second, "M": 2629800 * time.Second,
	"years": 31557600 * time.Second, "year": 31557600 * time.Second, "y": 31557600 * time.Second,
}

// parseTimespan reads a systemd time span: numbers (fractions allowed)
// each followed by a unit, with or without spaces ("1h 30min", "90",
// "1.5h", "2min30s"); a bare number is seconds. infinity is reported as
// ok=false with no error.
func parseTimespan(s string) (d time.Duration, ok bool, err error) {
	s = strings.TrimSpace(s)
	if s == "infinity" {
		return 0, false, nil
	}
	if s == "" {
		return 0, false, fmt.Errorf("empty time span")
	}
	var total float64
	rest := s
	for rest != "" {
		rest = strings.TrimLeft(rest, " \t")
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, false, fmt.Errorf("time span %q: expected a number at %q", s, rest)
		}
		n, perr := strconv.ParseFloat(rest[:i], 64)
		if perr != nil {
			return 0, false, fmt.Errorf("time span %q: %q is not a number", s, rest[:i])
		}
		rest = strings.TrimLeft(rest[i:], " \t")
		j := 0
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.' || rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		unit, known := timespanUnits[rest[:j]]
		if !known {
			return 0, false, fmt.Errorf("time span %q: unknown unit %q", s, rest[:j])
		}
		rest = rest[j:]
		total += n * float64(unit)
		if total > math.MaxInt64/2 {
			return 0, false, fmt.Errorf("time span %q is too long", s)
		}
	}
	return time.Duration(total), true, nil
}

// wholeSeconds rounds d up to whole seconds.
func wholeSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}
