package weekly

import (
	"reflect"
	"testing"
	"time"
)

// win parses a window or fails the test.
func win(t testing.TB, days []string, start string, length int64) Window {
	t.Helper()
	w, err := ParseWindow(days, start, length)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

const (
	tue = 1 * winMinutesPerDay
	wed = 2 * winMinutesPerDay
	sat = 5 * winMinutesPerDay
	sun = 6 * winMinutesPerDay
)

func TestNewCalendarMerges(t *testing.T) {
	type w = struct {
		days   []string
		start  string
		length int64
	}
	tests := []struct {
		name    string
		windows []w
		want    []Interval
		minutes int
	}{
		{"empty", nil, []Interval{}, 0},
		{
			// The example from Zincati's documentation: 150 minutes a week,
			// with the Sunday window split at the week boundary.
			"zincati example",
			[]w{{[]string{"Sat", "Sun"}, "23:30", 60}, {[]string{"Wed"}, "01:00", 30}},
			[]Interval{{0, 30}, {wed + 60, wed + 90}, {sat + 1410, sun + 30}, {sun + 1410, 10080}},
			150,
		},
		{
			"overlapping merge",
			[]w{{[]string{"Tue"}, "10:00", 60}, {[]string{"tue"}, "10:30", 60}},
			[]Interval{{tue + 600, tue + 690}}, 90,
		},
		{
			"touching merge",
			[]w{{[]string{"Tue"}, "10:00", 60}, {[]string{"tue"}, "11:00", 30}},
			[]Interval{{tue + 600, tue + 690}}, 90,
		},
		{
			"one minute apart stays apart",
			[]w{{[]string{"Tue"}, "10:00", 60}, {[]string{"tue"}, "11:01", 30}},
			[]Interval{{tue + 600, tue + 660}, {tue + 661, tue + 691}}, 90,
		},
		{
			"contained window",
			[]w{{[]string{"Sat"}, "00:00", 1440}, {[]string{"sat"}, "12:00", 5}},
			[]Interval{{sat, sun}}, 1440,
		},
		{
			"window spanning several days",
			[]w{{[]string{"Fri"}, "18:00", 3 * 1440}},
			[]Interval{{0, 18 * 60}, {4*1440 + 18*60, 10080}}, 3 * 1440,
		},
		{
			"whole week from Monday",
			[]w{{[]string{"Mon"}, "00:00", 10080}},
			[]Interval{{0, 10080}}, 10080,
		},
		{
			"whole week from Sunday noon closes the seam",
			[]w{{[]string{"Sun"}, "12:00", 10080}},
			[]Interval{{0, 10080}}, 10080,
		},
		{
			"every day, overlapping into each other",
			[]w{{[]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, "00:00", 1500}},
			[]Interval{{0, 10080}}, 10080,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws []Window
			for _, x := range tt.windows {
				ws = append(ws, win(t, x.days, x.start, x.length))
			}
			c := NewCalendar(nil, ws...)
			if got := c.Intervals(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Intervals() = %v, want %v", got, tt.want)
			}
			if got := c.WeeklyMinutes(); got != tt.minutes {
				t.Errorf("WeeklyMinutes() = %d, want %d", got, tt.minutes)
			}
			if c.Location() != time.UTC {
				t.Errorf("Location() = %v, want UTC", c.Location())
			}
		})
	}
}

func TestNewCalendarToleratesHandMadeWindows(t *testing.T) {
	c := NewCalendar(time.UTC,
		Window{Days: []time.Weekday{time.Monday}, Start: 0, Length: 0},         // ignored
		Window{Days: []time.Weekday{9, -1}, Start: 0, Length: 60},              // ignored days
		Window{Days: []time.Weekday{time.Sunday}, Start: 1440 + 60, Length: 5}, // carries into Monday
		Window{Days: []time.Weekday{time.Tuesday}, Start: -60, Length: 30},     // Monday 23:00
	)
	want := []Interval{{60, 65}, {23 * 60, 23*60 + 30}}
	if got := c.Intervals(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Intervals() = %v, want %v", got, want)
	}
	if got := NewCalendar(nil, Window{Days: []time.Weekday{time.Friday}, Length: 1 << 40}).WeeklyMinutes(); got != 10080 {
		t.Fatalf("over-long window covers %d minutes", got)
	}
}

