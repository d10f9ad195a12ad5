package oncalendar

import (
	"errors"
	"time"
)

// Spec is a compiled calendar event. It is immutable and safe for
// concurrent use.
type Spec struct {
	expr string
	loc  *time.Location
}

// Parse compiles a calendar event; loc is the zone of an event without a
// zone suffix (nil means UTC).
func Parse(expr string, loc *time.Location) (*Spec, error) {
	return nil, errors.New("oncalendar: calendar events are not implemented yet")
}

// Next returns the first instant strictly after t the event matches, or
// the zero time if there is none.
func (s *Spec) Next(t time.Time) time.Time { return time.Time{} }

// String returns the event's normalized form.
func (s *Spec) String() string { return s.expr }
