package puppetsched

import (
	"errors"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := calendar.LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func mustNew(t testing.TB, p Params, opts ...Option) *Schedule {
	t.Helper()
	s, err := New("s", p, opts...)
	if err != nil {
		t.Fatalf("New(%+v): %v", p, err)
	}
	return s
}

// at builds a wall-clock time in UTC.
func at(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// never is the zero lastChecked: never checked, i.e. the epoch.
var never time.Time

// TestMatchQuirks has a row per rule and quirk of Puppet's schedule type
// (reference: Puppet's schedule_spec.rb plus behaviour checked against a real
// Puppet 7.23). Times are UTC unless the row names a zone.
func TestMatchQuirks(t *testing.T) {
	may23 := func(h, mi, s int) time.Time { return at(2011, time.May, 23, h, mi, s) } // a Monday
	now := may23(11, 0, 0)
	tests := []struct {
		name string
		p    Params
		tz   string
		prev time.Time
		now  time.Time
		want bool
	}{
		// range: inclusive ends, H means H:00:00
		{"inside range", Params{Range: "10:59:50 - 11:00:10"}, "", never, now, true},
		{"before range", Params{Range: "11:00:05 - 11:00:10"}, "", never, now, false},
		{"after range", Params{Range: "10:59:50 - 10:59:55"}, "", never, now, false},
		{"array none", Params{Range: []any{"4-6", "20-23"}}, "", never, now, false},
		{"array first", Params{Range: []any{"9-11", "14-16"}}, "", never, now, true},
		{"array second", Params{Range: []any{"11:30 - 6", "11-12"}}, "", never, now, true},
		{"start inclusive hours", Params{Range: "11 - 12"}, "", never, now, true},
		{"end inclusive hours", Params{Range: "10 - 11"}, "", never, now, true},
		{"end inclusive minutes", Params{Range: "10:00 - 11:00"}, "", never, now, true},
		{"H is H:00:00, one second past", Params{Range: "10 - 11"}, "", never, may23(11, 0, 1), false},
		{"one nanosecond past the end", Params{Range: "10 - 11"}, "", never, now.Add(time.Nanosecond), false},
		{"just before start", Params{Range: "11 - 12"}, "", never, may23(10, 59, 59), false},
		{"0 - 23 misses 23:30", Params{Range: "0 - 23"}, "", never, may23(23, 30, 0), false},
		{"0 - 23 includes 23:00:00", Params{Range: "0 - 23"}, "", never, may23(23, 0, 0), true},
		{"start == end is 24 h", Params{Range: "5 - 5"}, "", never, may23(4, 0, 0), true},
		{"start == end is 24 h (2)", Params{Range: "05:00 - 5"}, "", never, may23(17, 0, 0), true},
		{"end minute is exact", Params{Range: "10:00 - 11:45"}, "", never, may23(11, 45, 59), false},
		// ranges across midnight, at a month's end
		{"cross midnight, day 1", Params{Range: "22:00:00 - 02:00:00"}, "", never, at(2011, time.March, 31, 22, 30, 0), true},
		{"cross midnight, outside", Params{Range: "23:30:00 - 21:00:00"}, "", never, at(2011, time.March, 31, 22, 30, 0), false},
		{"cross midnight, day 2", Params{Range: "22:00:00 - 02:00:00"}, "", never, at(2011, time.March, 31, 1, 30, 0), true},
		{"cross midnight, before start", Params{Range: "02:00:00 - 00:30:00"}, "", never, at(2011, time.March, 31, 1, 30, 0), false},
		{"cross midnight, after end", Params{Range: "22:00:00 - 01:00:00"}, "", never, at(2011, time.March, 31, 1, 30, 0), false},
		// weekday of a cross-midnight window is the day it started
		{"sat 23:00 in sat window", Params{Range: "22:00 - 04:00", Weekday: "Saturday"}, "", never, at(2024, time.June, 1, 23, 0, 0), true},
		{"sun 02:00 in sat window", Params{Range: "22:00 - 04:00", Weekday: "Saturday"}, "", never, at(2024, time.June, 2, 2, 0, 0), true},
		{"sat 02:00 is friday's window", Params{Range: "22:00 - 04:00", Weekday: "Saturday"}, "", never, at(2024, time.June, 1, 2, 0, 0), false},
		{"thu window thu", Params{Range: "22:00:00 - 02:00:00", Weekday: "Thursday"}, "", never, at(2011, time.March, 31, 22, 30, 0), true},
		{"thu evening, fri weekday", Params{Range: "22:00:00 - 01:00:00", Weekday: "Friday"}, "", never, at(2011, time.March, 31, 22, 30, 0), false},
		{"thu evening, wed weekday", Params{Range: "22:00:00 - 01:00:00", Weekday: "Wednesday"}, "", never, at(2011, time.March, 31, 22, 30, 0), false},
		{"thu 01:30 is wed's window", Params{Range: "22:00:00 - 02:00:00", Weekday: "Wednesday"}, "", never, at(2011, time.March, 31, 1, 30, 0), true},
		{"thu 01:30 not thu's window", Params{Range: "22:00:00 - 02:00:00", Weekday: "Thursday"}, "", never, at(2011, time.March, 31, 1, 30, 0), false},
		{"24 h range, weekday of start", Params{Range: "6 - 6", Weekday: "Sat"}, "", never, at(2024, time.June, 2, 5, 0, 0), true},
		{"24 h range, next start", Params{Range: "6 - 6", Weekday: "Sat"}, "", never, at(2024, time.June, 2, 6, 0, 0), false},
		// weekday alone
		{"weekday Monday", Params{Weekday: "Monday"}, "", never, now, true},
		{"weekday Mon", Params{Weekday: "Mon"}, "", never, now, true},
		{"weekday '1'", Params{Weekday: "1"}, "", never, now, true},
		{"weekday 1", Params{Weekday: int64(1)}, "", never, now, true},
		{"weekday Tuesday", Params{Weekday: "Tuesday"}, "", never, now, false},
		{"weekday [Sun, Mon]", Params{Weekday: []any{"Sun", "Mon"}}, "", never, now, true},
		{"weekday [Sun, Tue]", Params{Weekday: []any{"Sun", "Tue"}}, "", never, now, false},
		{"weekday any case", Params{Weekday: "mOnDaY"}, "", never, now, true},
		{"weekday accidental Monday spelling", Params{Weekday: "Monday\n"}, "", never, now, true},
		{"weekday 'x\\n1' is Sunday", Params{Weekday: "x\n1"}, "", never, now, false},
		{"weekday Tueday accepted", Params{Weekday: "Tueday"}, "", never, may23(11, 0, 0).AddDate(0, 0, 1), true},
		{"weekday empty never matches", Params{Weekday: []any{}}, "", never, now, false},
		{"weekday empty with range", Params{Range: "0 - 0", Weekday: []any{}}, "", never, now, false},
		// period by distance
		{"hourly distance 1h", Params{Period: "hourly"}, "", now.Add(-time.Hour), now, true},
		{"hourly distance now", Params{Period: "hourly"}, "", now, now, false},
		{"hourly distance 59m", Params{Period: "hourly"}, "", now.Add(-59 * time.Minute), now, false},
		{"daily distance 1d", Params{Period: "daily"}, "", now.Add(-24 * time.Hour), now, true},
		{"daily distance 23h", Params{Period: "daily"}, "", now.Add(-23 * time.Hour), now, false},
		{"weekly distance 7d", Params{Period: "weekly"}, "", now.AddDate(0, 0, -7), now, true},
		{"weekly distance 6d", Params{Period: "weekly"}, "", now.AddDate(0, 0, -6), now, false},
		{"monthly distance 32d", Params{Period: "monthly"}, "", now.AddDate(0, 0, -32), now, true},
		{"monthly is 30 days", Params{Period: "monthly"}, "", now.AddDate(0, 0, -30), now, true},
		{"monthly 29 days", Params{Period: "monthly"}, "", now.AddDate(0, 0, -29), now, false},
		{"never checked is the epoch", Params{Period: "monthly"}, "", never, now, true},
		{"future lastChecked never due", Params{Period: "hourly"}, "", now.Add(time.Hour), now, false},
		{"daily repeat 2, 13h", Params{Period: "daily", Repeat: int64(2)}, "", now.Add(-13 * time.Hour), now, true},
		{"daily repeat 2, 11h", Params{Period: "daily", Repeat: int64(2)}, "", now.Add(-11 * time.Hour), now, false},
		{"hourly repeat 7 is 514 s", Params{Period: "hourly", Repeat: int64(7)}, "", now.Add(-514 * time.Second), now, true},
		{"hourly repeat 7, 513 s", Params{Period: "hourly", Repeat: int64(7)}, "", now.Add(-513 * time.Second), now, false},
		{"repeat as digit string", Params{Period: "hourly", Repeat: "2"}, "", now.Add(-30 * time.Minute), now, true},
		{"repeat '010' is octal 8", Params{Period: "hourly", Repeat: "010"}, "", now.Add(-450 * time.Second), now, true},
		{"repeat '010' is octal 8 (449 s)", Params{Period: "hourly", Repeat: "010"}, "", now.Add(-449 * time.Second), now, false},
		{"repeat -1 always due", Params{Period: "hourly", Repeat: int64(-1)}, "", now.Add(time.Hour), now, true},
		{"repeat -7 floors to -515", Params{Period: "hourly", Repeat: int64(-7)}, "", now.Add(515 * time.Second), now, true},
		{"repeat -7, 516 s ahead", Params{Period: "hourly", Repeat: int64(-7)}, "", now.Add(516 * time.Second), now, false},
		{"repeat above scale", Params{Period: "hourly", Repeat: int64(7200)}, "", now, now, true},
		{"repeat 0 without period", Params{Repeat: int64(0)}, "", never, now, true},
		{"lastChecked is whole seconds", Params{Period: "hourly"}, "", now.Add(-time.Hour + 500*time.Millisecond), now, true},
		// period by number
		{"hourly number, new hour", Params{Period: "hourly", PeriodMatch: "number"}, "", at(2007, 12, 31, 23, 59, 0), at(2008, 1, 1, 0, 0, 0), true},
		{"hourly number, same hour", Params{Period: "hourly", PeriodMatch: "number"}, "", at(2009, 2, 1, 12, 0, 0), at(2009, 2, 1, 12, 59, 0), false},
		{"hourly number, same hour yesterday", Params{Period: "hourly", PeriodMatch: "number"}, "", at(2009, 2, 1, 12, 0, 0), at(2009, 2, 2, 12, 30, 0), false},
		{"daily number, new day", Params{Period: "daily", PeriodMatch: "number"}, "", at(2010, 11, 6, 23, 59, 0), at(2010, 11, 7, 0, 0, 0), true},
		{"daily number, same day", Params{Period: "daily", PeriodMatch: "number"}, "", at(2010, 11, 7, 0, 0, 0), at(2010, 11, 7, 23, 59, 0), false},
		{"daily number, same day-of-month next month", Params{Period: "daily", PeriodMatch: "number"}, "", at(2010, 10, 7, 12, 0, 0), at(2010, 11, 7, 12, 0, 0), false},
		{"weekly number, before sunday", Params{Period: "weekly", PeriodMatch: "number"}, "", at(2010, 11, 6, 23, 59, 59), at(2010, 11, 11, 0, 0, 0), true},
		{"weekly number, after sunday", Params{Period: "weekly", PeriodMatch: "number"}, "", at(2010, 11, 7, 0, 0, 0), at(2010, 11, 11, 0, 0, 0), false},
		{"weekly number, exactly 7 days", Params{Period: "weekly", PeriodMatch: "number"}, "", at(2010, 11, 4, 0, 0, 0), at(2010, 11, 11, 0, 0, 0), false},
		{"weekly number, 7 days + 1 ns", Params{Period: "weekly", PeriodMatch: "number"}, "", at(2010, 11, 4, 0, 0, 0), at(2010, 11, 11, 0, 0, 0).Add(time.Nanosecond), true},
		{"monthly number, new month", Params{Period: "monthly", PeriodMatch: "number"}, "", at(2010, 10, 31, 23, 59, 59), at(2010, 11, 8, 0, 59, 59), true},
		{"monthly number, same month", Params{Period: "monthly", PeriodMatch: "number"}, "", at(2010, 11, 1, 0, 0, 0), at(2010, 11, 8, 0, 59, 59), false},
		{"monthly number, same month next year", Params{Period: "monthly", PeriodMatch: "number"}, "", at(2009, 11, 1, 0, 0, 0), at(2010, 11, 8, 0, 59, 59), false},
		{"number, never checked, hour 00", Params{Period: "hourly", PeriodMatch: "number"}, "", never, at(2024, 6, 1, 0, 30, 0), false},
		{"number, never checked, the 1st", Params{Period: "daily", PeriodMatch: "number"}, "", never, at(2024, 6, 1, 12, 0, 0), false},
		{"number, never checked, january", Params{Period: "monthly", PeriodMatch: "number"}, "", never, at(2024, 1, 15, 12, 0, 0), false},
		{"number, never checked, west of UTC", Params{Period: "daily", PeriodMatch: "number"}, "America/New_York", never, time.Date(2024, 6, 1, 12, 0, 0, 0, zone(t, "America/New_York")), true},
		{"number, never checked, west of UTC, the 31st", Params{Period: "daily", PeriodMatch: "number"}, "America/New_York", never, time.Date(2024, 5, 31, 12, 0, 0, 0, zone(t, "America/New_York")), false},
		// never
		{"never", Params{Period: "never"}, "", never, now, false},
		{"never with range", Params{Period: "never", Range: "0 - 0"}, "", never, now, false},
		{"never with repeat 0", Params{Period: "never", Repeat: int64(0)}, "", never, now, false},
		// range parsing quirks
		{"unanchored range", Params{Range: "x 10 - 12 y"}, "", never, may23(0, 30, 0), true},
		{"unanchored range, 'x 10' is 0", Params{Range: "x 10 - 12 y"}, "", never, may23(12, 0, 1), false},
		{"fourth field is microseconds", Params{Range: "11:00:00:5 - 12"}, "", never, now.Add(4 * time.Microsecond), false},
		{"fourth field is microseconds (2)", Params{Range: "11:00:00:5 - 12"}, "", never, now.Add(5 * time.Microsecond), true},
		{"fifth field ignored", Params{Range: "11:00:00:5:5 - 12"}, "", never, now, true},
		{"fraction dropped", Params{Range: "9:00:00.5 - 11"}, "", never, now, true},
		{"second 60 rolls over", Params{Range: "10:59:60 - 12"}, "", never, now, true},
		{"second 60 rolls over (2)", Params{Range: "10:59:60 - 12"}, "", never, now.Add(-time.Nanosecond), false},
		{"trailing dash", Params{Range: "1 - 2 - "}, "", never, may23(1, 30, 0), true},
		{"range in minutes only", Params{Range: "10:0:0-12:0:0"}, "", never, now, true},
		// time_zone: wall clock in the zone, DST as Ruby's Time.local
		{"zone wall clock", Params{Range: "2 - 4", TimeZone: "America/New_York"}, "", never, at(2024, 6, 1, 7, 0, 0), true},
		{"zone wall clock, tag form", Params{Range: "2 - 4", TimeZone: "america-new_york"}, "", never, at(2024, 6, 1, 9, 0, 0), false},
		{"gap start shifts forward", Params{Range: "2:30 - 5", TimeZone: "America/New_York"}, "", never, time.Date(2024, 3, 10, 3, 15, 0, 0, zone(t, "America/New_York")), false},
		{"gap start shifts forward (2)", Params{Range: "2:30 - 5", TimeZone: "America/New_York"}, "", never, time.Date(2024, 3, 10, 3, 30, 0, 0, zone(t, "America/New_York")), true},
		{"gap turns a range into a spanning one", Params{Range: "2:30 - 3", TimeZone: "America/New_York"}, "", never, time.Date(2024, 3, 10, 12, 0, 0, 0, zone(t, "America/New_York")), true},
		{"repeated hour uses later occurrence", Params{Range: "1:30 - 4", TimeZone: "America/New_York"}, "", never, at(2024, 11, 3, 5, 45, 0), false},
		{"repeated hour uses later occurrence (2)", Params{Range: "1:30 - 4", TimeZone: "America/New_York"}, "", never, at(2024, 11, 3, 6, 30, 0), true},
		{"default location", Params{Range: "2 - 4"}, "Europe/Berlin", never, at(2024, 6, 1, 1, 0, 0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.tz != "" {
				opts = append(opts, WithDefaultLocation(zone(t, tt.tz)))
			}
			s := mustNew(t, tt.p, opts...)
			got, err := s.Eval(tt.prev, tt.now)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if got != tt.want {
				t.Errorf("Match(%v, %v) = %v, want %v", tt.prev, tt.now, got, tt.want)
			}
			if m := s.Match(tt.prev, tt.now); m != got {
				t.Errorf("Match = %v, Eval = %v", m, got)
			}
		})
	}
}

// TestMatchErrors covers the failures Puppet raises while matching, not while
// validating, and that they surface only when Puppet would reach them.
func TestMatchErrors(t *testing.T) {
	now := at(2024, 1, 1, 1, 30, 0)
	tests := []struct {
		p       Params
		wantErr string // "" means no error
		want    bool
	}{
		{Params{Range: "1:00:99 - 2"}, "argument out of range", false},
		{Params{Range: "1:0:61 - 2"}, "sec out of range", false},
		{Params{Range: "3 - 1:0:61"}, "sec out of range", false},
		{Params{Range: "1:0:61:5 - 2"}, "sec out of range", false},
		{Params{Range: "1:0:64:5 - 2"}, "argument out of range", false},
		{Params{Range: "1:0:2147483648 - 2"}, "integer 2147483648 too big to convert to `int'", false},
		{Params{Range: "1:0:9223372036854775808 - 2"}, "bignum too big to convert into `long'", false},
		{Params{Range: "1 - 1:0:0:1000000"}, "subsecx out of range", false},
		{Params{Range: "1:2:3:4:5:6 - 2"}, "wrong number of arguments (given 9, expected 1..8)", false},
		{Params{Range: "1:2:3:4:5:6:7 - 2"}, "argument out of range", false},
		{Params{Range: "1:2:3:4:5:6:7:8 - 2"}, "wrong number of arguments (given 11, expected 1..8)", false},
		{Params{Range: []any{}}, "undefined method `[]' for nil:NilClass", false},
		{Params{Range: []any{"0-23:59:59", "1:0:61 - 2"}}, "", true},
		{Params{Range: []any{"3-4", "1:0:61 - 2"}, Period: "hourly", Repeat: int64(0)}, "sec out of range", false},
		{Params{Range: []any{"3-4"}, Period: "hourly", Repeat: int64(0)}, "", false},
		{Params{Period: "hourly", Repeat: int64(0)}, "divided by 0", false},
		{Params{Range: "1:00:60 - 2"}, "", true},
		{Params{Range: "1:0:0:999999 - 2"}, "", true},
	}
	for _, tt := range tests {
		t.Run(rubyInspect(tt.p.Range)+"/"+rubyInspect(tt.p.Repeat), func(t *testing.T) {
			s := mustNew(t, tt.p)
			got, err := s.Eval(never, now)
			if got != tt.want {
				t.Errorf("Eval = %v, want %v", got, tt.want)
			}
			var me *MatchError
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantErr != "" && (!errors.As(err, &me) || me.Msg != tt.wantErr):
				t.Errorf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestBuiltin(t *testing.T) {
	now := at(2024, 6, 1, 12, 0, 0)
	tests := []struct {
		name    string
		due     time.Duration // shortest distance at which it is due; 0 = never
		wantPer Period
	}{
		{"puppet", 30 * time.Minute, Hourly},
		{"hourly", time.Hour, Hourly},
		{"daily", 24 * time.Hour, Daily},
		{"weekly", 7 * 24 * time.Hour, Weekly},
		{"monthly", 30 * 24 * time.Hour, Monthly},
		{"never", 0, Never},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Builtin(tt.name)
			if !ok {
				t.Fatal("not found")
			}
			if s.Period() != tt.wantPer || s.Name() != tt.name {
				t.Errorf("period %v name %q", s.Period(), s.Name())
			}
			if tt.due == 0 {
				if s.Match(never, now) {
					t.Error("never matched")
				}
				return
			}
			if !s.Match(now.Add(-tt.due), now) || s.Match(now.Add(-tt.due+time.Second), now) {
				t.Errorf("not due at exactly %v", tt.due)
			}
		})
	}
	if _, ok := Builtin("yearly"); ok {
		t.Error("Builtin(yearly) found")
	}
	if len(BuiltinNames()) != 6 {
		t.Error("BuiltinNames")
	}
}
