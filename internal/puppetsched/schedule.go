package puppetsched

import (
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// Period is the value of the period attribute.
type Period uint8

// The periods. PeriodNone means the attribute is not set.
const (
	PeriodNone Period = iota
	Hourly
	Daily
	Weekly
	Monthly
	Never
)

var periodNames = []string{"hourly", "daily", "weekly", "monthly", "never"}

func (p Period) String() string {
	if p == PeriodNone {
		return ""
	}
	return periodNames[p-1]
}

// scale is the length of a period under periodmatch `distance`, in seconds.
// A month is 30 days.
func (p Period) scale() int64 {
	switch p {
	case Hourly:
		return 3600
	case Daily:
		return 86_400
	case Weekly:
		return 604_800
	case Monthly:
		return 2_592_000
	}
	return 0
}

// Schedule is a validated schedule resource. It is immutable and safe for
// concurrent use.
type Schedule struct {
	name string
	loc  *time.Location

	hasRange bool
	spans    []span // ranges that can be evaluated, in order
	// rangeErr is the error raised once evaluation reaches a range Ruby cannot
	// build (or the empty range list); "" if every range is fine.
	rangeErr string

	period    Period
	number    bool  // periodmatch is `number`
	repeat    int64 // saturated; 0 makes distance matching divide by zero
	threshold int64 // floor(scale/repeat) seconds, for distance

	hasDays bool
	days    uint8 // bit set of time.Weekday

	windows Window
}

// Option configures [New].
type Option func(*options)

type options struct {
	loc     *time.Location
	windows WindowFunc
}

// WithDefaultLocation sets the zone used when the schedule has no time_zone
// attribute (Puppet uses the agent's local zone). The default is UTC.
func WithDefaultLocation(loc *time.Location) Option {
	return func(o *options) {
		if loc != nil {
			o.loc = loc
		}
	}
}

// WithWindows sets the function that turns the windows attribute into a
// weekly calendar. The default is [WeeklyWindows].
func WithWindows(f WindowFunc) Option {
	return func(o *options) { o.windows = f }
}

// New validates p and returns the schedule called name. Attributes are
// checked in Puppet's order (range, periodmatch, period, repeat, weekday),
// then time_zone and windows; the first invalid one is returned as an
// *AttrError carrying Puppet's message.
func New(name string, p Params, opts ...Option) (*Schedule, error) {
	o := options{loc: time.UTC, windows: WeeklyWindows}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Schedule{name: name, loc: o.loc, repeat: 1}
	fail := func(attr, msg string) (*Schedule, error) {
		return nil, &AttrError{Schedule: name, Attr: attr, Msg: msg}
	}

	if p.Range != nil {
		spans, msg := parseRange(p.Range)
		if msg != "" {
			return fail("range", msg)
		}
		s.hasRange = true
		for _, sp := range spans {
			if e := sp.err(); e != "" {
				s.rangeErr = e
				break
			}
			s.spans = append(s.spans, sp)
		}
		if len(spans) == 0 {
			s.rangeErr = "undefined method `[]' for nil:NilClass"
		}
	}
	if p.PeriodMatch != nil {
		v, msg := parseEnum(p.PeriodMatch, []string{"number", "distance"})
		if msg != "" {
			return fail("periodmatch", msg)
		}
		s.number = v == "number"
	}
	if p.Period != nil {
		v, msg := parseEnum(p.Period, periodNames)
		if msg != "" {
			return fail("period", msg)
		}
		for i, n := range periodNames {
			if n == v {
				s.period = Period(i + 1)
			}
		}
	}
	if p.Repeat != nil {
		r, msg := parseRepeat(p.Repeat, s.number)
		if msg != "" {
			return fail("repeat", msg)
		}
		s.repeat = r.v
	}
	if s.repeat != 0 {
		s.threshold = floorDiv(s.period.scale(), s.repeat)
	}
	if p.Weekday != nil {
		days, msg := parseWeekday(p.Weekday)
		if msg != "" {
			return fail("weekday", msg)
		}
		s.hasDays, s.days = true, days
	}
	if p.TimeZone != nil {
		zs, ok := p.TimeZone.(string)
		if !ok {
			return fail("time_zone", fmt.Sprintf("Invalid time zone %s: expected a String", rubyInspect(p.TimeZone)))
		}
		loc, err := calendar.LoadZone(zs)
		if err != nil {
			return fail("time_zone", err.Error())
		}
		s.loc = loc
	}
	if p.Windows != nil {
		specs, msg := parseWindows(p.Windows)
		if msg != "" {
			return fail("windows", msg)
		}
		if o.windows == nil {
			return fail("windows", "weekly windows are not available to this schedule")
		}
		w, err := o.windows(specs, s.loc)
		if err != nil {
			return fail("windows", err.Error())
		}
		s.windows = w
	}
	return s, nil
}

// Builtin returns one of the schedules Puppet creates on its own: puppet
// (hourly, repeat 2, i.e. every 30 minutes), hourly, daily, weekly, monthly
// and never, all matched by distance.
func Builtin(name string) (*Schedule, bool) {
	p := Params{Period: name}
	switch name {
	case "puppet":
		p = Params{Period: "hourly", Repeat: int64(2)}
	case "hourly", "daily", "weekly", "monthly", "never":
	default:
		return nil, false
	}
	s, err := New(name, p)
	if err != nil {
		panic("puppetsched: built-in schedule " + name + ": " + err.Error())
	}
	return s, true
}

// BuiltinNames lists the names [Builtin] knows, in Puppet's order.
func BuiltinNames() []string {
	return []string{"puppet", "hourly", "daily", "weekly", "monthly", "never"}
}

// Name returns the schedule's name.
func (s *Schedule) Name() string { return s.name }

// Location returns the zone in which the schedule reads wall-clock time.
func (s *Schedule) Location() *time.Location { return s.loc }

// Period returns the period attribute (PeriodNone if unset).
func (s *Schedule) Period() Period { return s.period }

// MatchError is a failure Puppet raises while matching rather than while
// validating, such as `repeat => 0` with a period ("divided by 0") or a range
// with seconds above 60 ("argument out of range"). Puppet aborts the whole
// run with "Failed to apply catalog: <Msg>".
type MatchError struct {
	Schedule string
	Msg      string
}

func (e *MatchError) Error() string {
	return fmt.Sprintf("schedule %s: %s", e.Schedule, e.Msg)
}

// Match reports whether a resource last checked at lastChecked may be applied
// at now. A zero lastChecked means never checked, which Puppet reads as the
// Unix epoch; lastChecked is used to the whole second, as Puppet's state file
// hands it over. A schedule that fails while matching (see [Schedule.Eval])
// does not match.
func (s *Schedule) Match(lastChecked, now time.Time) bool {
	ok, _ := s.Eval(lastChecked, now)
	return ok
}

// Eval is [Schedule.Match] that also returns the *MatchError Puppet would
// raise while matching. The checks run in Puppet's order (range, period,
// weekday, then windows) and stop at the first that fails, so an error
// surfaces only when Puppet would reach it.
func (s *Schedule) Eval(lastChecked, now time.Time) (bool, error) {
	var z zview
	if s.hasRange || s.hasDays {
		z = newZView(now, s.loc)
	}
	if s.hasRange {
		ok, msg := s.rangeMatch(&z, now)
		if msg != "" {
			return false, &MatchError{Schedule: s.name, Msg: msg}
		}
		if !ok {
			return false, nil
		}
	}
	if s.period != PeriodNone {
		ok, msg := s.periodMatch(lastChecked, now)
		if msg != "" {
			return false, &MatchError{Schedule: s.name, Msg: msg}
		}
		if !ok {
			return false, nil
		}
	}
	if s.hasDays && !s.hasRange && s.days&(1<<uint(weekdayOf(z.day()))) == 0 {
		return false, nil
	}
	if s.windows != nil && !s.windows.Contains(now) {
		return false, nil
	}
	return true, nil
}

func (s *Schedule) dayOK(d time.Weekday) bool {
	return !s.hasDays || s.days&(1<<uint(d)) != 0
}

// rangeMatch is Puppet's range check: any range matches, each with inclusive
// ends; a range whose start is not before its end spans midnight, and then the
// weekday checked is the day its window started.
func (s *Schedule) rangeMatch(z *zview, now time.Time) (bool, string) {
	ns, nn := now.Unix(), int64(now.Nanosecond())
	today := z.day()
	for i := range s.spans {
		sp := &s.spans[i]
		ss, sn := z.local(today, sp.start.ns)
		es, en := z.local(today, sp.end.ns)
		if ss < es || (ss == es && sn < en) {
			if between(ns, nn, ss, sn, es, en) && s.dayOK(weekdayOf(today)) {
				return true, ""
			}
			continue
		}
		ts, tn := z.local(today+1, sp.end.ns)
		if between(ns, nn, ss, sn, ts, tn) {
			if s.dayOK(weekdayOf(today)) {
				return true, ""
			}
			continue
		}
		ys, yn := z.local(today-1, sp.start.ns)
		if between(ns, nn, ys, yn, es, en) && s.dayOK(weekdayOf(today-1)) {
			return true, ""
		}
	}
	return false, s.rangeErr
}

// prevTime is the lastChecked Puppet would use: the epoch when never
// checked, whole seconds otherwise.
func prevTime(lastChecked time.Time) time.Time {
	if lastChecked.IsZero() {
		return time.Unix(0, 0)
	}
	return time.Unix(lastChecked.Unix(), 0)
}

// periodMatch is Puppet's period check.
func (s *Schedule) periodMatch(lastChecked, now time.Time) (bool, string) {
	if s.period == Never {
		return false, ""
	}
	prev := prevTime(lastChecked)
	if !s.number {
		if s.repeat == 0 {
			return false, "divided by 0"
		}
		return now.Unix()-prev.Unix() >= s.threshold, ""
	}
	p, n := prev.In(s.loc), now.In(s.loc)
	switch s.period {
	case Hourly:
		return n.Hour() != p.Hour(), ""
	case Daily:
		return n.Day() != p.Day(), ""
	case Monthly:
		return n.Month() != p.Month(), ""
	}
	return p.Weekday() > n.Weekday() || now.Sub(prev) > 7*24*time.Hour, ""
}
