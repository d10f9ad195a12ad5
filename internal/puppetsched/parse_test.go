package puppetsched

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestNewErrors checks Puppet's exact messages, as `puppet apply` prints them
// after "Error: " (Puppet 7.23).
func TestNewErrors(t *testing.T) {
	tests := []struct {
		p    Params
		want string
	}{
		{Params{Range: "foo"}, "Parameter range failed on Schedule[s]: Invalid range value 'foo'"},
		{Params{Range: "24 - 2"}, `Parameter range failed on Schedule[s]: Munging failed for value "24 - 2" in class range: Invalid hour '24'`},
		{Params{Range: "1:60 - 2"}, `Parameter range failed on Schedule[s]: Munging failed for value "1:60 - 2" in class range: Invalid minute '60'`},
		{Params{Range: "1-2-3"}, "Parameter range failed on Schedule[s]: Invalid range 1-2-3"},
		{Params{Range: "- 1-2"}, "Parameter range failed on Schedule[s]: Invalid range - 1-2"},
		{Params{Range: "1 -- 2"}, "Parameter range failed on Schedule[s]: Invalid range value '1 -- 2'"},
		{Params{Range: int64(5)}, "Parameter range failed on Schedule[s]: Invalid range value '5'"},
		{Params{Range: []any{"1-2", int64(5)}}, "Parameter range failed on Schedule[s]: Invalid range value '5'"},
		{Params{Range: []any{"1-2", []any{"3-4"}}}, `Parameter range failed on Schedule[s]: Invalid range value '["3-4"]'`},
		{Params{Range: []any{"1-2", map[string]any{"a": int64(1)}}}, `Parameter range failed on Schedule[s]: Invalid range value '{"a"=>1}'`},
		{Params{Range: []any{"1-2", nil}}, `Parameter range failed on Schedule[s]: Invalid range value ''`},
		{Params{Range: []any{"1-2", "24-3"}}, `Parameter range failed on Schedule[s]: Munging failed for value ["1-2", "24-3"] in class range: Invalid hour '24'`},
		{Params{Range: "1 - 99999999999999999999999"}, `Parameter range failed on Schedule[s]: Munging failed for value "1 - 99999999999999999999999" in class range: Invalid hour '99999999999999999999999'`},
		{Params{Range: "a\"b 25-2\t#{x}"}, ""},
		{Params{Range: "a\"b 2-25\t#{x}\x1b"}, `Parameter range failed on Schedule[s]: Munging failed for value "a\"b 2-25\t\#{x}\e" in class range: Invalid hour '25'`},
		{Params{Range: "1:99 - 25"}, `Parameter range failed on Schedule[s]: Munging failed for value "1:99 - 25" in class range: Invalid hour '25'`},
		{Params{PeriodMatch: "exact"}, `Parameter periodmatch failed on Schedule[s]: Invalid value "exact". Valid values are number, distance.`},
		{Params{Period: "yearly"}, `Parameter period failed on Schedule[s]: Invalid value "yearly". Valid values are hourly, daily, weekly, monthly, never.`},
		{Params{Period: "Hourly"}, `Parameter period failed on Schedule[s]: Invalid value "Hourly". Valid values are hourly, daily, weekly, monthly, never.`},
		{Params{Period: int64(5)}, `Parameter period failed on Schedule[s]: Invalid value 5. Valid values are hourly, daily, weekly, monthly, never.`},
		{Params{Period: []any{"hourly"}}, `Parameter period failed on Schedule[s]: Invalid value ["hourly"]. Valid values are hourly, daily, weekly, monthly, never.`},
		{Params{Repeat: "1.5"}, "Parameter repeat failed on Schedule[s]: Repeat must be a number"},
		{Params{Repeat: 1.5}, "Parameter repeat failed on Schedule[s]: Repeat must be a number"},
		{Params{Repeat: "08"}, `Parameter repeat failed on Schedule[s]: Munging failed for value "08" in class repeat: invalid value for Integer(): "08"`},
		{Params{Repeat: "1\nx"}, `Parameter repeat failed on Schedule[s]: Munging failed for value "1\nx" in class repeat: invalid value for Integer(): "1\nx"`},
		{Params{Repeat: "x\n3"}, `Parameter repeat failed on Schedule[s]: Munging failed for value "x\n3" in class repeat: invalid value for Integer(): "x\n3"`},
		{Params{PeriodMatch: "number", Repeat: int64(2)}, "Parameter repeat failed on Schedule[s]: Repeat must be 1 unless periodmatch is 'distance', not 'number'"},
		{Params{PeriodMatch: "number", Repeat: "1"}, "Parameter repeat failed on Schedule[s]: Repeat must be 1 unless periodmatch is 'distance', not 'number'"},
		{Params{PeriodMatch: "number", Repeat: int64(1)}, ""},
		{Params{PeriodMatch: "number", Repeat: int64(0)}, "Parameter repeat failed on Schedule[s]: Repeat must be 1 unless periodmatch is 'distance', not 'number'"},
		{Params{Weekday: "Someday"}, "Parameter weekday failed on Schedule[s]: Someday is not a valid day of the week"},
		{Params{Weekday: int64(7)}, "Parameter weekday failed on Schedule[s]: 7 is not a valid day of the week"},
		{Params{Weekday: "7"}, "Parameter weekday failed on Schedule[s]: 7 is not a valid day of the week"},
		{Params{Weekday: int64(-1)}, "Parameter weekday failed on Schedule[s]: -1 is not a valid day of the week"},
		{Params{Weekday: "01"}, "Parameter weekday failed on Schedule[s]: 01 is not a valid day of the week"},
		{Params{Weekday: "Thur"}, "Parameter weekday failed on Schedule[s]: Thur is not a valid day of the week"},
		{Params{Weekday: "Monda"}, "Parameter weekday failed on Schedule[s]: Monda is not a valid day of the week"},
		{Params{Weekday: []any{"Mon", int64(7)}}, "Parameter weekday failed on Schedule[s]: 7 is not a valid day of the week"},
		{Params{Weekday: []any{"Mon", nil}}, "Parameter weekday failed on Schedule[s]:  is not a valid day of the week"},
		{Params{Weekday: 1.0}, "Parameter weekday failed on Schedule[s]: 1.0 is not a valid day of the week"},
		{Params{Weekday: []any{"Tueday", "Wedday", "Wednes", "Thuday", "Satur", "Saturday", "Thurs", "Tues"}}, ""},
		// Puppet's order: range before weekday, periodmatch before repeat.
		{Params{Weekday: "Someday", Range: "foo"}, "Parameter range failed on Schedule[s]: Invalid range value 'foo'"},
		{Params{Repeat: "x", Period: "yearly"}, `Parameter period failed on Schedule[s]: Invalid value "yearly". Valid values are hourly, daily, weekly, monthly, never.`},
		// almanac's extensions
		{Params{TimeZone: "Mars/Olympus"}, `Parameter time_zone failed on Schedule[s]: unknown time zone "Mars/Olympus"`},
		{Params{TimeZone: "america-new_yrok"}, `Parameter time_zone failed on Schedule[s]: unknown time zone "america-new_yrok" (did you mean "america-new_york"?)`},
		{Params{TimeZone: int64(3)}, `Parameter time_zone failed on Schedule[s]: Invalid time zone 3: expected a String`},
		{Params{Windows: "Mon"}, `Parameter windows failed on Schedule[s]: expected an Array of Hashes, got "Mon"`},
		{Params{Windows: []any{}}, `Parameter windows failed on Schedule[s]: no windows: the schedule could never match`},
		{Params{Windows: []any{"x"}}, `Parameter windows failed on Schedule[s]: window 1: expected a Hash, got "x"`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "start_time": "01:00", "length_minutes": int64(5), "len": 1}}}, `Parameter windows failed on Schedule[s]: window 1: unknown key 'len' (expected days, start_time, length_minutes)`},
		{Params{Windows: []any{map[string]any{"start_time": "01:00", "length_minutes": int64(5)}}}, `Parameter windows failed on Schedule[s]: window 1: missing days`},
		{Params{Windows: []any{map[string]any{"days": []any{}, "start_time": "01:00", "length_minutes": int64(5)}}}, `Parameter windows failed on Schedule[s]: window 1: days is empty`},
		{Params{Windows: []any{map[string]any{"days": []any{int64(1)}, "start_time": "01:00", "length_minutes": int64(5)}}}, `Parameter windows failed on Schedule[s]: window 1: days: expected day names, got 1`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "length_minutes": int64(5)}}}, `Parameter windows failed on Schedule[s]: window 1: missing start_time`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "start_time": int64(100), "length_minutes": int64(5)}}}, `Parameter windows failed on Schedule[s]: window 1: start_time: expected a String 'HH:MM', got 100`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "start_time": "01:00"}}}, `Parameter windows failed on Schedule[s]: window 1: missing length_minutes`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "start_time": "01:00", "length_minutes": "5"}}}, `Parameter windows failed on Schedule[s]: window 1: length_minutes: expected an Integer, got "5"`},
		{Params{Windows: []any{map[string]any{"days": "Mon", "start_time": "01:00", "length_minutes": int64(1)}, map[string]any{"days": "Mon", "start_time": "01:00", "length_minutes": int64(0)}}}, `Parameter windows failed on Schedule[s]: window 2: length_minutes: must be at least 1, got 0`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := New("s", tt.p, WithWindows(testWindows))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ae *AttrError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want *AttrError", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			if !strings.HasPrefix(tt.want, "Parameter "+ae.Attr+" failed on Schedule[s]: "+ae.Msg) {
				t.Errorf("fields Attr=%q Msg=%q do not build the message", ae.Attr, ae.Msg)
			}
		})
	}
}

