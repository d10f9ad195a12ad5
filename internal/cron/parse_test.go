package cron

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		expr string
		want string // the full message
	}{
		{"0 0 32 * *", "cron: field 3 (day of month) at column 5: value 32 out of range 1-31"},
		{"60 * * * *", "cron: field 1 (minute) at column 1: value 60 out of range 0-59"},
		{"* 24 * * *", "cron: field 2 (hour) at column 3: value 24 out of range 0-23"},
		{"* * * 13 *", "cron: field 4 (month) at column 7: value 13 out of range 1-12"},
		{"* * * * 8", "cron: field 5 (day of week) at column 9: value 8 out of range 0-7"},
		{"0 0 * * * * *", "cron: at column 1: expected 5 or 6 fields, got 7"},
		{"TZ=UTC 0 0 * * * * * *", "cron: at column 20: too many fields: expected 5 or 6"},
		{"0 0 * *", "cron: at column 1: expected 5 or 6 fields, got 4"},
		{"", "cron: at column 1: empty expression"},
		{"   ", "cron: at column 1: empty expression"},
		{"0 0 31 2 *", "cron: field 3 (day of month) at column 5: never fires: February has no day 31"},
		{"0 0 30 2 *", "cron: field 3 (day of month) at column 5: never fires: February has no day 30"},
		{"0 0 31 4,6 *", "cron: field 3 (day of month) at column 5: never fires: April and June have no day 31"},
		{"0 0 31W 2 *", `cron: field 3 (day of month) at column 5: never fires: no day in February matches both day of month "31W" and day of week "*"`},
		{"* * 1-x * *", `cron: field 3 (day of month) at column 7: "x" is not a number`},
		{"* * * FOO *", `cron: field 4 (month) at column 7: unknown month "FOO"`},
		{"* * * * FUNDAY", `cron: field 5 (day of week) at column 9: unknown day of week "FUNDAY"`},
		{"*/0 * * * *", `cron: field 1 (minute) at column 3: step "0" must be a positive number`},
		{"*/ * * * *", `cron: field 1 (minute) at column 2: missing step after /`},
		{"*/61 * * * *", `cron: field 1 (minute) at column 3: step 61 is larger than the field's range 0-59`},
		{"5-2 * * * *", `cron: field 1 (minute) at column 1: range 5-2 is backwards (start after end)`},
		{"1,,2 * * * *", `cron: field 1 (minute) at column 3: empty list item in "1,,2"`},
		{"? * * * *", `cron: field 1 (minute) at column 1: ? is only allowed in day of month and day of week`},
		{"L * * * *", `cron: field 1 (minute) at column 1: "L": L, W and # are only allowed in day of month (L, W) and day of week (L, #)`},
		{"* * * * L", `cron: field 5 (day of week) at column 9: L in day of week needs a weekday before it, e.g. 5L for the last Friday`},
		{"* * * * 1#6", `cron: field 5 (day of week) at column 11: "6" after # must be 1-5 (which occurrence of the weekday in the month)`},
		{"* * 32W * *", `cron: field 3 (day of month) at column 5: value 32 out of range 1-31`},
		{"0 60 * * * *", "cron: field 2 (minute) at column 3: value 60 out of range 0-59"},
		{"@fortnightly", "cron: at column 1: unknown macro @fortnightly (want @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly or @every <duration>)"},
		{"@daily 5", "cron: at column 8: unexpected text after @daily"},
		{"@every", "cron: at column 1: @every takes one duration, e.g. @every 90m"},
		{"@every soon", `cron: at column 8: invalid duration "soon" (use Go syntax such as 90s, 15m, 1h30m)`},
		{"@every 500ms", "cron: at column 8: @every duration 500ms is shorter than one second"},
		{"@every 1.5s", "cron: at column 8: @every duration 1.5s is not a whole number of seconds"},
		{"TZ=", "cron: at column 4: missing time zone name after TZ="},
		{"TZ=UTC", "cron: at column 7: expected a schedule after TZ=UTC"},
		{"CRON_TZ=America/New_York", "cron: at column 25: expected a schedule after CRON_TZ=America/New_York"},
		{"CRON_TZ=Mars/Olympus 0 0 * * *", `cron: at column 9: unknown time zone "Mars/Olympus"`},
		{"CRON_TZ=america-new_yrok 0 0 * * *", `cron: at column 9: unknown time zone "america-new_yrok" (did you mean "america-new_york"?)`},
		{"H(5-2) * * * *", "cron: field 1 (minute) at column 1: range 5-2 is backwards (start after end)"},
		{"H(1-x) * * * *", `cron: field 1 (minute) at column 5: "x" is not a number`},
		{"H5 * * * *", `cron: field 1 (minute) at column 1: "H5" is not a number`},
		{"TZ=Europe/London * 1 * 3 0L", "cron: at column 1: never fires: every matching time falls in a daylight-saving gap in Europe/London"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := Parse(tt.expr)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.expr, s)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			if pe.Expr != tt.expr {
				t.Errorf("Expr = %q", pe.Expr)
			}
		})
	}
}