func TestIntervalString(t *testing.T) {
	for iv, want := range map[Interval]string{
		{0, 30}:                "Mon 00:00 - Mon 00:30",
		{sat + 1410, sun + 30}: "Sat 23:30 - Sun 00:30",
		{sun + 1410, 10080}:    "Sun 23:30 - Mon 00:00",
	} {
		if got := iv.String(); got != want {
			t.Errorf("%v.String() = %q, want %q", [2]int{iv.Start, iv.End}, got, want)
		}
	}
}

// query is one expected answer of a calendar at an instant.
type query struct {
	at       string // RFC 3339
	inside   bool
	nextOpen string // RFC 3339, "" when none
	end      string // RFC 3339, "" when none
}

func checkQueries(t *testing.T, c *Calendar, qs []query) {
	t.Helper()
	for _, q := range qs {
		at, err := time.Parse(time.RFC3339Nano, q.at)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(q.at, func(t *testing.T) {
			if got := c.Contains(at); got != q.inside {
				t.Errorf("Contains = %v, want %v", got, q.inside)
			}
			no, ok := c.NextOpen(at)
			if got := fmtOpt(no, ok); got != q.nextOpen {
				t.Errorf("NextOpen = %q, want %q", got, q.nextOpen)
			}
			if ok && no.Location() != c.Location() {
				t.Errorf("NextOpen in %v, want %v", no.Location(), c.Location())
			}
			end, ok := c.CurrentEnd(at)
			if got := fmtOpt(end, ok); got != q.end {
				t.Errorf("CurrentEnd = %q, want %q", got, q.end)
			}
		})
	}
}

func fmtOpt(t time.Time, ok bool) string {
	if !ok {
		return ""
	}
	return t.In(t.Location()).Format(time.RFC3339Nano)
}

func TestQueriesUTC(t *testing.T) {
	// 2025-06-07 is a Saturday.
	c := NewCalendar(nil,
		win(t, []string{"Sat", "Sun"}, "23:30", 60),
		win(t, []string{"Wed"}, "01:00", 30))
	checkQueries(t, c, []query{
		{"2025-06-07T12:00:00Z", false, "2025-06-07T23:30:00Z", ""},
		{"2025-06-07T23:29:59.999Z", false, "2025-06-07T23:30:00Z", ""},
		{"2025-06-07T23:30:00Z", true, "2025-06-07T23:30:00Z", "2025-06-08T00:30:00Z"},
		{"2025-06-08T00:29:59.5Z", true, "2025-06-08T00:29:59.5Z", "2025-06-08T00:30:00Z"},
		// Half-open: the end minute is outside (Zincati would still admit it).
		{"2025-06-08T00:30:00Z", false, "2025-06-08T23:30:00Z", ""},
		// Sunday's window runs into Monday across the week boundary.
		{"2025-06-08T23:59:59Z", true, "2025-06-08T23:59:59Z", "2025-06-09T00:30:00Z"},
		{"2025-06-09T00:00:00Z", true, "2025-06-09T00:00:00Z", "2025-06-09T00:30:00Z"},
		{"2025-06-09T00:30:00Z", false, "2025-06-11T01:00:00Z", ""},
		{"2025-06-11T01:15:00Z", true, "2025-06-11T01:15:00Z", "2025-06-11T01:30:00Z"},
		// After Wednesday's window the next one is Saturday's.
		{"2025-06-11T01:30:00Z", false, "2025-06-14T23:30:00Z", ""},
		// An instant given in another zone is answered in the calendar's.
		{"2025-06-07T19:30:00-04:00", true, "2025-06-07T23:30:00Z", "2025-06-08T00:30:00Z"},
	})
}

