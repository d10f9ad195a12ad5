package importer_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/testenv"
)

// TestImportedTimersFireAsSystemd imports the sample timers with the host
// zone set to each of several zones, compiles the manifest, and checks
// every job's next fires from bases around DST changes against
// `systemd-analyze calendar` run in that zone: a timer elapses at the
// earliest next instant of any of its OnCalendar= lines.
func TestImportedTimersFireAsSystemd(t *testing.T) {
	bin := testenv.LookPath(t, "systemd-analyze", "scripts/test.d/systemd.sh installs it (apt-get install systemd)", "systemd-analyze")
	bases := []time.Time{time.Date(2026, 3, 28, 20, 0, 0, 0, time.UTC), time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)}
	const n = 8
	for _, zone := range []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"} {
		t.Run(zone, func(t *testing.T) {
			res := timerDirImport(t, timerDir, importer.TimerOptions{Zone: zone})
			set := compileManifest(t, "timers", res)
			for _, spec := range set.Jobs {
				sched := specSchedule(t, spec)
				for _, base := range bases {
					var want []time.Time
					for _, e := range spec.OnCalendar {
						want = append(want, analyzeCalendar(t, bin, zone, base, n, e)...)
					}
					want = firstUnique(want, n)
					var got []time.Time
					for at := sched.Next(base); !at.IsZero() && len(got) < n; at = sched.Next(at) {
						got = append(got, at.UTC().Truncate(time.Second))
					}
					if !slices.EqualFunc(got, want, time.Time.Equal) {
						t.Errorf("%s (%q) from %s: imported job fires at\n  %v\nsystemd:\n  %v", spec.Name, spec.OnCalendar, base, got, want)
					}
				}
			}
		})
	}
}

// analyzeCalendar returns systemd-analyze's next n elapses of one event
// after base, in zone, as UTC instants truncated to the second.
func analyzeCalendar(t *testing.T, bin, zone string, base time.Time, n int, expr string) []time.Time {
	t.Helper()
	cmd := exec.Command(bin, "calendar", "--iterations="+strconv.Itoa(n),
		"--base-time="+base.UTC().Format("2006-01-02 15:04:05")+" UTC", "--", expr)
	cmd.Env = append(os.Environ(), "TZ="+zone, "LC_ALL=C", "SYSTEMD_COLORS=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("systemd-analyze calendar %q: %v", expr, err)
	}
	var times []time.Time
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		key, val, _ := strings.Cut(strings.TrimSpace(sc.Text()), ": ")
		if key != "Next elapse" && !strings.HasPrefix(key, "Iter.") && key != "(in UTC)" {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 4 {
			continue // "never"
		}
		at, err := time.Parse("2006-01-02 15:04:05", f[1]+" "+f[2])
		if err != nil {
			t.Fatalf("systemd-analyze time %q: %v", val, err)
		}
		if key == "(in UTC)" {
			times[len(times)-1] = at
		} else {
			times = append(times, at)
		}
	}
	return times
}

// firstUnique returns the n earliest distinct instants.
func firstUnique(ts []time.Time, n int) []time.Time {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	var out []time.Time
	for _, x := range ts {
		if len(out) < n && (len(out) == 0 || !out[len(out)-1].Equal(x)) {
			out = append(out, x)
		}
	}
	return out
}

// TestImportedCrontabFiresAsDebianCron imports crontab lines with the host
// zone America/New_York and checks the jobs' fires against what Debian's
// cron(8) does: the day fields AND when either starts with `*`, a job
// whose time falls in the spring-forward gap runs right after it, one
// whose time repeats runs once, and wildcard jobs follow real time.
func TestImportedCrontabFiresAsDebianCron(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04 -0700", s)
		if err != nil {
			t.Fatal(err)
		}
		return v.In(ny)
	}
	tests := []struct {
		line string
		opts importer.CrontabOptions
		from string
		want []string
	}{
		{line: "0 0 */2 * 1 /bin/true", from: "2026-11-27 00:00 -0500",
			want: []string{"2026-12-07 00:00 -0500", "2026-12-21 00:00 -0500", "2027-01-11 00:00 -0500"}},
		{line: "30 2 * * * /bin/true", from: "2025-03-08 12:00 -0500",
			want: []string{"2025-03-09 03:00 -0400", "2025-03-10 02:30 -0400"}},
		{line: "30 1 * * * /bin/true", from: "2025-11-01 12:00 -0400",
			want: []string{"2025-11-02 01:30 -0400", "2025-11-03 01:30 -0500"}},
		{line: "*/30 * * * * /bin/true", from: "2025-11-02 00:45 -0400",
			want: []string{"2025-11-02 01:00 -0400", "2025-11-02 01:30 -0400", "2025-11-02 01:00 -0500", "2025-11-02 01:30 -0500", "2025-11-02 02:00 -0500"}},
		{line: "CRON_TZ=Europe/Berlin\n0 9 * * * /bin/true", opts: importer.CrontabOptions{IgnoreCronTZ: true}, from: "2026-06-01 00:00 -0400",
			want: []string{"2026-06-01 09:00 -0400"}},
		{line: "CRON_TZ=Europe/Berlin\n0 9 * * * /bin/true", from: "2026-06-01 00:00 -0400",
			want: []string{"2026-06-01 03:00 -0400"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			tt.opts.Zone, tt.opts.System = "America/New_York", importer.SystemNo
			res, err := importer.Crontab("crontab", []byte(tt.line+"\n"), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			set := compileManifest(t, "crontab", res)
			sched := specSchedule(t, set.Jobs[0])
			next := at(tt.from)
			for _, w := range tt.want {
				next = sched.Next(next)
				if !next.Equal(at(w)) {
					t.Fatalf("fires at %s, Debian's cron at %s", next.In(ny), w)
				}
			}
		})
	}
}
