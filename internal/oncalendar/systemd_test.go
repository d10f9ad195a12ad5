package oncalendar

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// referenceEvents are systemd's own test cases (test-calendarspec.c) and
// the examples of systemd.time(7), plus forms this package's tests care
// about (DST, ~, fractions, repetitions).
var referenceEvents = []string{
	// test-calendarspec.c
	"Sat,Thu,Mon-Wed,Sat-Sun", "Sat,Thu,Mon..Wed,Sat..Sun", "Mon,Sun 12-*-* 2,1:23", "Wed *-1",
	"Wed-Wed,Wed *-1", "Wed..Wed,Wed *-1", "Wed, 17:48", "Wed-Sat,Tue 12-10-15 1:2:3",
	"Wed..Sat,Tue 12-10-15 1:2:3", "*-*-7 0:0:0", "10-15", "monday *-12-* 17:00",
	"Mon,Fri *-*-3,1,2 *:30:45", "12,14,13,12:20,10,30", "mon,fri *-1/2-1,3 *:30:45",
	"03-05 08:05:40", "08:05:40", "05:40", "Sat,Sun 12-05 08:05:40", "Sat,Sun 08:05:40",
	"2003-03-05 05:40", "2003-03-05", "03-05", "hourly", "daily", "monthly", "weekly",
	"minutely", "quarterly", "semi-annually", "annually", "*:2/3", "2015-10-25 01:00:00 uTc",
	"2016-03-27 03:17:00.4200005", "2016-03-27 03:17:00/0.42", "9..11,13:00,30",
	"1..3-1..3 1..3:1..3", "00:00:1.125..2.125", "00:00:1.0..3.8", "*-*~1 Utc", "*-*~05,3",
	"*-*~* 00:00:00", "Monday", "Monday *-*-*", "*-*-*", "*-04-31", "2016-02~01 UTC",
	"Mon 2017-05~01..07 UTC", "Mon 2017-05~07/1 UTC", "Sun 16:00:00",
	"2015-11-13 09:11:23.42/1.77",
	"test", " utc", "7", "121212:1:2", "2000-03-05.23 00:00:00", "2000-03-05 00:00.1:00",
	"00:00:00/0.00000001", "00:00:00.0..00.9", "2016~11-22", "*-*~5/5",
	// systemd.time(7)
	"Sat,Thu,Mon..Wed,Sat..Sun", "Mon,Sun 12-*-* 2,1:23", "Wed *-1", "Wed..Wed,Wed *-1",
	"Wed, 17:48", "Wed..Sat,Tue 12-10-15 1:2:3", "*-*-7 0:0:0", "10-15", "monday *-12-* 17:00",
	"Mon,Fri *-*-3,1,2 *:30:45", "12,14,13,12:20,10,30", "12..14:10,20,30",
	"mon,fri *-1/2-1,3 *:30:45", "03-05 08:05:40", "08:05:40", "05:40", "Sat,Sun 12-05 08:05:40",
	"Sat,Sun 08:05:40", "2003-03-05 05:40", "05:40:23.4200004/3.1700005", "2003-02..04-05",
	"2003-03-05 05:40 UTC", "2003-03-05", "03-05", "*:2/3", "yearly", "*-*~03",
	"Mon *-05~07/1", "Mon 2017-05~01..07 UTC", "*-*-* 00:00:00 Asia/Tokyo", "2021-12-24 12:00 Europe/Berlin",
	"Thu,Fri 2012-*-1,5 11:12:13", "*-*-* *:*:00", "*-*-* *:00:00", "*-*-* 00:00:00",
	"*-*-01 00:00:00", "Mon *-*-* 00:00:00", "*-01-01 00:00:00", "*-01,04,07,10-01 00:00:00",
	"*-01,07-01 00:00:00",
	// more
	"Mon..Fri *-*-* 09:00", "*:0/15", "*-*-* 02:30", "*-*-* 01:30", "*-*-* 00:00", "*:0/30",
	"*-*-* 02:00/20:00", "*-*-* *:*:1.5", "*-*-* *:*:0/0.25", "Mon..Fri 9..17:00/30",
	"*-02-29 12:00", "Fri *-*-13", "2020..2030/3-1-1", "*-*~1..3", "*-*-29..31", "*-2-30",
	"*:50/15", "0/60:00", "*-*~07/2", "*-*~1..6/2", "Sun..Mon", "Fri 13", "5..3:00", "1..1:00",
	"@1600000000", "bi-annually", "semiannually", "anually", "*-*-* 23:30", "*-12-31 23:59:59",
	"*-*-* *:*:59.999999", "Tue..Thu,Sat *-*-1..7 6:00", "2199-12-31 23:59", "1969-01-01",
	"*-*-* 24:00", "*-13-01", "*:*:60", "Mon..", "Mon,,Tue", "*-*-* 12:00 Not/AZone",
	"12:00 GMT", "*-*-* 03:00 America/Santiago", "Sat 2026-03-29 02:30 Europe/Berlin",
	"*:0/30 Europe/Berlin", "*-*-* 02:30 America/New_York", "*-*-* 01:30 America/New_York",
	"*-*-* 00:00 America/Santiago", "*-*-* 02:15 Australia/Lord_Howe", "*:*:0/20 Europe/Berlin",
	"Sun *-*-* 02:00..03:00/15:00 Europe/Berlin",
}

