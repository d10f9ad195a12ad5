package agentpg_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/agent/agentpg"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

// recorder is an applier that checks one resource and remembers the state
// each apply started from.
type recorder struct {
	clk clock.Clock
	mu  sync.Mutex
	got []agent.Request
}

func (r *recorder) Apply(_ context.Context, req agent.Request) (*agent.Report, error) {
	now := r.clk.Now()
	r.mu.Lock()
	r.got = append(r.got, agent.Request{Trigger: req.Trigger, State: req.State.Clone()})
	r.mu.Unlock()
	req.State["Exec[vacuum]"] = agent.ResourceState{Checked: now, Synced: now}
	rep := &agent.Report{Start: now, End: now,
		Resources: []agent.ResourceStatus{{Ref: "Exec[vacuum]", Status: agent.StatusChanged}}}
	rep.Finish()
	return rep, nil
}

func (r *recorder) applies() []agent.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Request(nil), r.got...)
}

// node is one daemon's share of the test: its pool, elector and agent.
type node struct {
	name    string
	rec     *recorder
	agent   *agent.Agent
	elector *leader.Elector
	stop    func()
}

func startNode(t *testing.T, url, name string) *node {
	t.Helper()
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := agentpg.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.Real{}
	// A short lease and quick checks keep the takeover fast; the test
	// polls for it with a deadline.
	if err := leader.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	e, err := leader.New(pool, leader.Config{Name: agentpg.DefaultLeaseName, Holder: name,
		TTL: 3 * time.Second, RenewInterval: 50 * time.Millisecond, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	leading := func() (bool, int64) { s := e.Status(); return s.Leader, s.Term }
	n := &node{name: name, rec: &recorder{clk: clk}, elector: e}
	n.agent, err = agent.New(agent.Config{Applier: n.rec, Store: st, Clock: clk, Host: name,
		Interval: 100 * time.Millisecond, NoSplay: true, Leading: leading, LeaderCheck: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); e.Run(actx, nil) }()
	go func() {
		defer wg.Done()
		if err := n.agent.Run(actx); err != nil {
			t.Errorf("%s: agent: %v", name, err)
		}
	}()
	var once sync.Once
	n.stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(n.stop)
	return n
}

// poll waits for cond, failing the test after a deadline.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two agents share one schema and one lease: only the leader applies, and
// when it stops the other takes over from the state the first one saved.
func TestOnlyTheLeaderAppliesAndTheOtherTakesOver(t *testing.T) {
	url := pgtest.Schema(t)
	a := startNode(t, url, "a")
	poll(t, "a to lead", func() bool { return a.elector.Status().Leader })
	b := startNode(t, url, "b")

	// Both run a 100 ms interval; a applies again and again, b never.
	poll(t, "a's fifth apply", func() bool { return len(a.rec.applies()) >= 5 })
	poll(t, "b to report standby", func() bool { return b.agent.Status().Standby })
	if b.agent.Trigger("api") {
		t.Error("the standby node queued a manual apply")
	}
	poll(t, "a's tenth apply", func() bool { return len(a.rec.applies()) >= 10 })
	if n := len(b.rec.applies()); n != 0 {
		t.Fatalf("the standby node applied %d times", n)
	}
	if st := a.agent.Status(); st.Standby || st.Term == 0 {
		t.Errorf("leader's status = %+v", st)
	}

	// a stops (and resigns); b takes over and starts from a's state.
	stopped := time.Now()
	a.stop()
	aLast := a.rec.applies()
	poll(t, "b's first apply", func() bool { return len(b.rec.applies()) >= 1 })
	t.Logf("takeover after %v", time.Since(stopped))
	first := b.rec.applies()[0]
	if first.Trigger.Kind != agent.TriggerLeader {
		t.Errorf("b's first apply trigger = %+v, want %s", first.Trigger, agent.TriggerLeader)
	}
	if first.State["Exec[vacuum]"].Checked.IsZero() {
		t.Errorf("b started from state %v, without what a saved", first.State)
	}
	if n := len(a.rec.applies()); n != len(aLast) {
		t.Errorf("a applied %d times after it stopped", n-len(aLast))
	}
	poll(t, "b's third apply", func() bool { return len(b.rec.applies()) >= 3 })

	// The reports of both leaders are in the shared store.
	reps, err := b.agent.ListReports(t.Context(), agent.ReportFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	for _, r := range reps {
		hosts[r.Host]++
	}
	if hosts["a"] < 5 || hosts["b"] < 1 || len(hosts) != 2 {
		t.Errorf("reports by host = %v", hosts)
	}
}
