package job

import (
	"time"

	"github.com/almanac-sh/almanac/internal/oncalendar"
)

// parseCalendar compiles one systemd calendar event in loc (the zone of an
// event without its own zone suffix).
func parseCalendar(expr string, loc *time.Location) (*oncalendar.Spec, error) {
	return oncalendar.Parse(expr, loc)
}

// parseCalendars compiles a job's on_calendar events into one schedule
// firing at the union of their instants.
func parseCalendars(exprs []string, loc *time.Location) (Schedule, error) {
	u := make(calendarUnion, len(exprs))
	for i, e := range exprs {
		s, err := parseCalendar(e, loc)
		if err != nil {
			return nil, err
		}
		u[i] = s
	}
	if len(u) == 1 {
		return u[0], nil
	}
	return u, nil
}

// calendarUnion fires at every instant of any of its events.
type calendarUnion []*oncalendar.Spec

// Next implements Schedule: the earliest next instant among the events.
func (u calendarUnion) Next(t time.Time) time.Time {
	var best time.Time
	for _, s := range u {
		if n := s.Next(t); !n.IsZero() && (best.IsZero() || n.Before(best)) {
			best = n
		}
	}
	return best
}