// referenceZones are the zones the differential test runs in, as the TZ of
// systemd-analyze and the zone given to Parse: DST in both hemispheres, a
// midnight transition, a half-hour transition and none.
var referenceZones = []string{"UTC", "Europe/Berlin", "America/New_York", "America/Santiago", "Australia/Lord_Howe", "Asia/Kolkata"}

// referenceBases are the instants the iterations start from: ordinary
// days and the eves of DST changes.
var referenceBases = []time.Time{
	time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 3, 28, 22, 0, 0, 0, time.UTC),
	time.Date(2026, 10, 24, 23, 30, 0, 0, time.UTC),
	time.Date(2026, 10, 25, 1, 10, 0, 0, time.UTC),
	time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC),
	time.Date(2026, 9, 5, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 4, 4, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 4, 4, 14, 0, 0, 0, time.UTC),
}

// reference is systemd-analyze's answer for one event.
type reference struct {
	ok         bool
	normalized string
	next       []time.Time // truncated to seconds, as systemd-analyze prints
}

// systemdAnalyze asks systemd-analyze about every event in zone tz from
// base, iterations times each.
func systemdAnalyze(t *testing.T, bin, tz string, base time.Time, iterations int, events []string) map[string]reference {
	t.Helper()
	args := append([]string{"calendar", "--iterations=" + itoa(iterations),
		"--base-time=" + base.UTC().Format("2006-01-02 15:04:05") + " UTC", "--"}, events...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TZ="+tz, "LC_ALL=C", "SYSTEMD_COLORS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // non-zero when any event is refused
	// A refused event has a line on stderr and no block on stdout; the
	// blocks of the others come in order, each starting with "Original
	// form" (printed only when it differs) or "Normalized form".
	failed := map[string]bool{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "Failed to parse calendar specification '"); ok {
			if i := strings.LastIndex(rest, "': "); i >= 0 {
				failed[rest[:i]] = true
			}
		}
	}
	var blocks []reference
	open := false
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		key, val, _ := strings.Cut(strings.TrimLeft(sc.Text(), " "), ": ")
		if key == "Original form" || key == "Normalized form" && !open {
			blocks = append(blocks, reference{ok: true})
		}
		open = key == "Original form"
		r := &blocks[len(blocks)-1]
		switch {
		case key == "Normalized form":
			r.normalized = val
		case key == "Next elapse" && val == "never":
		case key == "Next elapse" || strings.HasPrefix(key, "Iter."):
			r.next = append(r.next, parseAnalyzeTime(t, val))
		case key == "(in UTC)":
			r.next[len(r.next)-1] = parseAnalyzeTime(t, val)
		}
	}
	out := map[string]reference{}
	i := 0
	for _, e := range events {
		if failed[e] {
			out[e] = reference{}
			continue
		}
		if i >= len(blocks) {
			t.Fatalf("systemd-analyze printed %d blocks for more events", len(blocks))
		}
		out[e] = blocks[i]
		i++
	}
	return out
}

// parseAnalyzeTime reads "Sun 2026-10-25 00:30:00 UTC" (or another zone
// abbreviation, which the "(in UTC)" line replaces).
func parseAnalyzeTime(t *testing.T, s string) time.Time {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 4 {
		t.Fatalf("unexpected systemd-analyze time %q", s)
	}
	v, err := time.Parse("2006-01-02 15:04:05", f[1]+" "+f[2])
	if err != nil {
		t.Fatalf("unexpected systemd-analyze time %q: %v", s, err)
	}
	return v
}

// TestAgainstSystemd compares Parse, String and Next with systemd-analyze
// on systemd's test cases and the man page's examples, in several zones,
// from bases around DST changes.
func TestAgainstSystemd(t *testing.T) {
	bin := testenv.LookPath(t, "systemd-analyze", "scripts/test.d/systemd.sh installs it (apt-get install systemd)", "systemd-analyze")
	const iterations = 6
	for _, tz := range referenceZones {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		for _, base := range referenceBases {
			if testing.Short() && tz != "Europe/Berlin" {
				continue
			}
			ref := systemdAnalyze(t, bin, tz, base, iterations, referenceEvents)
			for _, e := range referenceEvents {
				want := ref[e]
				s, err := Parse(e, loc)
				if (err == nil) != want.ok {
					t.Errorf("%s: Parse(%q) error = %v, systemd accepts it: %v", tz, e, err, want.ok)
					continue
				}
				if err != nil {
					continue
				}
				if s.String() != want.normalized {
					t.Errorf("Parse(%q).String() = %q, systemd: %q", e, s.String(), want.normalized)
				}
				var got []time.Time
				for at := s.Next(base); !at.IsZero() && len(got) < iterations; at = s.Next(at) {
					got = append(got, at.UTC().Truncate(time.Second))
				}
				if !equalTimes(got, want.next) {
					t.Errorf("%s from %s: %q fires at\n  %v\nsystemd:\n  %v", tz, base.Format(time.RFC3339), e, got, want.next)
				}
			}
		}
	}
}

func equalTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
