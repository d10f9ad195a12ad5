package oncalendar

import (
	"strings"
	"testing"
	"time"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		expr, want string
		col        int
	}{
		{"", "empty", 1},
		{"Mon..Fri *-*-* 25:00", "hour: value 25 out of range", 0},
		{"Fri..Mon", "ends before it starts", 6},
		{"*-*-* 12:00 Mars/Olympus", "unknown time zone", 13},
		{"12:x0", "expected a number", 4},
		{"Mon.Tue", "Mon..Fri", 4},
		{"*:50/15", "never repeats", 0},
		{"*-*-* 00:00\x00", "unexpected character", 12},
		{"00:00:00/0.00000001", "must not be zero", 10},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := Parse(tc.expr, nil)
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("Parse(%q) = %v, want a *ParseError", tc.expr, err)
			}
			if !strings.Contains(pe.Error(), tc.want) || pe.Column != tc.col {
				t.Fatalf("Parse(%q) = %q at column %d, want %q at column %d", tc.expr, pe.Error(), pe.Column, tc.want, tc.col)
			}
		})
	}
}

func TestNext(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		expr string
		loc  *time.Location
		from string
		want []string
	}{
		{"Mon..Fri *-*-* 09:00", berlin, "2026-11-27T12:00:00Z", []string{"2026-11-30T09:00:00+01:00", "2026-12-01T09:00:00+01:00"}},
		{"*-*~01", nil, "2026-02-01T00:00:00Z", []string{"2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z"}},
		{"*-02-29", nil, "2026-01-01T00:00:00Z", []string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"*:*:0/0.25", nil, "2026-01-01T00:00:00Z", []string{"2026-01-01T00:00:00.25Z", "2026-01-01T00:00:00.5Z"}},
		// A spring-forward gap swallows 02:30 that day.
		{"*-*-* 02:30", berlin, "2026-03-28T12:00:00Z", []string{"2026-03-30T02:30:00+02:00"}},
		// Years end at 2199.
		{"2199-12-31 23:59:59", nil, "2199-12-31T23:59:59Z", nil},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			s, err := Parse(tc.expr, tc.loc)
			if err != nil {
				t.Fatal(err)
			}
			at, _ := time.Parse(time.RFC3339Nano, tc.from)
			var got []string
			for i := 0; i < len(tc.want) || i == 0; i++ {
				at = s.Next(at)
				if at.IsZero() {
					break
				}
				got = append(got, at.Format(time.RFC3339Nano))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("Next = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzParse: Parse never panics; an accepted event's normalized form
// parses to the same normalized form, and Next moves strictly forward.
func FuzzParse(f *testing.F) {
	for _, e := range referenceEvents {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := Parse(expr, time.UTC)
		if err != nil {
			return
		}
		again, err := Parse(s.String(), time.UTC)
		if err != nil {
			t.Fatalf("normalized form %q of %q is refused: %v", s.String(), expr, err)
		}
		if again.String() != s.String() {
			t.Fatalf("normalized form %q of %q normalizes to %q", s.String(), expr, again.String())
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if n := s.Next(from); !n.IsZero() && !n.After(from) {
			t.Fatalf("%q: Next(%v) = %v, not after", expr, from, n)
		}
	})
}

func BenchmarkNext(b *testing.B) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, bc := range []struct {
		name, expr string
		loc        *time.Location
	}{
		{"utc-weekdays", "Mon..Fri *-*-* 09:00", time.UTC},
		{"utc-every15m", "*:0/15", time.UTC},
		{"utc-lastday", "*-*~01 12:00", time.UTC},
		{"berlin-weekdays", "Mon..Fri *-*-* 09:00", berlin},
	} {
		s, err := Parse(bc.expr, bc.loc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := 0; i < b.N; i++ {
				n := s.Next(t)
				if n.IsZero() {
					t = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
					continue
				}
				t = n
			}
		})
	}
}

// TestZoneSuffixShared: events naming the same zone share one location
// (and so one cached offset table), however often a job is compiled; the
// tag form of a zone is not a suffix, as in systemd.
func TestZoneSuffixShared(t *testing.T) {
	a, err := Parse("12:00 Europe/Berlin", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("Mon 09:00 Europe/Berlin", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if a.Location() != b.Location() || a.Location().String() != "Europe/Berlin" {
		t.Fatalf("locations %p %v and %p %v", a.Location(), a.Location(), b.Location(), b.Location())
	}
	if _, err := Parse("12:00 europe-berlin", nil); err == nil {
		t.Fatal("a tag-form zone suffix was accepted")
	}
}
