package agent

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

var day0 = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) // a Monday

// harness runs an agent in a synctest bubble on a fake clock.
type harness struct {
	t      *testing.T
	clock  *clock.Fake
	fake   *fakeApplier
	agent  *Agent
	store  *MemoryStore
	cancel context.CancelFunc
	done   chan error
}

func newHarness(t *testing.T, start time.Time, cfg Config) *harness {
	h := &harness{t: t, clock: clock.NewFake(start)}
	h.fake = newFakeApplier(t, h.clock)
	if cfg.Store == nil {
		h.store = NewMemoryStore()
		cfg.Store = h.store
	}
	if cfg.Host == "" {
		cfg.Host = "db-7"
	}
	cfg.Applier, cfg.Clock = h.fake, h.clock
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

// start runs the agent and waits until it is idle.
func (h *harness) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- h.agent.Run(ctx) }()
	synctest.Wait()
}

func (h *harness) stop() {
	h.cancel()
	if err := <-h.done; err != nil {
		h.t.Fatalf("Run: %v", err)
	}
}

// runUntil moves the fake clock from timer to timer up to end, letting the
// agent finish its work at each stop.
func (h *harness) runUntil(end time.Time) {
	for {
		d, ok := h.clock.NextDeadline()
		if !ok || d.After(end) {
			break
		}
		h.clock.Set(d)
		synctest.Wait()
	}
	h.clock.Set(end)
	synctest.Wait()
}

func (h *harness) reports() []*Report {
	rs, err := h.store.ListReports(context.Background(), ReportFilter{Limit: 1000})
	if err != nil {
		h.t.Fatal(err)
	}
	return rs
}

func TestGateOpensExactlyOnceADay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0, Config{Interval: 30 * time.Minute})
		// The host's phase puts its interval applies at hh:mm and hh:mm+30
		// with mm outside 00-05, so no interval apply ever lands in the window.
		if sp := Splay("db-7", 30*time.Minute); sp <= 5*time.Minute {
			t.Fatalf("test host splay %v lands in the window; pick another host", sp)
		}
		h.fake.schedule("maint", map[string]any{"range": "02:00 - 02:05", "period": "daily"})
		h.fake.add(fakeResource{ref: "Exec[vacuum]", schedule: "maint"})
		h.fake.add(fakeResource{ref: "Exec[plain]"})
		h.start()
		h.runUntil(day0.Add(3*24*time.Hour + 3*time.Hour))
		h.stop()

		got := h.fake.appliedAt("Exec[vacuum]")
		want := []time.Time{day0.Add(2 * time.Hour), day0.Add(26 * time.Hour), day0.Add(50 * time.Hour), day0.Add(74 * time.Hour)}
		if len(got) != len(want) {
			t.Fatalf("Exec[vacuum] applied at %v, want %v", got, want)
		}
		for i := range want {
			if !got[i].Equal(want[i]) {
				t.Errorf("apply %d at %v, want %v", i, got[i], want[i])
			}
		}
		// Every gate apply names its schedule and resource.
		gates := 0
		for _, tr := range h.fake.triggerList() {
			if tr.Kind == TriggerSchedule {
				gates++
				if tr.Schedule != "maint" || len(tr.Resources) != 1 || tr.Resources[0] != "Exec[vacuum]" {
					t.Errorf("gate trigger = %+v", tr)
				}
				if tr.At.Hour() != 2 || tr.At.Minute() != 0 || tr.At.Second() != 0 {
					t.Errorf("gate trigger at %v, want 02:00:00", tr.At)
				}
			}
		}
		if gates != 4 {
			t.Errorf("%d gate applies, want 4", gates)
		}
		// The interval kept running: 48 a day for 3 days and 3 hours, plus
		// the start-up apply and the gate applies.
		if n, want := len(h.fake.triggerList()), 1+4+3*48+6; n != want {
			t.Errorf("%d applies, want %d", n, want)
		}
		for _, r := range h.reports() {
			if len(r.Warnings) != 0 {
				t.Errorf("report %d warns: %v", r.ID, r.Warnings)
			}
		}
	})
}

func TestIntervalAppliesAtTheHostPhase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0, Config{Interval: 30 * time.Minute, Host: "web-1"})
		sp := Splay("web-1", 30*time.Minute)
		h.start()
		h.runUntil(day0.Add(2 * time.Hour))
		h.stop()
		trs := h.fake.triggerList()
		if trs[0].Kind != TriggerStartup {
			t.Fatalf("first apply %v, want startup", trs[0])
		}
		var at []time.Time
		for _, tr := range trs[1:] {
			if tr.Kind != TriggerInterval {
				t.Fatalf("apply %v, want interval", tr)
			}
			at = append(at, tr.At)
		}
		if len(at) != 4 {
			t.Fatalf("interval applies at %v, want 4", at)
		}
		for i, a := range at {
			if want := day0.Add(sp + time.Duration(i)*30*time.Minute); !a.Equal(want) {
				t.Errorf("interval apply %d at %v, want %v", i, a, want)
			}
		}
		if st := h.agent.Status(); st.Splay != sp || st.NextInterval == nil || !st.NextInterval.Equal(day0.Add(sp+4*30*time.Minute)) {
			t.Errorf("Status = %+v", st)
		}
	})
}

