package job

import (
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/store"
)

// Schedule is what the controller needs from a compiled cron expression:
// the first fire strictly after t, or the zero time if there is none.
// *cron.Spec satisfies it.
type Schedule interface {
	Next(t time.Time) time.Time
}

// Counter counts fires in (from, to] without enumerating them. A Schedule
// that also implements Counter lets the controller count the instants
// missed during a long downtime in constant time; without it the
// controller enumerates with Next.
type Counter interface {
	Count(from, to time.Time) int64
}

// ParseFunc compiles the cron expression of the job named name in a zone.
// The daemon passes an adapter for cron.Parse with the zone and the name as
// the key that H fields hash, so every job gets its own spread. The name may
// change the result only for expressions containing H: the controller
// compiles an expression without H once per zone and shares the schedule
// among the jobs that use it.
type ParseFunc func(name, expr string, loc *time.Location) (Schedule, error)

// Gate is a schedule gate (a weekly window, a Puppet schedule): a run due
// while the gate is closed waits for it to open.
type Gate interface {
	// Contains reports whether the gate is open at t.
	Contains(t time.Time) bool
	// NextOpen returns the first instant at or after t when the gate is
	// open, and false if it never opens again.
	NextOpen(t time.Time) (time.Time, bool)
}

// GateFunc resolves a gate by the name a job's `schedule` attribute gives;
// false means no such gate (the run waits and is reported).
type GateFunc func(name string) (Gate, bool)

// compiled is a job spec with its schedule ready to evaluate.
type compiled struct {
	spec  store.JobSpec
	sched Schedule
	loc   *time.Location
	// delay is the job's randomized delay (RandomizedDelay): each fire
	// starts this long after its nominal instant.
	delay time.Duration
}

// compile validates spec and compiles its schedule.
func compile(spec store.JobSpec, parse ParseFunc) (*compiled, error) {
	if err := Validate(&spec, parse); err != nil {
		return nil, err
	}
	return compileValid(spec, parse)
}

// compileValid compiles the schedule of a spec Validate has accepted (and
// completed with its defaults).
func compileValid(spec store.JobSpec, parse ParseFunc) (*compiled, error) {
	loc := time.UTC
	if spec.TimeZone != "" {
		l, err := calendar.LoadZone(spec.TimeZone)
		if err != nil {
			return nil, err
		}
		loc = l
	}
	c := &compiled{spec: spec, loc: loc}
	if spec.At != nil {
		c.sched = atSchedule(spec.At.UTC())
		return c, nil
	}
	if spec.Manual {
		c.sched = manualSchedule{}
		return c, nil
	}
	s, err := compileSchedule(spec, parse, loc)
	if err != nil {
		return nil, err
	}
	c.sched = s
	c.delay = RandomizedDelay(spec)
	return c, nil
}

// atSchedule is a one-shot job's schedule: it fires once, at the instant.
type atSchedule time.Time

// Next implements Schedule.
func (a atSchedule) Next(t time.Time) time.Time {
	if t.Before(time.Time(a)) {
		return time.Time(a)
	}
	return time.Time{}
}

// Count implements Counter.
func (a atSchedule) Count(from, to time.Time) int64 {
	if at := time.Time(a); at.After(from) && !at.After(to) {
		return 1
	}
	return 0
}

// manualSchedule is a manual job's schedule: it never fires; runs come
// only from Trigger.
type manualSchedule struct{}

// Next implements Schedule.
func (manualSchedule) Next(time.Time) time.Time { return time.Time{} }

// Count implements Counter.
func (manualSchedule) Count(time.Time, time.Time) int64 { return 0 }

// deadline returns the spec's starting deadline and whether it has one.
func deadline(spec store.JobSpec) (time.Duration, bool) {
	if spec.StartingDeadlineSeconds == nil {
		return 0, false
	}
	return time.Duration(*spec.StartingDeadlineSeconds) * time.Second, true
}
