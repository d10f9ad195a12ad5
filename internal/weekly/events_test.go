package weekly

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

func eventMustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := calendar.LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func eventMustParse(t testing.TB, s string, loc *time.Location) *Events {
	t.Helper()
	e, err := ParseEvents(s, loc)
	if err != nil {
		t.Fatalf("ParseEvents(%q): %v", s, err)
	}
	return e
}

func TestParseEvents(t *testing.T) {
	wm := func(day, h, m int) int { return day*1440 + h*60 + m }
	tests := []struct {
		in        string
		want      []int
		canonical string
	}{
		{"mon0900", []int{wm(0, 9, 0)}, "mon0900"},
		{"mon0900_tue0900_wed0900_thu0900_fri0900",
			[]int{wm(0, 9, 0), wm(1, 9, 0), wm(2, 9, 0), wm(3, 9, 0), wm(4, 9, 0)},
			"mon0900_tue0900_wed0900_thu0900_fri0900"},
		{"mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900",
			[]int{wm(0, 12, 15), wm(1, 12, 15), wm(2, 12, 15), wm(3, 17, 0), wm(3, 19, 0), wm(4, 18, 0), wm(4, 19, 0)},
			"mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900"},
		{"sun2359_mon0000", []int{wm(0, 0, 0), wm(6, 23, 59)}, "mon0000_sun2359"},
		{"tue1700_0900", []int{wm(1, 9, 0), wm(1, 17, 0)}, "tue0900_1700"},
		{"sat0001_sun0000", []int{wm(5, 0, 1), wm(6, 0, 0)}, "sat0001_sun0000"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			e := eventMustParse(t, tt.in, nil)
			if got := e.Times(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Times() = %v, want %v", got, tt.want)
			}
			if got := e.String(); got != tt.canonical {
				t.Errorf("String() = %q, want %q", got, tt.canonical)
			}
			if e.Len() != len(tt.want) || e.Location() != time.UTC {
				t.Errorf("Len() = %d, Location() = %v", e.Len(), e.Location())
			}
		})
	}
}

func TestParseEventsErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `weekly: empty schedule`},
		{"mon0900_tue2500", `weekly: "tue2500" at offset 9: hour 25 out of range`},
		{"mon0960", `weekly: "mon0960" at offset 1: minute 60 out of range`},
		{"mon2400", `weekly: "mon2400" at offset 1: hour 24 out of range`},
		{"Mon0900", `weekly: "Mon0900" at offset 1: day "Mon" must be lower case (mon)`},
		{"mon0900_TUE0900", `weekly: "TUE0900" at offset 9: day "TUE" must be lower case (tue)`},
		{"monday0900", `weekly: "monday0900" at offset 1: unknown day "monday" (want mon, tue, wed, thu, fri, sat or sun)`},
		{"xyz0900", `weekly: "xyz0900" at offset 1: unknown day "xyz" (want mon, tue, wed, thu, fri, sat or sun)`},
		{"0900_mon1000", `weekly: "0900" at offset 1: a time without a day must follow an event (write e.g. mon0900)`},
		{"mon0900tue0900", `weekly: "mon0900tue0900" at offset 1: missing underscore after "mon0900"`},
		{"mon0900_1700wed0800", `weekly: "1700wed0800" at offset 9: missing underscore after "1700"`},
		{"mon900", `weekly: "mon900" at offset 1: time must be four digits HHMM`},
		{"mon09000", `weekly: "mon09000" at offset 1: time must be four digits HHMM`},
		{"mon09:00", `weekly: "mon09:00" at offset 1: unexpected character ":" in time`},
		{"mon", `weekly: "mon" at offset 1: missing time HHMM after the day`},
		{"mon0900_", `weekly: "" at offset 9: empty event (stray underscore)`},
		{"_mon0900", `weekly: "" at offset 1: empty event (stray underscore)`},
		{"mon0900__tue0900", `weekly: "" at offset 9: empty event (stray underscore)`},
		{"mon0900_tue0900_mon0900", `weekly: "mon0900" at offset 17: duplicate event mon 09:00`},
		{"thu1700_1700", `weekly: "1700" at offset 9: duplicate event thu 17:00`},
		{"mon0900 ", `weekly: "mon0900 " at offset 1: unexpected character " " in time`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseEvents(tt.in, time.UTC)
			if err == nil {
				t.Fatalf("ParseEvents(%q) succeeded, want error %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\n want   %q", err, tt.want)
			}
			var pe *EventParseError
			if !errors.As(err, &pe) || pe.Input != tt.in {
				t.Errorf("error %T is not an *EventParseError for the input", err)
			}
		})
	}
}