func TestQueriesEdgeCalendars(t *testing.T) {
	at := time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC)
	empty := NewCalendar(nil)
	if empty.Contains(at) {
		t.Error("empty calendar contains an instant")
	}
	if _, ok := empty.NextOpen(at); ok {
		t.Error("empty calendar opens")
	}
	if _, ok := empty.CurrentEnd(at); ok {
		t.Error("empty calendar closes")
	}
	for _, name := range []string{"UTC", "America/New_York"} {
		full := NewCalendar(mustZone(t, name), win(t, []string{"Wed"}, "13:00", 10080))
		for _, at := range []time.Time{at, time.Date(2025, 11, 2, 6, 30, 0, 0, time.UTC), time.Date(2025, 3, 9, 7, 0, 0, 0, time.UTC)} {
			if !full.Contains(at) {
				t.Errorf("%s: whole-week calendar does not contain %v", name, at)
			}
			if got, ok := full.NextOpen(at); !ok || !got.Equal(at) {
				t.Errorf("%s: whole-week NextOpen(%v) = %v, %v", name, at, got, ok)
			}
			if got, ok := full.CurrentEnd(at); ok {
				t.Errorf("%s: whole-week calendar closes at %v", name, got)
			}
		}
	}
	// Almost a whole week: the one closed minute is found from anywhere.
	almost := NewCalendar(nil, win(t, []string{"Mon"}, "00:01", 10079))
	checkQueries(t, almost, []query{
		{"2025-06-04T10:00:00Z", true, "2025-06-04T10:00:00Z", "2025-06-09T00:00:00Z"},
		{"2025-06-09T00:00:30Z", false, "2025-06-09T00:01:00Z", ""},
	})
}

// TestQueriesNewYorkDST pins the wall-clock rule on the two transition days
// of 2025 in America/New_York: clocks jump from 02:00 EST to 03:00 EDT on
// Sunday 9 March and fall back from 02:00 EDT to 01:00 EST on Sunday
// 2 November.
func TestQueriesNewYorkDST(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	t.Run("spanning the skipped hour is an hour shorter", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "01:00", 120))
		checkQueries(t, c, []query{
			{"2025-03-09T00:30:00-05:00", false, "2025-03-09T01:00:00-05:00", ""},
			{"2025-03-09T01:59:59-05:00", true, "2025-03-09T01:59:59-05:00", "2025-03-09T03:00:00-04:00"},
			{"2025-03-09T03:00:00-04:00", false, "2025-03-16T01:00:00-04:00", ""},
		})
	})
	t.Run("starting in the skipped hour opens when it ends", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "02:30", 60))
		checkQueries(t, c, []query{
			{"2025-03-09T01:59:00-05:00", false, "2025-03-09T03:00:00-04:00", ""},
			{"2025-03-09T03:00:00-04:00", true, "2025-03-09T03:00:00-04:00", "2025-03-09T03:30:00-04:00"},
		})
	})
	t.Run("wholly inside the skipped hour does not open that day", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "02:15", 30))
		checkQueries(t, c, []query{
			{"2025-03-09T01:00:00-05:00", false, "2025-03-16T02:15:00-04:00", ""},
			{"2025-03-09T03:00:00-04:00", false, "2025-03-16T02:15:00-04:00", ""},
		})
	})
	t.Run("windows either side of the skipped hour meet", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "01:00", 60), win(t, []string{"Sun"}, "03:00", 60))
		checkQueries(t, c, []query{
			{"2025-03-09T01:30:00-05:00", true, "2025-03-09T01:30:00-05:00", "2025-03-09T04:00:00-04:00"},
			// On an ordinary Sunday they are two windows.
			{"2025-03-16T01:30:00-04:00", true, "2025-03-16T01:30:00-04:00", "2025-03-16T02:00:00-04:00"},
		})
	})
	t.Run("spanning the repeated hour is an hour longer", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "01:30", 60))
		checkQueries(t, c, []query{
			{"2025-11-02T01:29:00-04:00", false, "2025-11-02T01:30:00-04:00", ""},
			{"2025-11-02T01:30:00-04:00", true, "2025-11-02T01:30:00-04:00", "2025-11-02T02:30:00-05:00"},
			// The clock has shown 01:59 already: the second 01:10 is still inside.
			{"2025-11-02T01:10:00-05:00", true, "2025-11-02T01:10:00-05:00", "2025-11-02T02:30:00-05:00"},
			{"2025-11-02T02:29:59-05:00", true, "2025-11-02T02:29:59-05:00", "2025-11-02T02:30:00-05:00"},
			{"2025-11-02T02:30:00-05:00", false, "2025-11-09T01:30:00-05:00", ""},
		})
	})
	t.Run("inside the repeated hour opens once", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sun"}, "01:00", 30))
		checkQueries(t, c, []query{
			{"2025-11-02T01:00:00-04:00", true, "2025-11-02T01:00:00-04:00", "2025-11-02T01:30:00-04:00"},
			{"2025-11-02T01:30:00-04:00", false, "2025-11-09T01:00:00-05:00", ""},
			{"2025-11-02T01:10:00-05:00", false, "2025-11-09T01:00:00-05:00", ""},
		})
	})
	t.Run("ending inside the repeated hour ends at its first pass", func(t *testing.T) {
		c := NewCalendar(ny, win(t, []string{"Sat"}, "23:00", 150)) // Sat 23:00 - Sun 01:30
		checkQueries(t, c, []query{
			{"2025-11-02T00:00:00-04:00", true, "2025-11-02T00:00:00-04:00", "2025-11-02T01:30:00-04:00"},
			{"2025-11-02T01:15:00-05:00", false, "2025-11-08T23:00:00-05:00", ""},
		})
	})
}

