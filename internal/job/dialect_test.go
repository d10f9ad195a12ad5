package job

import (
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestRandomizedDelay: a run starts its job's fixed offset after the
// nominal instant, keeps the nominal instant as its scheduled time, and
// the starting deadline counts from the delayed instant.
func TestRandomizedDelay(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		s := spec("spread", "1h", func(s *store.JobSpec) {
			s.RandomizedDelaySeconds = 600
			s.StartingDeadlineSeconds = ptr(int64(30))
		})
		off := RandomizedDelay(s)
		if off <= 0 || off >= 10*time.Minute || off%time.Millisecond != 0 {
			t.Fatalf("offset %v, want in (0, 10m) in whole milliseconds", off)
		}
		if again := RandomizedDelay(s); again != off {
			t.Fatalf("offset not stable: %v then %v", off, again)
		}
		b.put(s)
		b.advance(time.Hour) // the nominal instant: nothing yet
		if n := len(b.procs("spread")); n != 0 {
			t.Fatalf("%d runs at the nominal instant, want 0 until the delay passes", n)
		}
		if d, ok := b.clk.NextDeadline(); !ok || !d.Equal(t0.Add(time.Hour+off)) {
			t.Fatalf("next wake %v %v, want %v", d, ok, t0.Add(time.Hour+off))
		}
		b.advance(off)
		ps := b.procs("spread")
		if len(ps) != 1 || !ps[0].run.ScheduledTime.Equal(t0.Add(time.Hour)) {
			t.Fatalf("runs after the delay: %v", states(b.runs("spread")))
		}
	})
}

// TestRandomizedDelaySpreads: names map to different offsets across the
// window.
func TestRandomizedDelaySpreads(t *testing.T) {
	seen := map[time.Duration]bool{}
	for _, n := range []string{"web-1", "web-2", "web-3", "web-4", "web-5", "web-6", "web-7", "web-8"} {
		seen[RandomizedDelay(store.JobSpec{Name: n, RandomizedDelaySeconds: 3600})] = true
	}
	if len(seen) < 7 {
		t.Fatalf("8 names gave %d distinct offsets", len(seen))
	}
	if d := RandomizedDelay(store.JobSpec{Name: "x"}); d != 0 {
		t.Fatalf("no delay configured, offset %v", d)
	}
}

// TestScheduleDialects: on_calendar and the kubernetes dialect compile to
// the schedules their languages define, and the controller fires them.
func TestScheduleDialects(t *testing.T) {
	from := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		spec store.JobSpec
		want []string
	}{
		{"kubernetes ORs a stepped day", store.JobSpec{Cron: "0 0 */2 * 1", CronDialect: DialectKubernetes},
			[]string{"11-29", "11-30", "12-01", "12-03"}},
		{"vixie ANDs it", store.JobSpec{Cron: "0 0 */2 * 1"}, []string{"12-07", "12-21", "01-11", "01-25"}},
		{"on_calendar union", store.JobSpec{OnCalendar: []string{"*-*~01", "Mon *-*-* 00:00"}},
			[]string{"11-30", "12-07", "12-14", "12-21"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			s.Name, s.Shell = "j", "true"
			c, err := compile(s, ParseCron)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for at := c.sched.Next(from); len(got) < len(tc.want); at = c.sched.Next(at) {
				got = append(got, at.Format("01-02"))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("fires %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidateDialects(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		spec store.JobSpec
		want string
	}{
		{"cron and on_calendar", store.JobSpec{Cron: "* * * * *", OnCalendar: []string{"daily"}}, "set only one of cron, on_calendar and at"},
		{"on_calendar and at", store.JobSpec{OnCalendar: []string{"daily"}, At: &at}, "set only one"},
		{"bad event", store.JobSpec{OnCalendar: []string{"daily", "Fri..Mon"}}, "on_calendar[1]: at column 6"},
		{"too many events", store.JobSpec{OnCalendar: make([]string, MaxCalendarEvents+1)}, "the limit is 64"},
		{"unknown dialect", store.JobSpec{Cron: "* * * * *", CronDialect: "quartz"}, `cron_dialect: "quartz" is not one of vixie, kubernetes`},
		{"dialect without cron", store.JobSpec{OnCalendar: []string{"daily"}, CronDialect: "kubernetes"}, "applies only to a cron expression"},
		{"kubernetes has no L", store.JobSpec{Cron: "0 0 L * *", CronDialect: "kubernetes"}, "Kubernetes"},
		{"kubernetes zone twice", store.JobSpec{Cron: "CRON_TZ=UTC 0 0 * * *", CronDialect: "kubernetes", TimeZone: "Europe/Berlin"}, "cannot use both time_zone and TZ"},
		{"negative delay", store.JobSpec{Cron: "* * * * *", RandomizedDelaySeconds: -1}, "randomized_delay_seconds: must be between 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			s.Name, s.Shell = "j", "true"
			err := Validate(&s, ParseCron)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	ok := store.JobSpec{Name: "j", Shell: "true", OnCalendar: []string{"Mon..Fri 09:00"}, RandomizedDelaySeconds: 60, TimeZone: "Europe/Berlin"}
	if err := Validate(&ok, ParseCron); err != nil {
		t.Fatalf("valid on_calendar job refused: %v", err)
	}
}

// FuzzValidateSchedule feeds arbitrary schedules of every kind to
// Validate and compile: nothing panics, and an accepted spec compiles and
// is accepted again.
func FuzzValidateSchedule(f *testing.F) {
	f.Add("0 0 */2 * 1", "kubernetes", "", "", int64(0), "")
	f.Add("", "", "Mon..Fri *-*-* 09:00", "*-*~01", int64(30), "Europe/Berlin")
	f.Add("CRON_TZ=UTC 0 0 * * *", "kubernetes", "", "", int64(-1), "Asia/Tokyo")
	f.Add("", "vixie", "quarterly", "", int64(1<<40), "")
	f.Fuzz(func(t *testing.T, cronExpr, dialect, cal1, cal2 string, delay int64, zone string) {
		s := store.JobSpec{Name: "j", Shell: "true", Cron: cronExpr, CronDialect: dialect, RandomizedDelaySeconds: delay, TimeZone: zone}
		for _, c := range []string{cal1, cal2} {
			if c != "" {
				s.OnCalendar = append(s.OnCalendar, c)
			}
		}
		if err := Validate(&s, ParseCron); err != nil {
			return
		}
		c, err := compile(s, ParseCron)
		if err != nil {
			t.Fatalf("accepted spec %+v does not compile: %v", s, err)
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if n := c.sched.Next(from); !n.IsZero() && !n.After(from) {
			t.Fatalf("%+v: Next(%v) = %v", s, from, n)
		}
		if d := RandomizedDelay(s); d < 0 || d >= time.Duration(max(s.RandomizedDelaySeconds, 1))*time.Second {
			t.Fatalf("delay %v outside [0, %ds)", d, s.RandomizedDelaySeconds)
		}
	})
}
