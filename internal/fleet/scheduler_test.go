package fleet

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/clock"
)

// testSource is an in-memory fleet that records each action with the fake
// clock's time and can be told to fail.
type testSource struct {
	clk  *clock.Fake
	mu   sync.Mutex
	res  map[string]*Resource
	fail map[string]int
	log  []string // "2024-03-10T03:00:00-04:00 start vm-1"
	loc  *time.Location
}

func newTestSource(clk *clock.Fake, loc *time.Location, rs ...Resource) *testSource {
	s := &testSource{clk: clk, res: map[string]*Resource{}, fail: map[string]int{}, loc: loc}
	for i := range rs {
		r := rs[i]
		s.res[r.ID] = &r
	}
	return s
}

func (s *testSource) List(context.Context) ([]Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Resource
	for _, r := range s.res {
		c := *r
		c.Tags = map[string]string{}
		for k, v := range r.Tags {
			c.Tags[k] = v
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *testSource) act(a Action, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf("%s %s %s", s.clk.Now().In(s.loc).Format(time.RFC3339), a, id))
	if s.fail[id] > 0 {
		s.fail[id]--
		return fmt.Errorf("api timeout")
	}
	s.res[id].State = a.Target()
	return nil
}

func (s *testSource) Start(_ context.Context, id string) error     { return s.act(ActionStart, id) }
func (s *testSource) Stop(_ context.Context, id string) error      { return s.act(ActionStop, id) }
func (s *testSource) Hibernate(_ context.Context, id string) error { return s.act(ActionHibernate, id) }

func (s *testSource) set(id string, f func(r *Resource)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.res[id])
}

func (s *testSource) actions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// testNotifier records notifications.
type testNotifier struct {
	mu   sync.Mutex
	sent []Notification
	err  error
}

func (n *testNotifier) Notify(_ context.Context, m Notification) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, m)
	return n.err
}

func (n *testNotifier) all() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.sent...)
}

type harness struct {
	t      *testing.T
	clk    *clock.Fake
	src    *testSource
	log    *MemoryLog
	notes  *testNotifier
	ledger *MemoryLedger
	s      *Scheduler
	loc    *time.Location
}

func newHarness(t *testing.T, start string, zone string, rs ...Resource) *harness {
	t.Helper()
	loc, err := calendar.LoadZone(zone)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, start)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clk: clock.NewFake(at), log: NewMemoryLog(0), notes: &testNotifier{}, ledger: NewMemoryLedger(), loc: loc}
	h.src = newTestSource(h.clk, loc, rs...)
	h.s = h.newScheduler()
	return h
}

func (h *harness) newScheduler() *Scheduler {
	s, err := New(Config{Source: h.src, Clock: h.clk, Ledger: h.ledger, Events: h.log, Notifier: h.notes})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) at(s string) time.Time {
	h.t.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		h.t.Fatal(err)
	}
	return t
}

// runUntil steps the scheduler the way Run does, jumping the fake clock to
// each deadline, until end.
func (h *harness) runUntil(end time.Time) {
	h.t.Helper()
	ctx := context.Background()
	for i := 0; i < 100000; i++ {
		wake := h.s.Step(ctx, false)
		if wake.After(end) {
			h.clk.Set(end)
			return
		}
		h.clk.Set(wake)
	}
	h.t.Fatal("runUntil did not reach the end")
}

func (h *harness) kinds(id string, kinds ...EventKind) []string {
	var out []string
	for _, e := range h.log.Events(id) {
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, string(e.Kind)+": "+e.Message)
			}
		}
	}
	return out
}

func vm(id string, st State, tags map[string]string) Resource {
	return Resource{ID: id, Name: id, State: st, Tags: tags}
}

