package job

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestOutlook: each upcoming fire carries what the lifecycle decision
// will do to it, foreseen with decide itself: the gate, paused waves, each
// node's window, the starting deadline and catch_up, one obstacle after
// another.
func TestOutlook(t *testing.T) {
	runFleet(t, fleet("a", "b"), func(t *testing.T, b *bundle) {
		b.gates["mornings"] = window{10 * time.Hour, 10*time.Hour + 30*time.Minute}
		b.gates["evenings"] = window{20 * time.Hour, 21 * time.Hour}
		b.gates["late"] = window{10*time.Hour + 15*time.Minute, 12 * time.Hour}
		day := t0.Truncate(24 * time.Hour)
		tomorrow10, today1015 := day.Add(34*time.Hour), day.Add(10*time.Hour+15*time.Minute)
		hour, minute := ptr(int64(3600)), ptr(int64(60))
		// Every job fires on the hour; t0 is 09:00 UTC. Nodes a and b have
		// role=web.
		b.put(spec("free", "1h"))
		b.put(spec("gated", "1h", func(s *store.JobSpec) { s.Gate = "mornings"; s.StartingDeadlineSeconds = ptr(int64(24 * 3600)) }))
		b.put(spec("short", "1h", func(s *store.JobSpec) { s.Gate = "mornings"; s.StartingDeadlineSeconds = hour }))
		b.put(spec("nowhere", "1h", func(s *store.JobSpec) { s.Gate = "nowhere" }))
		b.put(spec("nowhere-bounded", "1h", func(s *store.JobSpec) { s.Gate = "nowhere"; s.StartingDeadlineSeconds = minute }))
		b.put(spec("gated-none", "1h", func(s *store.JobSpec) { s.Gate = "mornings"; s.CatchUp = CatchUpNone }))
		b.put(spec("paused", "1h", func(s *store.JobSpec) { s.Nodes = "role=web" }))
		b.put(spec("paused-bounded", "1h", func(s *store.JobSpec) { s.Nodes = "role=web"; s.StartingDeadlineSeconds = minute }))
		for _, name := range []string{"paused", "paused-bounded"} {
			if err := b.ctl.WavePause(b.ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		b.put(spec("window-short", "1h", func(s *store.JobSpec) {
			s.Nodes = "role=web"
			s.Window = map[string]string{"b": "evenings", "default": "mornings"}
			s.StartingDeadlineSeconds = hour
		}))
		b.put(spec("both", "1h", func(s *store.JobSpec) {
			s.Nodes = "role=web"
			s.Gate = "mornings"
			s.Window = map[string]string{"default": "late"}
			s.StartingDeadlineSeconds = ptr(int64(24 * 3600))
		}))
		b.put(spec("no-node", "1h", func(s *store.JobSpec) { s.Nodes = "role=db" }))
		type want struct {
			state  string
			until  time.Time
			reason string
		}
		tests := []struct {
			job  string
			want [2]want // for the fires at 10:00 and 11:00
		}{
			{"free", [2]want{{state: OnTime}, {state: OnTime}}},
			{"gated", [2]want{{state: OnTime}, {Waits, tomorrow10, `schedule gate "mornings" is closed`}}},
			{"short", [2]want{{state: OnTime}, {WillMiss, time.Time{}, `schedule gate "mornings" does not open before the starting deadline`}}},
			{"nowhere", [2]want{{Waits, time.Time{}, `"nowhere" does not exist`}, {Waits, time.Time{}, `"nowhere" does not exist`}}},
			{"nowhere-bounded", [2]want{{WillMiss, time.Time{}, `"nowhere" does not exist`}, {WillMiss, time.Time{}, `"nowhere" does not exist`}}},
			{"gated-none", [2]want{{state: OnTime}, {WillMiss, time.Time{}, `catch_up none: schedule gate "mornings" is closed`}}},
			{"paused", [2]want{{Waits, time.Time{}, "waves are paused by an operator"}, {Waits, time.Time{}, "waves are paused by an operator"}}},
			{"paused-bounded", [2]want{{WillMiss, time.Time{}, "node a waited for its turn (and 1 more node(s))"}, {WillMiss, time.Time{}, "(and 1 more node(s))"}}},
			// Node a's window is the default, mornings; node b's evenings.
			{"window-short", [2]want{
				{WillMiss, time.Time{}, `window "evenings" of node b does not open before the starting deadline`},
				{WillMiss, time.Time{}, `window "mornings" of node a does not open before the starting deadline (and 1 more node(s))`}}},
			// At 10:00 the gate is open and the windows open at 10:15; at
			// 11:00 the gate opens tomorrow at 10:00, the windows at 10:15.
			{"both", [2]want{
				{Waits, today1015, `window "late" of node a is closed (and 1 more node(s))`},
				{Waits, tomorrow10.Add(15 * time.Minute), `schedule gate "mornings" is closed (and 1 more node(s))`}}},
			{"no-node", [2]want{{WillMiss, time.Time{}, "no node matches role=db"}, {WillMiss, time.Time{}, "no node matches role=db"}}},
		}
		// The bubble runs the cases in turn: t.Run cannot start inside it.
		for _, tt := range tests {
			fs, err := b.ctl.JobFires(b.ctx, tt.job, t0, 2)
			if err != nil || len(fs) != 2 {
				t.Fatalf("%s: JobFires = %v, %v", tt.job, fs, err)
			}
			for i, f := range fs {
				w := tt.want[i]
				if !f.Time.Equal(t0.Add(time.Duration(i+1) * time.Hour)) {
					t.Errorf("%s: fire %d at %v", tt.job, i, f.Time)
				}
				if f.Outlook.State != w.state || !f.Outlook.Until.Equal(w.until) || !strings.Contains(f.Outlook.Reason, w.reason) || (w.state == OnTime) != (f.Outlook.Reason == "") {
					t.Errorf("%s: fire %d at %v: outlook %+v, want %+v", tt.job, i, f.Time, f.Outlook, w)
				}
			}
		}
		// Upcoming shares one compiled schedule among jobs with the same
		// expression; each fire still carries its own job's outlook.
		fs, err := b.ctl.Upcoming(b.ctx, t0.Add(time.Hour), len(tests))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Job+":"+f.Outlook.State)
		}
		wantUp := "[both:waits free:on-time gated:waits gated-none:will-miss no-node:will-miss nowhere:waits nowhere-bounded:will-miss " +
			"paused:waits paused-bounded:will-miss short:will-miss window-short:will-miss]"
		if fmt.Sprint(got) != wantUp {
			t.Errorf("Upcoming at 11:00 = %v, want %s", got, wantUp)
		}
	})
}
