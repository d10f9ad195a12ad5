package cron

import (
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestNextTable lists expected fire sequences, written out by hand.
func TestNextTable(t *testing.T) {
	tests := []struct {
		name string
		expr string
		opts []Option
		from string
		want []string
	}{
		{"every minute", "* * * * *", nil, "2025-06-18T10:17:23Z", []string{"2025-06-18T10:18:00Z", "2025-06-18T10:19:00Z"}},
		{"strictly after", "*/5 * * * *", nil, "2025-06-18T10:20:00Z", []string{"2025-06-18T10:25:00Z"}},
		{"sub-second", "*/5 * * * *", nil, "2025-06-18T10:19:59.999Z", []string{"2025-06-18T10:20:00Z"}},
		{"weekdays", "0 9 * * 1-5", nil, "2025-06-20T09:00:00Z", []string{"2025-06-23T09:00:00Z", "2025-06-24T09:00:00Z"}},
		{"seconds field", "*/20 * * * * *", nil, "2025-06-18T10:17:23Z", []string{"2025-06-18T10:17:40Z", "2025-06-18T10:18:00Z"}},
		{"vixie or rule", "0 9 1-7 * 2", nil, "2025-06-01T10:00:00Z", []string{"2025-06-02T09:00:00Z", "2025-06-03T09:00:00Z", "2025-06-04T09:00:00Z", "2025-06-05T09:00:00Z", "2025-06-06T09:00:00Z", "2025-06-07T09:00:00Z", "2025-06-10T09:00:00Z"}},
		{"star step dom means and", "0 9 */7 * 2", nil, "2025-06-01T00:00:00Z", []string{"2025-07-01T09:00:00Z", "2025-07-08T09:00:00Z"}},
		{"first tuesday", "0 9 * * 2#1", nil, "2025-06-01T00:00:00Z", []string{"2025-06-03T09:00:00Z", "2025-07-01T09:00:00Z"}},
		{"leap day", "0 0 29 2 *", nil, "2025-06-18T00:00:00Z", []string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"leap day skips 2100", "0 0 29 2 *", nil, "2096-03-01T00:00:00Z", []string{"2104-02-29T00:00:00Z"}},
		{"feb 29 on a monday", "0 0 * 2 1#5", nil, "2073-01-01T00:00:00Z", []string{"2112-02-29T00:00:00Z"}},
		{"feb 29 or monday", "0 0 29 2 1", nil, "2073-01-01T00:00:00Z", []string{"2073-02-06T00:00:00Z", "2073-02-13T00:00:00Z"}},
		{"last day", "0 0 L * *", nil, "2024-01-31T00:00:00Z", []string{"2024-02-29T00:00:00Z", "2024-03-31T00:00:00Z", "2024-04-30T00:00:00Z"}},
		{"last day 2100", "0 0 L 2 *", nil, "2100-01-01T00:00:00Z", []string{"2100-02-28T00:00:00Z"}},
		{"last weekday", "0 0 LW * *", nil, "2025-05-01T00:00:00Z", []string{"2025-05-30T00:00:00Z", "2025-06-30T00:00:00Z", "2025-07-31T00:00:00Z", "2025-08-29T00:00:00Z"}},
		{"nearest weekday", "0 0 15W * *", nil, "2025-03-01T00:00:00Z", []string{"2025-03-14T00:00:00Z", "2025-04-15T00:00:00Z", "2025-05-15T00:00:00Z", "2025-06-16T00:00:00Z"}},
		{"1W saturday", "0 0 1W * *", nil, "2025-01-31T00:00:00Z", []string{"2025-02-03T00:00:00Z", "2025-03-03T00:00:00Z"}},
		{"last friday", "0 0 * * 5L", nil, "2025-01-01T00:00:00Z", []string{"2025-01-31T00:00:00Z", "2025-02-28T00:00:00Z", "2025-03-28T00:00:00Z"}},
		{"31st only in long months", "0 0 31 * *", nil, "2025-01-31T00:00:00Z", []string{"2025-03-31T00:00:00Z", "2025-05-31T00:00:00Z"}},
		{"year 1", "0 0 1 1 *", nil, "0001-01-01T00:00:00Z", []string{"0002-01-01T00:00:00Z"}},
		{"far future", "0 0 29 2 1", nil, "9999-01-01T00:00:00Z", []string{"9999-02-01T00:00:00Z"}},
		{"every 90m", "@every 90m", nil, "2025-06-18T10:17:23Z", []string{"2025-06-18T10:30:00Z", "2025-06-18T12:00:00Z"}},
		{"every 7s", "@every 7s", nil, "1970-01-01T00:00:00Z", []string{"1970-01-01T00:00:07Z", "1970-01-01T00:00:14Z"}},
		{"every in a zone is real time", "CRON_TZ=America/New_York @every 1h", nil, "2025-03-09T06:00:00Z", []string{"2025-03-09T03:00:00-04:00", "2025-03-09T04:00:00-04:00"}},

		// America/New_York, 2025-03-09: 02:00 EST -> 03:00 EDT.
		{"ny gap fixed runs after gap", "CRON_TZ=America/New_York 30 2 * * *", nil, "2025-03-08T12:00:00-05:00", []string{"2025-03-09T03:00:00-04:00", "2025-03-10T02:30:00-04:00"}},
		{"ny gap fixed skip", "CRON_TZ=America/New_York 30 2 * * *", []Option{WithDSTGap(calendar.GapSkip)}, "2025-03-08T12:00:00-05:00", []string{"2025-03-10T02:30:00-04:00"}},
		{"ny gap two times collapse", "CRON_TZ=America/New_York 0,30 2 * * *", nil, "2025-03-09T01:00:00-05:00", []string{"2025-03-09T03:00:00-04:00", "2025-03-10T02:00:00-04:00"}},
		{"ny gap and 3am", "CRON_TZ=America/New_York 30 2,3 * * *", nil, "2025-03-09T01:00:00-05:00", []string{"2025-03-09T03:00:00-04:00", "2025-03-09T03:30:00-04:00"}},
		{"ny gap wildcard follows real time", "CRON_TZ=America/New_York */30 * * * *", nil, "2025-03-09T01:00:00-05:00", []string{"2025-03-09T01:30:00-05:00", "2025-03-09T03:00:00-04:00", "2025-03-09T03:30:00-04:00"}},
		{"ny gap hourly", "CRON_TZ=America/New_York 15 * * * *", nil, "2025-03-09T01:00:00-05:00", []string{"2025-03-09T01:15:00-05:00", "2025-03-09T03:15:00-04:00"}},
		{"ny gap hour wildcard minute", "CRON_TZ=America/New_York * 2 * * *", nil, "2025-03-09T01:00:00-05:00", []string{"2025-03-10T02:00:00-04:00"}},
		// America/New_York, 2025-11-02: 02:00 EDT -> 01:00 EST.
		{"ny repeat fixed once", "CRON_TZ=America/New_York 30 1 * * *", nil, "2025-11-01T12:00:00-04:00", []string{"2025-11-02T01:30:00-04:00", "2025-11-03T01:30:00-05:00"}},
		{"ny repeat fixed twice", "CRON_TZ=America/New_York 30 1 * * *", []Option{WithDSTRepeat(calendar.RepeatTwice)}, "2025-11-01T12:00:00-04:00", []string{"2025-11-02T01:30:00-04:00", "2025-11-02T01:30:00-05:00", "2025-11-03T01:30:00-05:00"}},
		{"ny repeat from inside second copy", "CRON_TZ=America/New_York 30 1 * * *", nil, "2025-11-02T01:10:00-05:00", []string{"2025-11-03T01:30:00-05:00"}},
		{"ny repeat wildcard real time", "CRON_TZ=America/New_York */30 * * * *", nil, "2025-11-02T00:45:00-04:00", []string{"2025-11-02T01:00:00-04:00", "2025-11-02T01:30:00-04:00", "2025-11-02T01:00:00-05:00", "2025-11-02T01:30:00-05:00", "2025-11-02T02:00:00-05:00"}},
		// Europe/Berlin 2025: 03-30 02:00 -> 03:00, 10-26 03:00 -> 02:00.
		{"berlin gap", "TZ=Europe/Berlin 15 2 * * *", nil, "2025-03-29T12:00:00+01:00", []string{"2025-03-30T03:00:00+02:00", "2025-03-31T02:15:00+02:00"}},
		{"berlin repeat", "TZ=Europe/Berlin 15 2 * * *", nil, "2025-10-25T12:00:00+02:00", []string{"2025-10-26T02:15:00+02:00", "2025-10-27T02:15:00+01:00"}},
		{"berlin tag form", "TZ=europe-berlin 15 2 * * *", nil, "2025-10-25T12:00:00+02:00", []string{"2025-10-26T02:15:00+02:00"}},
		// Australia/Lord_Howe: 30-minute shifts. 2025-10-05 02:00 -> 02:30; 2025-04-06 02:00 -> 01:30.
		{"lord howe gap", "TZ=Australia/Lord_Howe 0 2 * * *", nil, "2025-10-04T12:00:00+10:30", []string{"2025-10-05T02:30:00+11:00", "2025-10-06T02:00:00+11:00"}},
		{"lord howe gap wildcard", "TZ=Australia/Lord_Howe */15 * * * *", nil, "2025-10-05T01:50:00+10:30", []string{"2025-10-05T02:30:00+11:00", "2025-10-05T02:45:00+11:00"}},
		{"lord howe repeat", "TZ=Australia/Lord_Howe 45 1 * * *", nil, "2025-04-05T12:00:00+11:00", []string{"2025-04-06T01:45:00+11:00", "2025-04-07T01:45:00+10:30"}},
		// America/Sao_Paulo 2018-11-04: 00:00 -> 01:00 (midnight gap).
		{"sao paulo midnight gap", "TZ=America/Sao_Paulo 0 0 * * *", nil, "2018-11-03T12:00:00-03:00", []string{"2018-11-04T01:00:00-02:00", "2018-11-05T00:00:00-02:00"}},
		{"sao paulo monthly across gap", "TZ=America/Sao_Paulo 0 9 10 * *", nil, "2018-10-15T00:00:00-03:00", []string{"2018-11-10T09:00:00-02:00", "2018-12-10T09:00:00-02:00"}},
		{"sao paulo skip", "TZ=America/Sao_Paulo 0 0 * * *", []Option{WithDSTGap(calendar.GapSkip)}, "2018-11-03T12:00:00-03:00", []string{"2018-11-05T00:00:00-02:00"}},
		// Pacific/Apia skipped 2011-12-30 entirely.
		{"apia skipped day", "TZ=Pacific/Apia 0 12 * * *", nil, "2011-12-29T13:00:00-10:00", []string{"2011-12-31T00:00:00+14:00", "2011-12-31T12:00:00+14:00"}},
		{"ny leap day", "CRON_TZ=America/New_York 0 0 29 2 *", nil, "2096-03-01T00:00:00-05:00", []string{"2104-02-29T00:00:00-05:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.expr, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			cur := mustTime(t, tt.from)
			for i, w := range tt.want {
				next := s.Next(cur)
				if got := next.Format(time.RFC3339); got != w {
					t.Fatalf("fire %d after %s: got %s, want %s", i, cur.Format(time.RFC3339Nano), got, w)
				}
				if p := s.Prev(next.Add(time.Nanosecond)); !p.Equal(next) {
					t.Errorf("Prev(%s+1ns) = %s", next, p)
				}
				cur = next
			}
			if n := s.Count(mustTime(t, tt.from), cur); n != int64(len(tt.want)) {
				t.Errorf("Count = %d, want %d", n, len(tt.want))
			}
		})
	}
}

func TestCountLongRanges(t *testing.T) {
	from := mustTime(t, "2000-01-01T00:00:00Z")
	to := mustTime(t, "2100-01-01T00:00:00Z")
	days := int64(to.Sub(from) / (24 * time.Hour))
	tests := []struct {
		expr string
		want int64
	}{
		{"* * * * *", days * 1440},
		{"* * * * * *", days * 86400},
		{"0 0 * * *", days},
		{"0 0 29 2 *", 25}, // 2000..2096
		{"@every 1h", days * 24},
		{"0 0 1 * *", 1200},
		{"CRON_TZ=America/New_York 30 2 * * *", days},            // gaps still fire once
		{"CRON_TZ=America/New_York 30 1 * * *", days},            // repeats fire once
		{"CRON_TZ=America/New_York 0 * * * *", days * 24},        // real hours
		{"CRON_TZ=America/New_York */15 * * * *", days * 24 * 4}, // real quarter hours
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			f, tt2 := from, to
			if s.Location() != time.UTC {
				// Align the range to the zone's midnight.
				f = time.Date(2000, 1, 1, 0, 0, 0, 0, s.Location()).Add(-time.Second)
				tt2 = time.Date(2100, 1, 1, 0, 0, 0, 0, s.Location()).Add(-time.Second)
			}
			if got := s.Count(f, tt2); got != tt.want {
				t.Errorf("Count = %d, want %d", got, tt.want)
			}
			if got := s.Count(tt2, f); got != 0 {
				t.Errorf("reversed Count = %d", got)
			}
		})
	}
}

func TestNextAllocs(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	for _, e := range []string{"*/5 * * * *", "0 0 29 2 *", "30 1 * * *", "0 9 * * 2#1"} {
		for _, loc := range []*time.Location{time.UTC, ny} {
			s, _ := Parse(e, WithLocation(loc))
			at := time.Date(2025, 11, 2, 0, 59, 0, 0, loc)
			if n := testing.AllocsPerRun(100, func() { at = s.Next(at); _ = s.Prev(at) }); n != 0 {
				t.Errorf("%q in %s: %v allocs per Next+Prev", e, loc, n)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s, _ := Parse("CRON_TZ=Europe/Berlin */7 1-3 * * *")
	done := make(chan time.Time)
	for g := 0; g < 4; g++ {
		go func() {
			cur := time.Date(2025, 3, 29, 0, 0, 0, 0, time.UTC)
			for i := 0; i < 200; i++ {
				cur = s.Next(cur)
			}
			done <- cur
		}()
	}
	first := <-done
	for g := 1; g < 4; g++ {
		if v := <-done; !v.Equal(first) {
			t.Fatalf("goroutines disagree: %s vs %s", v, first)
		}
	}
}