func TestSchedulerDSTWeeks(t *testing.T) {
	tags := map[string]string{
		"almanac-schedule-start":    "sun0230_mon0800",
		"almanac-schedule-stop":     "sun0130_mon1800",
		"almanac-schedule-timezone": "america-new_york",
	}
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"spring forward", "2024-03-09T12:00:00-05:00", "2024-03-12T00:00:00-04:00", []string{
			"2024-03-10T01:30:00-05:00 stop vm-1",
			"2024-03-10T03:00:00-04:00 start vm-1", // 02:30 does not exist: first instant after the gap
			"2024-03-11T18:00:00-04:00 stop vm-1",
		}},
		{"fall back", "2024-11-02T12:00:00-04:00", "2024-11-05T00:00:00-05:00", []string{
			"2024-11-03T01:30:00-04:00 stop vm-1", // 01:30 happens twice: once
			"2024-11-03T02:30:00-05:00 start vm-1",
			"2024-11-04T18:00:00-05:00 stop vm-1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.from, "America/New_York", vm("vm-1", Running, tags))
			h.runUntil(h.at(tt.to))
			got := h.src.actions()
			// mon0800 falls while the machine is already running: not needed.
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("actions:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if skipped := h.kinds("vm-1", EventActionSkipped); len(skipped) != 1 || !strings.Contains(skipped[0], "already running") {
				t.Errorf("skipped events: %q", skipped)
			}
		})
	}
}

func TestSchedulerManualChangeLastsUntilNextTransition(t *testing.T) {
	tags := map[string]string{
		"almanac-schedule-start": "mon0800_tue0800", "almanac-schedule-stop": "mon1800_tue1800",
		"almanac-schedule-timezone": "utc",
	}
	h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Stopped, tags))
	h.runUntil(h.at("2024-06-03T18:30:00Z"))
	// An engineer starts the machine during the stop period.
	h.src.set("vm-1", func(r *Resource) { r.State = Running })
	h.runUntil(h.at("2024-06-04T19:00:00Z"))
	want := []string{
		"2024-06-03T08:00:00Z start vm-1",
		"2024-06-03T18:00:00Z stop vm-1",
		// no stop between 18:30 and the next morning; the start at 08:00 is not needed
		"2024-06-04T18:00:00Z stop vm-1",
	}
	if got := h.src.actions(); !reflect.DeepEqual(got, want) {
		t.Errorf("actions %q, want %q", got, want)
	}
	changed := h.kinds("vm-1", EventStateChanged)
	if len(changed) != 1 || !strings.Contains(changed[0], "changed from stopped to running outside almanac") {
		t.Errorf("state-changed events: %q", changed)
	}
	ev := h.log.Events("vm-1")
	for _, e := range ev {
		if e.Kind == EventStateChanged && !e.Time.Equal(h.at("2024-06-03T18:45:00Z")) {
			t.Errorf("external change logged at %s, want the next inventory at 18:45", e.Time)
		}
	}
}

func TestSchedulerRetriesThenNotifies(t *testing.T) {
	tags := map[string]string{
		"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc",
		"almanac-schedule-notify": "ops@example.com",
	}
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC", vm("vm-1", Running, tags))
	h.src.fail["vm-1"] = 100
	h.runUntil(h.at("2024-06-03T19:00:00Z"))
	want := []string{
		"2024-06-03T18:00:00Z stop vm-1",
		"2024-06-03T18:00:30Z stop vm-1",
		"2024-06-03T18:01:30Z stop vm-1",
		"2024-06-03T18:03:30Z stop vm-1",
		"2024-06-03T18:07:30Z stop vm-1",
		"2024-06-03T18:12:30Z stop vm-1",
		"2024-06-03T18:15:00Z stop vm-1",
	}
	if got := h.src.actions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("attempts:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if r := h.kinds("vm-1", EventActionRetried); len(r) != 6 || !strings.Contains(r[0], "retrying at 2024-06-03T18:00:30Z: api timeout") {
		t.Errorf("retried events: %q", r)
	}
	failed := h.kinds("vm-1", EventActionFailed)
	if len(failed) != 1 || !strings.Contains(failed[0], "stop failed after 7 attempts over 15m0s: api timeout") {
		t.Errorf("failed events: %q", failed)
	}
	notes := h.notes.all()
	if len(notes) != 1 || notes[0].To != "ops@example.com" || notes[0].Kind != NotifyActionFailed ||
		!strings.Contains(notes[0].Body, "api timeout") || !notes[0].Time.Equal(h.at("2024-06-03T18:15:00Z")) {
		t.Fatalf("notifications: %+v", notes)
	}
	if sent := h.kinds("vm-1", EventNotificationSent); len(sent) != 1 {
		t.Errorf("notification events: %q", sent)
	}
}

