package calendar

import "time"

// Transitions returns the instants in [from, to) at which loc's UTC offset
// changes (daylight saving, or a zone redefining its standard time), in
// order. Changes of the abbreviation alone are left out.
func Transitions(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	t := from
	for t.Before(to) {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		_, before := end.Add(-time.Second).In(loc).Zone()
		_, after := end.In(loc).Zone()
		if before != after {
			out = append(out, end)
		}
		t = end
	}
	return out
}