func TestWindowsNeedAFunc(t *testing.T) {
	_, err := New("s", Params{Windows: []any{map[string]any{"days": "Mon", "start_time": "01:00", "length_minutes": int64(5)}}}, WithWindows(nil))
	if err == nil {
		t.Fatal("windows accepted without a WindowFunc")
	}
}

func TestFromAttrs(t *testing.T) {
	p, err := FromAttrs(map[string]any{
		"name": "maint", "range": "2 - 4", "period": "daily", "periodmatch": "distance",
		"repeat": int64(1), "weekday": []any{"Sat"}, "time_zone": "UTC", "tag": "x", "noop": true,
		"windows": []any{map[string]any{"days": "Sat", "start_time": "02:00", "length_minutes": int64(60)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Range != "2 - 4" || p.Period != "daily" || p.PeriodMatch != "distance" || p.Repeat != int64(1) ||
		p.TimeZone != "UTC" || p.Windows == nil || p.Weekday == nil {
		t.Errorf("FromAttrs = %+v", p)
	}
	s, err := New("maint", p, WithWindows(testWindows))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Match(never, at(2024, 6, 1, 2, 30, 0)) || s.Match(never, at(2024, 6, 1, 4, 30, 0)) {
		t.Error("attributes not ANDed as expected")
	}

	_, err = FromAttrs(map[string]any{"name": "s", "zeta": 1, "foo": 1})
	var ae *AttrError
	if !errors.As(err, &ae) || !ae.Unknown || err.Error() != "no parameter named 'foo' on Schedule[s]" {
		t.Errorf("unknown attribute: %v", err)
	}
	_, err = FromAttrs(map[string]any{"foo": 1})
	if err == nil || err.Error() != "no parameter named 'foo'" {
		t.Errorf("unknown attribute without name: %v", err)
	}
	if p, err := FromAttrs(map[string]any{"range": nil}); err != nil || p.Range != nil {
		t.Errorf("undef attribute: %+v %v", p, err)
	}
}

func TestRubyHelpers(t *testing.T) {
	toI := []struct {
		in   string
		want string
	}{
		{"1_0", "10"}, {" +7x", "7"}, {"1__0", "1"}, {"x 10", "0"}, {"", "0"}, {"0x10", "0"},
		{"99999999999999999999", "99999999999999999999"}, {"007", "7"},
	}
	for _, tt := range toI {
		if got := rubyToI(tt.in).String(); got != tt.want {
			t.Errorf("to_i(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	integer := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"010", 8, true}, {"08", 0, false}, {"0_10", 8, true}, {"0o10", 8, true}, {" 12 \n", 12, true},
		{"1_000", 1000, true}, {"1__0", 0, false}, {"00", 0, true}, {"0", 0, true}, {"0x", 0, false},
		{"0x1f", 31, true}, {"0b101", 5, true}, {"1\n2", 0, false}, {"99999999999999999999", math.MaxInt64, true},
	}
	for _, tt := range integer {
		got, ok := rubyInteger(tt.in)
		if ok != tt.ok || (ok && got.v != tt.want) {
			t.Errorf("Integer(%q) = %v %v, want %v %v", tt.in, got.v, ok, tt.want, tt.ok)
		}
	}
	floats := map[float64]string{
		1: "1.0", 1.5: "1.5", 1e16: "1.0e+16", 1e15: "1.0e+15", 1e14: "100000000000000.0", 1e-4: "0.0001",
		1e-5: "1.0e-05", 123456789.123: "123456789.123", 5e-324: "5.0e-324", 1.234567890123456e15: "1.234567890123456e+15",
		math.Inf(1): "Infinity", math.Copysign(0, -1): "-0.0", 1.0 / 3: "0.3333333333333333",
	}
	for f, want := range floats {
		if got := rubyFloat(f); got != want {
			t.Errorf("Float(%v).to_s = %s, want %s", f, got, want)
		}
	}
	insp := `"a\"b\\c\#{x}\#$y\#@z#a\n\t\r\f\v\b\a\e\u0001\u007F\u0080é` + "\u200b" + `\u2028\xFF😀#"`
	if got := inspectString("a\"b\\c#{x}#$y#@z#a\n\t\r\f\v\b\a\x1b\x01\x7f\u0080é\u200b\u2028\xff😀#"); got != insp {
		t.Errorf("inspect = %s\nwant      %s", got, insp)
	}
	if got := rubyInspect(map[string]any{"b": []any{int64(1), "x"}, "a": int64(1), "c": nil, "d": true, "e": 1.5}); got != `{"a"=>1, "b"=>[1, "x"], "c"=>nil, "d"=>true, "e"=>1.5}` {
		t.Errorf("hash inspect = %s", got)
	}
	if weekdayOf(0) != time.Thursday || weekdayOf(-1) != time.Wednesday {
		t.Error("weekdayOf")
	}
}