func TestLooksLikeEvents(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"mon0900_fri1700", true},
		{"Mon0900", true},
		{"tue2500", true},
		{"mon0900", true},
		{"0 9 * * 1", false},
		{"@daily", false},
		{"*/5 * * * *", false},
		{"CRON_TZ=UTC 0 9 * * *", false},
		{"mon", false},
		{"", false},
		{"0900", false},
	}
	for _, tt := range tests {
		if got := LooksLikeEvents(tt.in); got != tt.want {
			t.Errorf("LooksLikeEvents(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestEventString(t *testing.T) {
	for m, want := range map[int]string{0: "mon0000", 1440 + 8*60: "tue0800", MinutesPerWeek - 1: "sun2359", -1: "sun2359", MinutesPerWeek: "mon0000"} {
		if got := EventString(m); got != want {
			t.Errorf("EventString(%d) = %q, want %q", m, got, want)
		}
	}
}

func TestEventsNextPrevDST(t *testing.T) {
	ny := eventMustZone(t, "America/New_York")
	tests := []struct {
		name, spec string
		from       string
		next, prev string
	}{
		{"plain", "mon0900_fri1700", "2024-06-05T12:00:00-04:00", "2024-06-07T17:00:00-04:00", "2024-06-03T09:00:00-04:00"},
		{"exactly at event", "mon0900_fri1700", "2024-06-03T09:00:00-04:00", "2024-06-07T17:00:00-04:00", "2024-05-31T17:00:00-04:00"},
		{"wraps week", "mon0900", "2024-06-09T23:00:00-04:00", "2024-06-10T09:00:00-04:00", "2024-06-03T09:00:00-04:00"},
		// 2024-03-10 02:00 EST jumps to 03:00 EDT: 02:30 does not exist.
		{"gap runs after the gap", "sun0230", "2024-03-10T01:59:00-05:00", "2024-03-10T03:00:00-04:00", "2024-03-03T02:30:00-05:00"},
		{"gap prev", "sun0230", "2024-03-10T03:00:01-04:00", "2024-03-17T02:30:00-04:00", "2024-03-10T03:00:00-04:00"},
		// 2024-11-03 02:00 EDT falls back to 01:00 EST: 01:30 happens twice.
		{"repeat fires once", "sun0130", "2024-11-03T01:00:00-04:00", "2024-11-03T01:30:00-04:00", "2024-10-27T01:30:00-04:00"},
		{"second pass skipped", "sun0130", "2024-11-03T01:10:00-05:00", "2024-11-10T01:30:00-05:00", "2024-11-03T01:30:00-04:00"},
		{"second pass later event", "sun0130_0145_0300", "2024-11-03T01:40:00-05:00", "2024-11-03T03:00:00-05:00", "2024-11-03T01:45:00-04:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := eventMustParse(t, tt.spec, ny)
			from, _ := time.Parse(time.RFC3339, tt.from)
			if got := e.Next(from).Format(time.RFC3339); got != tt.next {
				t.Errorf("Next(%s) = %s, want %s", tt.from, got, tt.next)
			}
			if got := e.Prev(from).Format(time.RFC3339); got != tt.prev {
				t.Errorf("Prev(%s) = %s, want %s", tt.from, got, tt.prev)
			}
		})
	}
}

// eventBrute lists every firing instant of e whose wall date lies within
// [from-2 weeks, from+2 weeks] by resolving each event's civil time on each
// day independently, the way a reader of the docs would.
func eventBrute(e *Events, from time.Time) []time.Time {
	base := from.In(e.loc)
	y, mo, d := base.Date()
	var out []time.Time
	for dd := -15; dd <= 15; dd++ {
		day := time.Date(y, mo, d+dd, 12, 0, 0, 0, time.UTC)
		wd := (int(day.Weekday()) + 6) % 7 // Monday = 0
		for _, m := range e.Times() {
			if m/1440 != wd {
				continue
			}
			r := calendar.Resolve(e.loc, day.Year(), day.Month(), day.Day(), (m%1440)/60, m%60, 0)
			first, _, n := r.Instants(calendar.GapRun, calendar.RepeatOnce)
			if n > 0 {
				out = append(out, first)
			}
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

func TestEventsMatchBruteForce(t *testing.T) {
	zones := []string{"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia", "Asia/Kolkata"}
	// Instants near DST transitions of the zones above, plus ordinary ones.
	anchors := []string{
		"2024-03-10T07:00:00Z", "2024-11-03T06:00:00Z", "2024-03-31T01:00:00Z", "2024-10-27T01:00:00Z",
		"2024-04-06T15:00:00Z", "2024-10-05T16:00:00Z", "2024-04-07T03:00:00Z", "2024-09-08T04:00:00Z",
		"2011-12-29T10:00:00Z", "2024-06-15T12:00:00Z",
	}
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 400; iter++ {
		loc := eventMustZone(t, zones[rng.Intn(len(zones))])
		n := 1 + rng.Intn(6)
		var toks []string
		seen := map[int]bool{}
		for len(toks) < n {
			m := rng.Intn(MinutesPerWeek)
			if rng.Intn(2) == 0 { // bias towards the small hours where DST happens
				m = rng.Intn(7)*1440 + rng.Intn(4*60)
			}
			if !seen[m] {
				seen[m] = true
				toks = append(toks, EventString(m))
			}
		}
		spec := strings.Join(toks, "_")
		e := eventMustParse(t, spec, loc)
		anchor, _ := time.Parse(time.RFC3339, anchors[rng.Intn(len(anchors))])
		from := anchor.Add(time.Duration(rng.Intn(48*3600)-24*3600) * time.Second)
		all := eventBrute(e, from)
		var wantNext, wantPrev time.Time
		for _, at := range all {
			if at.After(from) && wantNext.IsZero() {
				wantNext = at
			}
			if at.Before(from) {
				wantPrev = at
			}
		}
		if got := e.Next(from); !got.Equal(wantNext) {
			t.Fatalf("%s in %s: Next(%s) = %s, want %s", spec, loc, from.In(loc), got, wantNext.In(loc))
		}
		if got := e.Prev(from); !got.Equal(wantPrev) {
			t.Fatalf("%s in %s: Prev(%s) = %s, want %s", spec, loc, from.In(loc), got, wantPrev.In(loc))
		}
	}
}

// TestEventsWalkEveryTransition checks, across a whole DST year, that walking
// with Next visits exactly the instants the brute force lists, each once.
func TestEventsWalkEveryTransition(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/Berlin", "Australia/Lord_Howe"} {
		t.Run(zone, func(t *testing.T) {
			loc := eventMustZone(t, zone)
			e := eventMustParse(t, "mon0900_sun0130_0230_0300_sat2359", loc)
			at := time.Date(2024, 1, 1, 0, 0, 0, 0, loc)
			end := at.AddDate(1, 0, 0)
			for at.Before(end) {
				next := e.Next(at)
				want := eventBrute(e, at)
				i := sort.Search(len(want), func(i int) bool { return want[i].After(at) })
				if !next.Equal(want[i]) {
					t.Fatalf("Next(%s) = %s, want %s", at, next, want[i])
				}
				if back := e.Prev(next.Add(time.Second)); !back.Equal(next) {
					t.Fatalf("Prev(%s+1s) = %s", next, back)
				}
				at = next
			}
		})
	}
}

func FuzzParseEvents(f *testing.F) {
	for _, s := range []string{
		"mon0900", "mon0900_tue0900_1700", "mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900",
		"", "_", "mon0900__tue", "Mon0900", "0900", "mon2400", "mon0900tue0900", "sun2359_mon0000",
		"mon0900_mon0900", "tue\xff0900", "mon09:00", "sun0230_0130",
	} {
		f.Add(s, int64(1710054000))
	}
	ny, err := calendar.LoadZone("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		e, err := ParseEvents(s, ny)
		if err != nil {
			var pe *EventParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is %T", err, err)
			}
			if pe.Offset < 0 || pe.Offset > len(s)+1 {
				t.Fatalf("offset %d outside input of length %d", pe.Offset, len(s))
			}
			return
		}
		again, err := ParseEvents(e.String(), ny)
		if err != nil || !reflect.DeepEqual(again.Times(), e.Times()) {
			t.Fatalf("round trip of %q via %q: %v", s, e.String(), err)
		}
		from := time.Unix(unix%(1<<36), 0) // keep within a few thousand years
		if next := e.Next(from); !next.After(from) || next.Sub(from) > 8*24*time.Hour {
			t.Fatalf("Next(%s) = %s", from, next)
		}
		if prev := e.Prev(from); !prev.Before(from) || from.Sub(prev) > 8*24*time.Hour {
			t.Fatalf("Prev(%s) = %s", from, prev)
		}
	})
}

func BenchmarkEventsNext(b *testing.B) {
	for _, zone := range []string{"UTC", "America/New_York"} {
		loc := eventMustZone(b, zone)
		e := eventMustParse(b, "mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900", loc)
		from := time.Date(2024, 6, 5, 13, 0, 0, 0, loc)
		b.Run(zone, func(b *testing.B) {
			b.ReportAllocs()
			var sink time.Time
			for i := 0; i < b.N; i++ {
				sink = e.Next(from)
			}
			_ = sink
		})
	}
}

func BenchmarkEventsPrev(b *testing.B) {
	loc := eventMustZone(b, "America/New_York")
	e := eventMustParse(b, "mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900", loc)
	from := time.Date(2024, 6, 5, 13, 0, 0, 0, loc)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = e.Prev(from)
	}
}

func BenchmarkParseEvents(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseEvents("mon1215_tue1215_wed1215_thu1700_1900_fri1800_1900", time.UTC); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleParseEvents() {
	loc, _ := calendar.LoadZone("america-new_york")
	e, _ := ParseEvents("mon0900_fri1700_1900", loc)
	at := time.Date(2024, 6, 5, 12, 0, 0, 0, loc)
	for i := 0; i < 3; i++ {
		at = e.Next(at)
		fmt.Println(at.Format(time.RFC3339))
	}
	// Output:
	// 2024-06-07T17:00:00-04:00
	// 2024-06-07T19:00:00-04:00
	// 2024-06-10T09:00:00-04:00
}