func TestSplayIsStableAndInRange(t *testing.T) {
	iv := 30 * time.Minute
	seen := map[time.Duration]bool{}
	for _, host := range []string{"a", "b", "web-1", "web-2", "db-7", ""} {
		s := Splay(host, iv)
		if s < 0 || s >= iv {
			t.Errorf("Splay(%q) = %v, out of [0, %v)", host, s, iv)
		}
		if s != Splay(host, iv) {
			t.Errorf("Splay(%q) not stable", host)
		}
		seen[s] = true
	}
	if len(seen) < 5 {
		t.Errorf("splays collide: %v", seen)
	}
	if Splay("x", 0) != 0 {
		t.Error("Splay with no interval should be 0")
	}
}

func TestTriggersDuringAnApplyCoalesce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0, Config{Interval: -1})
		h.fake.block = make(chan struct{})
		h.start() // the start-up apply is now blocked
		if st := h.agent.Status(); st.Running == nil || st.Running.Kind != TriggerStartup {
			t.Fatalf("Status.Running = %+v, want the start-up apply", st.Running)
		}
		if !h.agent.Trigger("alice") {
			t.Error("first trigger reported as coalesced")
		}
		for _, r := range []string{"bob", "carol"} {
			if h.agent.Trigger(r) {
				t.Errorf("trigger %s not coalesced", r)
			}
		}
		h.agent.Notify("site.pp")
		h.fake.block <- struct{}{} // finish start-up
		synctest.Wait()
		h.fake.block <- struct{}{} // finish the follow-up
		synctest.Wait()
		h.stop()
		trs := h.fake.triggerList()
		if len(trs) != 2 {
			t.Fatalf("applies %v, want start-up and one follow-up", trs)
		}
		if f := trs[1]; f.Kind != TriggerManual || f.Reason != "alice" || f.Coalesced != 3 {
			t.Errorf("follow-up = %+v, want manual by alice with 3 coalesced", f)
		}
	})
}

func TestManifestChangesTriggerAnApply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0, Config{Interval: -1})
		h.start()
		h.agent.Notify("site.pp")
		synctest.Wait()
		h.stop()
		trs := h.fake.triggerList()
		if len(trs) != 2 || trs[1].Kind != TriggerManifest || trs[1].Reason != "site.pp" {
			t.Fatalf("applies %v, want start-up then manifest site.pp", trs)
		}
		reps := h.reports()
		if len(reps) != 2 || reps[0].Trigger.Kind != TriggerManifest {
			t.Fatalf("reports newest first: %+v", reps)
		}
	})
}

func TestStateSurvivesARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := NewMemoryStore()
		h := newHarness(t, day0, Config{Interval: 30 * time.Minute, Store: store})
		h.store = store
		h.fake.schedule("maint", map[string]any{"range": "02:00 - 02:05", "period": "daily"})
		h.fake.add(fakeResource{ref: "Exec[vacuum]", schedule: "maint"})
		h.start()
		h.runUntil(day0.Add(2*time.Hour + time.Minute))
		h.stop()
		if n := len(h.fake.appliedAt("Exec[vacuum]")); n != 1 {
			t.Fatalf("applied %d times before the restart, want 1", n)
		}

		// A new agent at 02:02, still inside the window, must not apply it again.
		h2 := newHarness(t, day0.Add(2*time.Hour+2*time.Minute), Config{Interval: 30 * time.Minute, Store: store})
		h2.store = store
		h2.fake.schedules, h2.fake.periods = h.fake.schedules, h.fake.periods
		h2.fake.add(fakeResource{ref: "Exec[vacuum]", schedule: "maint"})
		h2.start()
		h2.runUntil(day0.Add(26*time.Hour + time.Minute))
		h2.stop()
		got := h2.fake.appliedAt("Exec[vacuum]")
		if len(got) != 1 || !got[0].Equal(day0.Add(26*time.Hour)) {
			t.Fatalf("after the restart applied at %v, want only the next day's 02:00", got)
		}
		if st := h2.agent.Status(); st.NextGate == nil || !st.NextGate.At.Equal(day0.Add(50*time.Hour)) {
			t.Errorf("next gate = %+v, want 02:00 on day 3", st.NextGate)
		}
	})
}

