package puppetsched

import (
	"strings"
	"testing"
	"time"
)

// FuzzRange feeds arbitrary strings to the range parser: it never panics, it
// accepts exactly what Puppet's unanchored pattern admits (minus bad hours,
// minutes and shapes, which get Puppet's messages), and an accepted range can
// be matched and searched.
func FuzzRange(f *testing.F) {
	for _, s := range []string{"2 - 4", "1:30 - 4:30", "10:0:0-12:0:0", "22:00:00 - 02:00:00", "foo", "24 - 2",
		"1:60 - 2", "1-2-3", "x 10 - 12 y", "1:2:3:4 - 5", "9:00:00.5 - 12", "1:00:99 - 2", "5 - 5", "- 1-2",
		"1 - 2 - ", "1 -- 2", "1:2:3:4:5:6:7 - 2", "1_0 - 2", "1\v-\v2", "٣ - 4", "1:0:9223372036854775808 - 2"} {
		f.Add(s)
	}
	now := time.Date(2024, 3, 10, 6, 30, 0, 0, time.UTC)
	ny := zone(f, "America/New_York")
	f.Fuzz(func(t *testing.T, s string) {
		spans, msg := parseRange(s)
		if !rangeRE.MatchString(s) {
			if msg != "Invalid range value '"+s+"'" {
				t.Fatalf("%q: non-matching value gave %q", s, msg)
			}
			return
		}
		if msg != "" {
			if !strings.HasPrefix(msg, "Invalid range ") && !strings.HasPrefix(msg, "Munging failed for value ") {
				t.Fatalf("%q: unexpected message %q", s, msg)
			}
			return
		}
		if len(spans) != 1 {
			t.Fatalf("%q: %d spans", s, len(spans))
		}
		sch, err := New("f", Params{Range: s}, WithDefaultLocation(ny))
		if err != nil {
			t.Fatalf("%q: New: %v", s, err)
		}
		ok, err := sch.Eval(never, now)
		if err != nil && ok {
			t.Fatalf("%q: matched with error %v", s, err)
		}
		if next, found := sch.NextMatch(never, now); found && !sch.Match(never, next) {
			t.Fatalf("%q: NextMatch %v does not match", s, next)
		}
	})
}

// FuzzWeekday feeds arbitrary strings and integers to the weekday parser: no
// panics, Puppet's message on rejection, and an accepted value names days.
func FuzzWeekday(f *testing.F) {
	for _, s := range []string{"Mon", "Tues", "Wednesday", "thu", "FRIDAY", "Satur", "Sun", "Tueday", "Thur",
		"Someday", "0", "6", "7", "01", "Mon\n", "x\n1", "x\nMon", "", "ſun", "Thurs"} {
		f.Add(s, int64(3))
	}
	f.Add("Mon", int64(-1))
	f.Add("Mon", int64(7))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		for _, v := range []any{s, n, []any{s, n}} {
			days, msg := parseWeekday(v)
			if msg != "" {
				if !strings.HasSuffix(msg, " is not a valid day of the week") {
					t.Fatalf("%q: message %q", rubyInspect(v), msg)
				}
				continue
			}
			if days >= 1<<7 {
				t.Fatalf("%q: day bits %b", rubyInspect(v), days)
			}
			if _, ok := v.(int64); ok && days != 1<<uint(n) {
				t.Fatalf("%d: day bits %b", n, days)
			}
		}
	})
}

// FuzzRepeat feeds arbitrary strings to the repeat parser, checking it
// against the rule that a valid value has a line of digits.
func FuzzRepeat(f *testing.F) {
	for _, s := range []string{"1", "2", "010", "08", "1\nx", "x\n3", "1.5", "", "0x10", "99999999999999999999", "12\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, msg := parseRepeat(s, false)
		if !anyLine(s, isDigits) {
			if msg != "Repeat must be a number" {
				t.Fatalf("%q: %q", s, msg)
			}
			return
		}
		if msg == "" && r.v < 0 {
			t.Fatalf("%q: negative repeat %d", s, r.v)
		}
		if _, msg := parseRepeat(s, true); msg != "Repeat must be 1 unless periodmatch is 'distance', not 'number'" {
			t.Fatalf("%q under number: %q", s, msg)
		}
	})
}
