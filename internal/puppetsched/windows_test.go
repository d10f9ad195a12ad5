package puppetsched

import (
	"fmt"
	"strings"
	"time"
)

// minuteWindows is a deliberately naive weekly calendar for tests: a set of
// wall-clock minutes of the week in a zone. It stands in for the weekly
// package behind the Window interface.
type minuteWindows struct {
	loc  *time.Location
	open [7 * 24 * 60]bool // minute of the week, Sunday 00:00 first
}

func testWindows(specs []WindowSpec, loc *time.Location) (Window, error) {
	w := &minuteWindows{loc: loc}
	for i, s := range specs {
		var h, m int
		if _, err := fmt.Sscanf(s.StartTime, "%d:%d", &h, &m); err != nil || h > 23 || m > 59 {
			return nil, fmt.Errorf("window %d: bad start_time %q", i+1, s.StartTime)
		}
		for _, d := range s.Days {
			wd, ok := weekdayIndex[strings.ToLower(d)[:min(3, len(d))]]
			if !ok {
				return nil, fmt.Errorf("window %d: unknown day %q", i+1, d)
			}
			start := int(wd)*1440 + h*60 + m
			for k := 0; k < int(s.LengthMinutes); k++ {
				w.open[(start+k)%len(w.open)] = true
			}
		}
	}
	return w, nil
}

func (w *minuteWindows) Contains(t time.Time) bool {
	tl := t.In(w.loc)
	return w.open[int(tl.Weekday())*1440+tl.Hour()*60+tl.Minute()]
}

func (w *minuteWindows) NextOpen(t time.Time) (time.Time, bool) {
	if w.Contains(t) {
		return t, true
	}
	c := t.Truncate(time.Minute)
	for i := 0; i < 8*1440+120; i++ {
		c = c.Add(time.Minute)
		if w.Contains(c) {
			return c, true
		}
	}
	return time.Time{}, false
}
