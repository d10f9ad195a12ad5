package agent

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lease is a fake cluster lease the test hands around.
type lease struct {
	mu      sync.Mutex
	leading bool
	term    int64
}

func (l *lease) Leading() (bool, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leading, l.term
}

func (l *lease) set(leading bool, term int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leading, l.term = leading, term
}

// termStore records the term each write was made under.
type termStore struct {
	*MemoryStore
	mu    sync.Mutex
	terms []int64
}

func (s *termStore) SaveState(ctx context.Context, st State) error {
	s.mu.Lock()
	s.terms = append(s.terms, TermOf(ctx))
	s.mu.Unlock()
	return s.MemoryStore.SaveState(ctx, st)
}

func (s *termStore) written() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.terms...)
}

func TestOnlyTheLeaderApplies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &lease{}
		st := &termStore{MemoryStore: NewMemoryStore()}
		h := newHarness(t, day0, Config{Interval: 30 * time.Minute, NoSplay: true, Store: st,
			Leading: l.Leading, LeaderCheck: time.Second})
		h.store = st.MemoryStore
		h.fake.add(fakeResource{ref: "Exec[plain]"})
		h.start()

		// A standby node applies nothing, whatever triggers it.
		if q := h.agent.Trigger("api"); q {
			t.Error("a standby node queued a manual apply")
		}
		h.agent.Notify("site.pp")
		h.runUntil(day0.Add(2 * time.Hour))
		if n := len(h.fake.triggerList()); n != 0 {
			t.Fatalf("standby node applied %d times", n)
		}
		if s := h.agent.Status(); !s.Standby || s.Pending != nil {
			t.Errorf("standby status = %+v", s)
		}

		// Another node applied meanwhile and saved its state.
		other := day0.Add(90 * time.Minute)
		if err := st.MemoryStore.SaveState(context.Background(), State{"Exec[other]": {Checked: other}}); err != nil {
			t.Fatal(err)
		}
		// Taking the lead: within one check, one apply from the shared state.
		l.set(true, 7)
		h.runUntil(day0.Add(2*time.Hour + time.Second))
		trs := h.fake.triggerList()
		if len(trs) != 1 || trs[0].Kind != TriggerLeader || !trs[0].At.Equal(day0.Add(2*time.Hour+time.Second)) {
			t.Fatalf("applies after taking the lead = %+v, want one leader apply at once", trs)
		}
		if s := h.agent.Status(); s.Standby || s.Term != 7 {
			t.Errorf("leader status = %+v", s)
		}
		state, _ := st.LoadState(context.Background())
		if !state["Exec[other]"].Checked.Equal(other) || state["Exec[plain]"].Checked.IsZero() {
			t.Errorf("state after the takeover apply = %v, want the previous leader's plus ours", state)
		}
		// The leader applies on its interval, every write under its term.
		h.runUntil(day0.Add(3 * time.Hour))
		if n := len(h.fake.triggerList()); n != 3 { // the takeover, 02:30, 03:00
			t.Errorf("%d applies while leading, want 3", n)
		}
		for _, term := range st.written() {
			if term != 7 {
				t.Errorf("state written under term %d, want 7", term)
			}
		}

		// Losing the lead stops the applies and drops what was queued.
		l.set(false, 7)
		h.runUntil(day0.Add(3*time.Hour + time.Second))
		h.agent.Trigger("api")
		h.runUntil(day0.Add(5 * time.Hour))
		if n := len(h.fake.triggerList()); n != 3 {
			t.Errorf("%d applies after losing the lead, want still 3", n)
		}
		// A new term (this node again, after a lapse) is a new takeover.
		l.set(true, 9)
		h.runUntil(day0.Add(5*time.Hour + time.Second))
		trs = h.fake.triggerList()
		if last := trs[len(trs)-1]; len(trs) != 4 || last.Kind != TriggerLeader || last.Reason != "term 9" {
			t.Errorf("applies after the new term = %+v", trs)
		}
		h.stop()
	})
}