func TestParseEquivalentForms(t *testing.T) {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct{ a, b string }{
		{"0 0 * * 7", "0 0 * * 0"},
		{"0 0 * * SUN", "0 0 * * 0"},
		{"0 0 * * sun", "0 0 * * 0"},
		{"0 0 * * MON-FRI", "0 0 * * 1-5"},
		{"0 0 * * 5-7", "0 0 * * 0,5,6"},
		{"0 0 * JAN-MAR *", "0 0 * 1-3 *"},
		{"0 0 ? * 1", "0 0 * * 1"},
		{"0 0 1 * ?", "0 0 1 * *"},
		{"0 0 * * MON#2", "0 0 * * 1#2"},
		{"0 0 * * FRIL", "0 0 * * 5L"},
		{"0 0 * * 7L", "0 0 * * 0L"},
		{"@yearly", "0 0 1 1 *"},
		{"@annually", "0 0 1 1 *"},
		{"@monthly", "0 0 1 * *"},
		{"@weekly", "0 0 * * 0"},
		{"@daily", "0 0 * * *"},
		{"@midnight", "0 0 * * *"},
		{"@hourly", "0 * * * *"},
		{"@DAILY", "0 0 * * *"},
		{"0 30 2 * * *", "30 2 * * *"},
		{"5/15 * * * *", "5,20,35,50 * * * *"},
		{"10-30/10 * * * *", "10,20,30 * * * *"},
		{"  0   9 * *  1-5 ", "0 9 * * 1-5"},
		{"TZ=UTC 0 9 * * *", "0 9 * * *"},
		{"0 0 1-31/2 * *", "0 0 */2 * *"},
	}
	for _, tt := range tests {
		t.Run(tt.a, func(t *testing.T) {
			a, err := Parse(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Parse(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			ta, tb := from, from
			for i := 0; i < 50; i++ {
				ta, tb = a.Next(ta), b.Next(tb)
				if !ta.Equal(tb) {
					t.Fatalf("fire %d: %q gives %s, %q gives %s", i, tt.a, ta, tt.b, tb)
				}
			}
		})
	}
}

func TestHashStable(t *testing.T) {
	a, _ := Parse("H H * * *", WithHashKey("backup"))
	b, _ := Parse("H H * * *", WithHashKey("backup"))
	if a.mins != b.mins || a.hours != b.hours {
		t.Fatal("H is not stable for one key")
	}
	// Different keys spread: 50 jobs should not all share a minute.
	seen := map[uint64]bool{}
	for i := 0; i < 50; i++ {
		s, err := Parse("H * * * *", WithHashKey("job-"+string(rune('a'+i%26))+string(rune('a'+i/26))))
		if err != nil {
			t.Fatal(err)
		}
		seen[s.mins] = true
	}
	if len(seen) < 20 {
		t.Fatalf("50 keys hashed to only %d minutes", len(seen))
	}
	tests := []struct {
		expr  string
		check func(s *Spec) bool
	}{
		{"H/15 * * * *", func(s *Spec) bool {
			h := s.firstMin
			return h < 15 && s.mins == 1<<h|1<<(h+15)|1<<(h+30)|1<<(h+45)
		}},
		{"H(10-20) * * * *", func(s *Spec) bool { return s.firstMin >= 10 && s.firstMin <= 20 && s.mins&(s.mins-1) == 0 }},
		{"0 H(0-5)/2 * * *", func(s *Spec) bool { f := s.firstTOD / 3600; return f < 2 && s.hours == 1<<f|1<<(f+2)|1<<(f+4) }},
		{"0 0 H * *", func(s *Spec) bool { return s.dom != 0 && s.dom < 1<<29 && s.dom&(s.dom-1) == 0 }},
		{"0 0 * * H", func(s *Spec) bool { return s.dow != 0 && s.dow < 1<<7 && s.dow&(s.dow-1) == 0 }},
		{"H,H * * * *", func(s *Spec) bool { return s.mins != 0 }},
	}
	for _, tt := range tests {
		for _, key := range []string{"", "a", "nightly-report", "x/y/z"} {
			s, err := Parse(tt.expr, WithHashKey(key))
			if err != nil {
				t.Fatalf("%q: %v", tt.expr, err)
			}
			if !tt.check(s) {
				t.Errorf("%q key %q: bad hash result %s", tt.expr, key, s.Describe())
			}
		}
	}
}

func TestStringAndLocation(t *testing.T) {
	s, err := Parse("  CRON_TZ=europe-berlin   30 2 * * * ")
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "CRON_TZ=europe-berlin 30 2 * * *" {
		t.Errorf("String = %q", s.String())
	}
	if s.Location().String() != "Europe/Berlin" {
		t.Errorf("Location = %s", s.Location())
	}
	ny, _ := time.LoadLocation("America/New_York")
	s, _ = Parse("0 9 * * *", WithLocation(ny))
	if s.Location() != ny {
		t.Errorf("WithLocation ignored")
	}
	s, _ = Parse("TZ=Asia/Tokyo 0 9 * * *", WithLocation(ny))
	if s.Location().String() != "Asia/Tokyo" {
		t.Errorf("prefix did not override WithLocation: %s", s.Location())
	}
	s2, err := Parse(s.String())
	if err != nil || s2.String() != s.String() {
		t.Errorf("String does not round-trip: %v %q", err, s2)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"0 2 * * *", "at 02:00 every day"},
		{"* * * * *", "every minute"},
		{"*/5 * * * *", "every 5 minutes"},
		{"0 9 * * 1-5", "at 09:00 on Monday through Friday"},
		{"0 9,17 * * MON,WED,FRI", "at 09:00 and 17:00 on Monday, Wednesday and Friday"},
		{"30 2 1 * *", "at 02:30 on day 1 of the month"},
		{"0 0 29 2 *", "at 00:00 on day 29 of the month in February"},
		{"0 9 1-7 * 2", "at 09:00 on days 1-7 of the month and on Tuesday"},
		{"0 0 * * 1#2", "at 00:00 on the second Monday of the month"},
		{"0 0 L * *", "at 00:00 on the last day of the month"},
		{"0 0 LW * *", "at 00:00 on the last weekday of the month"},
		{"0 0 15W * *", "at 00:00 on the weekday nearest day 15"},
		{"0 22 * * 5L", "at 22:00 on the last Friday of the month"},
		{"0 * * * *", "at minute 0"},
		{"*/10 9-17 * * *", "every 10 minutes during hours 09-17"},
		{"0 */6 * * *", "at 00:00, 06:00, 12:00 and 18:00 every day"},
		{"0 */2 * * *", "at minute 0 every 2 hours"},
		{"15 3 * 1-3 *", "at 03:15 every day in January through March"},
		{"*/30 * * * * *", "every 30 seconds"},
		{"5 0 0 * * *", "at 00:00:05 every day"},
		{"0 0 */2 * 1", "at 00:00 on days 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29 and 31 of the month if it is a Monday"},
		{"@every 90m", "every 1h30m0s"},
		{"CRON_TZ=Europe/Berlin 0 2 * * *", "at 02:00 every day (Europe/Berlin)"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Describe(); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
			if strings.Contains(s.Describe(), "  ") {
				t.Errorf("double space in %q", s.Describe())
			}
		})
	}
}