func TestSchedulerRetrySucceeds(t *testing.T) {
	tags := map[string]string{"almanac-schedule-start": "mon0800", "almanac-schedule-timezone": "utc", "almanac-schedule-notify": "ops@example.com"}
	h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Stopped, tags))
	h.src.fail["vm-1"] = 2
	h.runUntil(h.at("2024-06-03T09:00:00Z"))
	if got := len(h.src.actions()); got != 3 {
		t.Fatalf("%d attempts, want 3: %q", got, h.src.actions())
	}
	ok := h.kinds("vm-1", EventActionSucceeded)
	if len(ok) != 1 || !strings.Contains(ok[0], "start succeeded (attempt 3): now running") {
		t.Errorf("succeeded: %q", ok)
	}
	if n := h.notes.all(); len(n) != 0 {
		t.Errorf("unexpected notifications %+v", n)
	}
	if st, _ := h.s.Resource("vm-1"); st.State != Running || st.Retry != nil {
		t.Errorf("status %+v", st)
	}
}

func TestSchedulerRetrySuperseded(t *testing.T) {
	tags := map[string]string{"almanac-schedule-start": "mon0800", "almanac-schedule-stop": "mon0805", "almanac-schedule-timezone": "utc"}
	h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Stopped, tags))
	h.src.fail["vm-1"] = 4 // start fails at 08:00, 08:00:30, 08:01:30, 08:03:30
	h.runUntil(h.at("2024-06-03T09:00:00Z"))
	skipped := h.kinds("vm-1", EventActionSkipped)
	if len(skipped) != 2 || !strings.Contains(skipped[0], "gave up retrying start: superseded by the stop at 2024-06-03T08:05:00Z") ||
		!strings.Contains(skipped[1], "not needed: already stopped") {
		t.Errorf("skipped: %q", skipped)
	}
}

func TestSchedulerRestartDoesNotRepeat(t *testing.T) {
	tags := map[string]string{"almanac-schedule-start": "mon0800", "almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc"}
	h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Stopped, tags))
	h.runUntil(h.at("2024-06-03T08:00:00Z"))
	if n := len(h.src.actions()); n != 1 {
		t.Fatalf("%d actions before restart", n)
	}
	// A second process (a restart, or a second node) with the same ledger at
	// the same instant, and an engineer who stopped the machine in between.
	h.src.set("vm-1", func(r *Resource) { r.State = Stopped })
	h.ledger.checkpoint = h.at("2024-06-03T07:59:00Z") // as if the first one died before saving it
	h.s = h.newScheduler()
	h.runUntil(h.at("2024-06-03T08:10:00Z"))
	if got := h.src.actions(); len(got) != 1 {
		t.Fatalf("start repeated after restart: %q", got)
	}
	if h.ledger.Claims() != 1 {
		t.Errorf("claims = %d", h.ledger.Claims())
	}
}

func TestSchedulerDowntimeAppliesOnlyLatest(t *testing.T) {
	tags := map[string]string{"almanac-schedule-start": "mon0800_tue0800", "almanac-schedule-stop": "mon1800_tue1800", "almanac-schedule-timezone": "utc"}
	t.Run("state unchanged: latest missed transition applied", func(t *testing.T) {
		h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Running, tags))
		h.runUntil(h.at("2024-06-03T07:30:00Z"))
		h.clk.Set(h.at("2024-06-04T19:00:00Z")) // down for a day and a half
		h.s = h.newScheduler()
		h.runUntil(h.at("2024-06-04T19:05:00Z"))
		want := []string{"2024-06-04T19:00:00Z stop vm-1"}
		if got := h.src.actions(); !reflect.DeepEqual(got, want) {
			t.Errorf("actions %q, want %q", got, want)
		}
	})
	t.Run("changed during downtime: left alone", func(t *testing.T) {
		h := newHarness(t, "2024-06-03T07:00:00Z", "UTC", vm("vm-1", Stopped, tags))
		h.runUntil(h.at("2024-06-03T07:30:00Z"))
		h.src.set("vm-1", func(r *Resource) { r.State = Running })
		h.clk.Set(h.at("2024-06-04T19:00:00Z"))
		h.s = h.newScheduler()
		h.runUntil(h.at("2024-06-04T19:05:00Z"))
		if got := h.src.actions(); len(got) != 0 {
			t.Errorf("actions %q, want none", got)
		}
		if sk := h.kinds("vm-1", EventActionSkipped); len(sk) != 1 || !strings.Contains(sk[0], "missed stop at 2024-06-04T18:00:00Z not applied") {
			t.Errorf("skipped: %q", sk)
		}
	})
}