// TestQueriesBerlinDST: Europe/Berlin moves from 02:00 CET to 03:00 CEST on
// 30 March 2025 and from 03:00 CEST back to 02:00 CET on 26 October 2025.
func TestQueriesBerlinDST(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	c := NewCalendar(berlin, win(t, []string{"Sun"}, "02:00", 60), win(t, []string{"Sun"}, "02:30", 60))
	checkQueries(t, c, []query{
		// [02:00, 03:30): the first hour never happens in March.
		{"2025-03-30T01:00:00+01:00", false, "2025-03-30T03:00:00+02:00", ""},
		{"2025-03-30T03:00:00+02:00", true, "2025-03-30T03:00:00+02:00", "2025-03-30T03:30:00+02:00"},
		{"2025-03-30T03:30:00+02:00", false, "2025-04-06T02:00:00+02:00", ""},
		// In October it runs from 02:00 CEST to 03:30 CET: two and a half hours.
		{"2025-10-26T02:00:00+02:00", true, "2025-10-26T02:00:00+02:00", "2025-10-26T03:30:00+01:00"},
		{"2025-10-26T02:10:00+01:00", true, "2025-10-26T02:10:00+01:00", "2025-10-26T03:30:00+01:00"},
		{"2025-10-26T03:30:00+01:00", false, "2025-11-02T02:00:00+01:00", ""},
	})
}

// TestQueriesOutsideZoneTable exercises instants beyond the precomputed zone
// table, answered from the time package directly.
func TestQueriesOutsideZoneTable(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	c := NewCalendar(ny, win(t, []string{"Sun"}, "01:30", 60))
	checkQueries(t, c, []query{
		// 2125-11-04 and 1966-10-30 are fall-back Sundays.
		{"2125-11-04T01:10:00-05:00", true, "2125-11-04T01:10:00-05:00", "2125-11-04T02:30:00-05:00"},
		{"2125-11-03T12:00:00-05:00", false, "2125-11-04T01:30:00-04:00", ""},
		{"1966-10-30T01:10:00-05:00", true, "1966-10-30T01:10:00-05:00", "1966-10-30T02:30:00-05:00"},
		// The last day of a leap year, where the time package's zone bounds
		// need care past the last listed transition.
		{"2140-12-31T12:00:00-05:00", false, "2141-01-01T01:30:00-05:00", ""},
	})
}
