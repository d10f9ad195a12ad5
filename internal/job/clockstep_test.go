package job

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// stepJobs are a job per kind of period, in zone.
func stepJobs(zone string) []store.JobSpec {
	in := func(s *store.JobSpec) { s.TimeZone = zone }
	return []store.JobSpec{
		spec("minutely", "* * * * *", in),
		spec("quarterly", "*/15 * * * *", in),
		spec("hourly", "0 * * * *", in),
		spec("daily", "30 1 * * *", in),
	}
}

// exitEvery ends every fake process still running, with exit 0.
func (b *bundle) exitEvery() {
	for _, p := range b.ex.started() {
		if !p.exited() {
			p.exit(0)
		}
	}
	synctest.Wait()
}

// executions counts the processes started for job: what a step must not
// silence, nor double.
func (b *bundle) executions(job string) int { return len(b.procs(job)) }

// TestClockStep steps the wall clock of a running controller with the
// injected clock, back and forward, on ordinary days and across DST
// transitions, and counts each job's runs in the following minutes.
func TestClockStep(t *testing.T) {
	tests := []struct {
		name string
		zone string
		// start is the wall time before the step; the controller runs
		// from an hour before it.
		start time.Time
		step  time.Duration
		// after is how long the test runs on after the step.
		after time.Duration
		// want is how many new runs each job gets after the step.
		want map[string]int
		// event: a clock.stepped event and a /healthz note are expected.
		event bool
	}{
		{
			// 02:10 EST after the fall-back, stepped back to 01:10 EST:
			// the minutely and quarter-hourly jobs keep their period,
			// except for the instants whose runs are still in their
			// history (the quarter-hourly 01:30 and 01:45 EST: the
			// three newest are kept); the hourly job waits for 03:00
			// (its 02:00 ran) and the daily job, which ran at 01:30
			// EDT, does not run at 01:30 EST.
			name: "back 1h after the New York fall-back", zone: "America/New_York",
			start: time.Date(2026, 11, 1, 7, 10, 0, 0, time.UTC), step: -time.Hour, after: 40 * time.Minute,
			want:  map[string]int{"minutely": 40, "quarterly": 1, "hourly": 0, "daily": 0},
			event: true,
		},
		{
			// An ordinary Berlin morning, 09:10 stepped back to 07:10:
			// the hourly job's period is shorter than the step, so it
			// runs at 08:00 again.
			name: "back 2h on an ordinary day in Berlin", zone: "Europe/Berlin",
			start: time.Date(2026, 6, 10, 7, 10, 0, 0, time.UTC), step: -2 * time.Hour, after: 55 * time.Minute,
			want:  map[string]int{"minutely": 55, "quarterly": 4, "hourly": 1, "daily": 0},
			event: true,
		},
		{
			// A small step back (30 s) moves nobody: the per-minute job's
			// last instant is less than its period ahead.
			name: "back 30s", zone: "UTC",
			start: time.Date(2026, 3, 2, 9, 10, 0, 0, time.UTC), step: -30 * time.Second, after: 5*time.Minute + 30*time.Second,
			want:  map[string]int{"minutely": 5, "quarterly": 0, "hourly": 0, "daily": 0},
			event: true,
		},
		{
			// Forward across the Berlin spring-forward gap, as today: the
			// skipped instants are handled like downtime, the latest of
			// each job runs once as a catch-up.
			name: "forward 1h across the Berlin spring-forward", zone: "Europe/Berlin",
			start: time.Date(2026, 3, 29, 0, 40, 0, 0, time.UTC), step: time.Hour, after: time.Minute,
			want:  map[string]int{"minutely": 1, "quarterly": 1, "hourly": 1, "daily": 0},
			event: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runWith(t, func(c *Config) { c.Parse = ParseCron }, func(t *testing.T, b *bundle) {
				b.clk.Set(tc.start.Add(-time.Hour))
				for _, s := range stepJobs(tc.zone) {
					b.put(s)
				}
				// An hour of normal running, each run ending at once.
				for range 60 {
					b.advance(time.Minute)
					b.exitEvery()
				}
				before := map[string]int{}
				for name := range tc.want {
					before[name] = b.executions(name)
				}
				b.clk.Step(tc.step)
				for elapsed := time.Duration(0); elapsed < tc.after; elapsed += time.Second {
					b.advance(time.Second)
					b.exitEvery()
				}
				for name, want := range tc.want {
					if got := b.executions(name) - before[name]; got != want {
						t.Errorf("%s: %d new runs after the step, want %d (%v)", name, got, want, states(b.runs(name)))
					}
				}
				ev := b.events("", store.EventClockStepped)
				note := b.ctl.ClockNote()
				if tc.event && (len(ev) != 1 || !strings.Contains(ev[0].Message, "stepped back") || !strings.Contains(note, "stepped back")) {
					t.Errorf("clock.stepped events %v, note %q; want one of each", ev, note)
				}
				if !tc.event && (len(ev) != 0 || note != "") {
					t.Errorf("clock.stepped events %v, note %q; want none", ev, note)
				}
			})
		})
	}
}

// TestClockSteppedWhileDown: a controller that starts with schedule times
// in the future (the clock was stepped back while almanac was down)
// applies the same rule.
func TestClockSteppedWhileDown(t *testing.T) {
	runWith(t, func(c *Config) { c.Parse = ParseCron }, func(t *testing.T, b *bundle) {
		b.clk.Set(time.Date(2026, 6, 10, 6, 0, 0, 0, time.UTC))
		for _, s := range stepJobs("Europe/Paris") {
			b.put(s)
		}
		for range 70 {
			b.advance(time.Minute)
			b.exitEvery()
		}
		before, hourly := b.executions("minutely"), b.executions("hourly")
		b.stop()
		b.clk.Step(-90 * time.Minute)
		b.start()
		for range 10 {
			b.advance(time.Minute)
			b.exitEvery()
		}
		// The instant the restart falls on, and the ten after it.
		if got := b.executions("minutely") - before; got != 11 {
			t.Errorf("minutely: %d new runs in 10 min after the restart, want 11", got)
		}
		if got := b.executions("hourly"); got != hourly {
			t.Errorf("hourly: %d runs, want %d (no new instant yet)", got, hourly)
		}
		if ev := b.events("", store.EventClockStepped); len(ev) != 1 || !strings.Contains(ev[0].Message, "in the future at start-up") {
			t.Errorf("clock.stepped events = %v, want the start-up one", ev)
		}
	})
}