func TestSchedulerTagChangesAtNextInventory(t *testing.T) {
	tags := map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "almanac-schedule-notify": "ops@example.com"}
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC", vm("vm-1", Running, tags))
	h.runUntil(h.at("2024-06-03T17:01:00Z"))
	h.src.set("vm-1", func(r *Resource) {
		r.Tags["almanac-schedule-stop"] = "mon1700_1900"
		r.Tags["almanac-schedule-notify"] = ""
		r.Tags["prosperops-schedule-start"] = "tue0800"
	})
	h.runUntil(h.at("2024-06-03T20:00:00Z"))
	want := []string{"2024-06-03T19:00:00Z stop vm-1"} // 18:00 is gone, 17:00 was before the change was seen
	if got := h.src.actions(); !reflect.DeepEqual(got, want) {
		t.Errorf("actions %q, want %q", got, want)
	}
	tagEvents := h.kinds("vm-1", EventTagAdded, EventTagUpdated, EventTagRemoved)
	wantEv := []string{
		"tag-added: vm-1: tag almanac-schedule-notify added: ops@example.com",
		"tag-added: vm-1: tag almanac-schedule-stop added: mon1800",
		"tag-added: vm-1: tag almanac-schedule-timezone added: utc",
		"tag-removed: vm-1: tag almanac-schedule-notify removed (was ops@example.com)",
		"tag-updated: vm-1: tag almanac-schedule-stop updated: mon1700_1900 (was mon1800)",
		"tag-added: vm-1: tag prosperops-schedule-start added: tue0800",
	}
	if !reflect.DeepEqual(tagEvents, wantEv) {
		t.Errorf("tag events:\n  %s", strings.Join(tagEvents, "\n  "))
	}
	for _, e := range h.log.Events("vm-1") {
		if e.Kind == EventTagUpdated && !e.Time.Equal(h.at("2024-06-03T17:15:00Z")) {
			t.Errorf("tag change logged at %s, want the 17:15 inventory", e.Time)
		}
	}
	notes := h.notes.all()
	if len(notes) != 1 || notes[0].Kind != NotifyScheduleChanged || notes[0].To != "ops@example.com" ||
		!strings.Contains(notes[0].Body, "updated almanac-schedule-stop = mon1700_1900 (was mon1800)") {
		t.Errorf("notifications: %+v", notes)
	}
}

func TestSchedulerValidationEventsAndHibernate(t *testing.T) {
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC",
		Resource{ID: "hib", Name: "batch", State: Running, SupportsHibernation: true, Tags: map[string]string{
			"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "almanac-schedule-stop-hibernate": "true"}},
		vm("bad", Running, map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "Mars/Olympus_Mons"}),
		vm("warn", Running, map[string]string{"prosperops-schedule-power-off": "mon1800", "prosperops-schedule-timezone": "utc",
			"prosperops-schedule-notify": "nobody", "prosperops-schedule-power-off-hibernate": "true"}),
	)
	h.runUntil(h.at("2024-06-03T19:00:00Z"))
	want := []string{"2024-06-03T18:00:00Z hibernate hib", "2024-06-03T18:00:00Z stop warn"}
	got := h.src.actions()
	sort.Strings(got) // actions at one instant run in parallel
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actions %q, want %q", got, want)
	}
	var findings []string
	for _, e := range h.log.Events("") {
		if e.Kind == EventValidationError || e.Kind == EventValidationWarning {
			findings = append(findings, fmt.Sprintf("%s %s %s=%s: %s", e.Kind, e.Resource, e.Key, e.Value, e.Message))
		}
	}
	wantF := []string{
		"validation-error bad almanac-schedule-timezone=Mars/Olympus_Mons: almanac-schedule-timezone is an invalid time zone: Mars/Olympus_Mons",
		"validation-warning warn prosperops-schedule-power-off-hibernate=true: prosperops-schedule-power-off-hibernate is enabled but instance does not support hibernation",
		"validation-warning warn prosperops-schedule-notify=nobody: prosperops-schedule-notify is an invalid email address: nobody",
	}
	if !reflect.DeepEqual(findings, wantF) {
		t.Errorf("findings:\n  %s", strings.Join(findings, "\n  "))
	}
	// Findings are logged when tags change, not at every inventory.
	h.runUntil(h.at("2024-06-03T23:00:00Z"))
	if n := len(h.kinds("bad", EventValidationError)); n != 1 {
		t.Errorf("validation error logged %d times", n)
	}
	st, _ := h.s.Resource("bad")
	if st.Validation != "errors" || st.NextStop != nil || len(st.Errors) != 1 {
		t.Errorf("status of bad: %+v", st)
	}
	st, _ = h.s.Resource("hib")
	if st.State != Hibernated || !st.Hibernate || st.NextStop == nil || st.NextStop.Format(time.RFC3339) != "2024-06-10T18:00:00Z" {
		t.Errorf("status of hib: %+v", st)
	}
}