func TestWarningsForGatesThatMissTheirPeriod(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		want  string // substring of the warning; "" for none
	}{
		{"daily range", map[string]any{"range": "02:00 - 02:05", "period": "daily"}, ""},
		{"daily but only on Saturdays", map[string]any{"range": "02:00 - 02:05", "period": "daily", "weekday": "Saturday"},
			"Exec[x] misses at least one daily period: schedule s next opens at 2026-06-06T02:00:00Z"},
		{"hourly six times in a five-minute range", map[string]any{"range": "02:00 - 02:05", "period": "hourly", "repeat": int64(6)},
			"misses at least one hourly period"},
		{"period never", map[string]any{"period": "never"}, "Exec[x] is never applied: schedule s never opens again"},
		{"window outside the range", map[string]any{"range": "02:00 - 02:05", "windows": []any{
			map[string]any{"days": "Mon", "start_time": "03:00", "length_minutes": int64(60)}}}, "never opens again"},
		{"weekly in a Saturday window", map[string]any{"period": "weekly", "windows": []any{
			map[string]any{"days": "Sat", "start_time": "03:00", "length_minutes": int64(60)}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, day0, Config{Interval: -1})
				h.fake.schedule("s", tc.attrs)
				h.fake.add(fakeResource{ref: "Exec[x]", schedule: "s"})
				h.start()
				h.stop()
				reps := h.reports()
				if len(reps) != 1 {
					t.Fatalf("%d reports", len(reps))
				}
				r := reps[0]
				switch {
				case tc.want == "" && len(r.Warnings) > 0:
					t.Errorf("unexpected warnings %v", r.Warnings)
				case tc.want != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, tc.want)):
					t.Errorf("warnings %v, want one containing %q", r.Warnings, tc.want)
				}
				if r.Summary.Warnings != len(r.Warnings) {
					t.Errorf("summary counts %d warnings, report has %d", r.Summary.Warnings, len(r.Warnings))
				}
			})
		})
	}
}

func TestNoSpinOnOpenGatesOrFailedDependencies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0.Add(2*time.Hour), Config{Interval: 30 * time.Minute})
		// A range with no period is open for its whole span, and a resource
		// skipped for failed dependencies stays skipped: neither may make the
		// agent apply again before the next interval.
		h.fake.schedule("night", map[string]any{"range": "01:00 - 05:00"})
		h.fake.add(fakeResource{ref: "Exec[open]", schedule: "night"})
		h.fake.add(fakeResource{ref: "Exec[blocked]", schedule: "night", skip: "failed dependencies: Exec[a]"})
		h.start()
		h.runUntil(day0.Add(2*time.Hour + 29*time.Minute))
		h.stop()
		if trs := h.fake.triggerList(); len(trs) > 2 {
			t.Fatalf("%d applies: the agent spun", len(trs))
		}
	})
}

func TestReportsCarryTriggerStatusAndNextOpening(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, day0, Config{Interval: -1, Retention: Retention{Keep: 2}})
		h.fake.schedule("maint", map[string]any{"range": "02:00 - 02:05", "period": "daily"})
		h.fake.add(fakeResource{ref: "Exec[vacuum]", schedule: "maint"})
		h.fake.add(fakeResource{ref: "Exec[plain]"})
		h.start()
		h.agent.Trigger("test")
		synctest.Wait()
		h.runUntil(day0.Add(3 * time.Hour))
		h.stop()
		reps := h.reports()
		if len(reps) != 2 {
			t.Fatalf("%d reports kept, want 2 (retention)", len(reps))
		}
		gate, err := h.store.GetReport(context.Background(), reps[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if gate.Trigger.Kind != TriggerSchedule || gate.Status != StatusChanged || gate.ExitCode != 2 ||
			gate.Summary.Changed != 2 || gate.Host != "db-7" {
			t.Errorf("gate report = %+v", gate)
		}
		manual, err := h.store.GetReport(context.Background(), reps[1].ID)
		if err != nil {
			t.Fatal(err)
		}
		if manual.Trigger.Kind != TriggerManual || manual.Trigger.Reason != "test" {
			t.Errorf("manual report trigger = %+v", manual.Trigger)
		}
		var vac ResourceStatus
		for _, rs := range manual.Resources {
			if rs.Ref == "Exec[vacuum]" {
				vac = rs
			}
		}
		if vac.Status != StatusSkipped || vac.Reason != ReasonNotScheduled || vac.NextOpening == nil ||
			!vac.NextOpening.Equal(day0.Add(2*time.Hour)) {
			t.Errorf("vacuum in the manual report = %+v", vac)
		}
	})
}