func TestSchedulerResourceRemovedAndInventoryFailure(t *testing.T) {
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC", vm("a", Running, nil), vm("b", Running, nil))
	h.runUntil(h.at("2024-06-03T17:01:00Z"))
	h.src.mu.Lock()
	delete(h.src.res, "b")
	h.src.mu.Unlock()
	h.runUntil(h.at("2024-06-03T17:20:00Z"))
	if r := h.kinds("b", EventResourceRemoved); len(r) != 1 {
		t.Errorf("removed events %q", r)
	}
	if got := len(h.s.Resources()); got != 1 {
		t.Errorf("%d resources", got)
	}
	bad := &badSource{}
	s, _ := New(Config{Source: bad, Clock: h.clk, Events: h.log})
	if err := s.Inventory(context.Background()); err == nil || !strings.Contains(err.Error(), `duplicate id "x"`) {
		t.Errorf("Inventory error = %v", err)
	}
	if f := h.kinds("", EventInventoryFailed); len(f) != 1 {
		t.Errorf("inventory-failed events %q", f)
	}
}

type badSource struct{ testSource }

func (*badSource) List(context.Context) ([]Resource, error) {
	return []Resource{{ID: "x", State: Running}, {ID: "x", State: Running}}, nil
}

func TestNewRequiresSourceAndClock(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New without a source succeeded")
	}
}

// chanSink forwards events to a channel so a test can wait for them.
type chanSink chan Event

func (c chanSink) Record(_ context.Context, e Event) { c <- e }

func TestSchedulerRunLoop(t *testing.T) {
	clk := clock.NewFake(time.Date(2024, 6, 3, 17, 59, 0, 0, time.UTC))
	src := newTestSource(clk, time.UTC, vm("vm-1", Running, map[string]string{
		"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc"}))
	events := make(chanSink, 100)
	s, err := New(Config{Source: src, Clock: clk, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	wait := func(kind EventKind) Event {
		t.Helper()
		for {
			select {
			case e := <-events:
				if e.Kind == kind {
					return e
				}
			case <-time.After(10 * time.Second): // a hang guard, not a wait for time
				t.Fatalf("no %s event", kind)
			}
		}
	}
	wait(EventResourceAdded)
	for {
		if at, ok := clk.NextDeadline(); ok && at.Equal(time.Date(2024, 6, 3, 18, 0, 0, 0, time.UTC)) {
			break
		}
		select {
		case <-done:
			t.Fatal("Run returned")
		default:
			runtime.Gosched() // let Run arm its timer
		}
	}
	clk.Set(time.Date(2024, 6, 3, 18, 0, 0, 0, time.UTC))
	e := wait(EventActionSucceeded)
	if !e.Time.Equal(time.Date(2024, 6, 3, 18, 0, 0, 0, time.UTC)) || e.Action != ActionStop {
		t.Errorf("event %+v", e)
	}
	s.InventoryNow()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
}
