package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/store"
)

func elect(t testing.TB, s *Store, holder string) *leader.Elector {
	t.Helper()
	if err := leader.Migrate(context.Background(), s.Pool()); err != nil {
		t.Fatal(err)
	}
	e, err := leader.New(s.Pool(), leader.Config{Name: s.LeaseName(), Holder: holder, Clock: clock.NewFake(t0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// expireLease makes the database consider the lease expired, standing in for
// the TTL passing.
func expireLease(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.Pool().Exec(context.Background(),
		`UPDATE leader SET expires_at = now() - interval '1 second' WHERE name = $1`, s.LeaseName()); err != nil {
		t.Fatal(err)
	}
}

// TestFencing: every write that carries a term is accepted only while that
// term holds a valid lease.
func TestFencing(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	held := mustRun(t, s, "j", t0.Add(-time.Hour), time.Time{})

	insert := func(term int64, at time.Time) error {
		_, err := s.RunInsert(ctx, store.RunInsertParams{
			Run: store.Run{Job: "j", ScheduledTime: at, Reason: store.ReasonSchedule}, Advance: true, Term: term, Now: at})
		return err
	}
	if err := insert(1, t0); !errors.Is(err, store.ErrStaleTerm) {
		t.Fatalf("write before any election: %v, want ErrStaleTerm", err)
	}
	a, b := elect(t, s, "a"), elect(t, s, "b")
	st, err := a.TryAcquire(ctx)
	if err != nil || !st.Leader {
		t.Fatalf("a: %+v, %v", st, err)
	}
	termA := st.Term
	if err := insert(termA, t0); err != nil {
		t.Fatalf("leader's write: %v", err)
	}
	if err := insert(termA+1, t0.Add(time.Minute)); !errors.Is(err, store.ErrStaleTerm) {
		t.Errorf("write with a future term: %v, want ErrStaleTerm", err)
	}

	expireLease(t, s)
	if err := insert(termA, t0.Add(time.Minute)); !errors.Is(err, store.ErrStaleTerm) {
		t.Errorf("write after the lease expired: %v, want ErrStaleTerm", err)
	}
	st, err = b.TryAcquire(ctx)
	if err != nil || !st.Leader || st.Term != termA+1 {
		t.Fatalf("b takes over: %+v, %v", st, err)
	}

	// Every fenced write of the old leader is refused and changes nothing.
	code := 1
	stale := []struct {
		name  string
		write func(term int64) error
	}{
		{"RunInsert", func(term int64) error { return insert(term, t0.Add(2*time.Minute)) }},
		{"RunInsertBatch", func(term int64) error {
			at := t0.Add(4 * time.Minute)
			res, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{Term: term, Now: at, Items: []store.RunInsertParams{
				{Run: store.Run{Job: "j", ScheduledTime: at, Reason: store.ReasonSchedule}, Advance: true},
			}})
			if err == nil && res[0].Err != nil {
				err = res[0].Err
			}
			return err
		}},
		{"JobAdvance", func(term int64) error {
			return s.JobAdvance(ctx, store.JobAdvanceParams{Name: "j", LastScheduleTime: t0.Add(time.Hour), Term: term})
		}},
		{"RunRelease", func(term int64) error {
			_, err := s.RunRelease(ctx, store.RunReleaseParams{ID: held.ID, ReadyAt: t0, Term: term})
			return err
		}},
		{"RunCancel", func(term int64) error {
			_, err := s.RunCancel(ctx, store.RunCancelParams{ID: held.ID, Term: term})
			return err
		}},
		{"RunFinish", func(term int64) error {
			_, err := s.RunFinish(ctx, store.RunFinishParams{ID: held.ID, State: store.RunFailed, ExitCode: &code, Term: term})
			return err
		}},
		{"RunFinishBatch", func(term int64) error {
			// Only the batch's own error: with the current term the item
			// meets the run RunFinish has just finished.
			_, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Term: term, Items: []store.RunFinishParams{
				{ID: held.ID, State: store.RunFailed, ExitCode: &code}}})
			return err
		}},
		{"RunPrune", func(term int64) error {
			_, err := s.RunPrune(ctx, store.RunPruneParams{Job: "j", Term: term})
			return err
		}},
	}
	for _, w := range stale {
		t.Run(w.name, func(t *testing.T) {
			if err := w.write(termA); !errors.Is(err, store.ErrStaleTerm) {
				t.Errorf("old term: %v, want ErrStaleTerm", err)
			}
		})
	}
	run, _ := s.RunGet(ctx, held.ID)
	job, _ := s.JobGet(ctx, "j")
	runs, _, _ := s.RunList(ctx, store.RunListParams{Job: "j"})
	if run.State != store.RunPending || !run.ReadyAt.IsZero() || run.CancelRequested || !job.Status.LastScheduleTime.Equal(t0) || len(runs) != 2 {
		t.Errorf("stale writes left traces: run %+v, status %+v, %d runs", run, job.Status, len(runs))
	}
	// The new leader's writes, and unfenced ones, go through.
	for _, w := range stale {
		if err := w.write(termA + 1); err != nil {
			t.Errorf("%s with the current term: %v", w.name, err)
		}
	}
	if _, err := s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: t0.Add(3 * time.Minute)}}); err != nil {
		t.Errorf("unfenced write: %v", err)
	}
}

// TestFencedCommit covers a leader that stalls in the middle of a write
// (a GC pause, SIGSTOP) while another node takes over: its transaction
// must not commit when it resumes. It also covers the margin: a lease about
// to run out no longer admits writes.
func TestFencedCommit(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	a, b := elect(t, s, "a"), elect(t, s, "b")
	st, err := a.TryAcquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = s.tx(ctx, st.Term, func(q querier) error {
		if _, err := q.Exec(ctx, `UPDATE jobs SET last_schedule_time = $1`, t0); err != nil {
			return err
		}
		// The "pause": meanwhile the lease runs out and b takes over.
		expireLease(t, s)
		if st, err := b.TryAcquire(ctx); err != nil || !st.Leader {
			t.Fatalf("takeover during the write: %+v, %v", st, err)
		}
		return nil
	})
	if !errors.Is(err, store.ErrStaleTerm) {
		t.Fatalf("write that resumed after a takeover: %v, want ErrStaleTerm", err)
	}
	if j, _ := s.JobGet(ctx, "j"); !j.Status.LastScheduleTime.IsZero() {
		t.Errorf("the stale write was committed: %+v", j.Status)
	}

	if _, err := s.Pool().Exec(ctx, `UPDATE leader SET expires_at = clock_timestamp() + interval '100 milliseconds'`); err != nil {
		t.Fatal(err)
	}
	err = s.JobAdvance(ctx, store.JobAdvanceParams{Name: "j", LastScheduleTime: t0, Term: st.Term + 1})
	if !errors.Is(err, store.ErrStaleTerm) {
		t.Errorf("write with under fenceMargin of lease left: %v, want ErrStaleTerm", err)
	}
	// The connections used by failed writes went back clean.
	for i := 0; i < 20; i++ {
		if _, err := s.JobGet(ctx, "j"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWakeups(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := open(t)
	// A second store on the same schema stands for another node.
	other := openURL(t, pgtestURL(t, writer))
	all := other.Wakeups(ctx)
	runs := other.Wakeups(ctx, TopicRuns)
	jobs := other.Wakeups(ctx, TopicJobs)
	// The first signal says the listener is in place.
	for _, ch := range []<-chan struct{}{all, runs, jobs} {
		<-ch
	}
	mustJob(t, writer, "j")
	<-jobs
	<-all
	select {
	case <-runs:
		t.Error("run subscriber woken by a job change")
	default:
	}
	r := mustRun(t, writer, "j", t0, time.Time{})
	<-runs
	if _, err := writer.RunRelease(ctx, store.RunReleaseParams{ID: r.ID, ReadyAt: t0}); err != nil {
		t.Fatal(err)
	}
	<-runs
	select {
	case <-jobs:
		t.Error("job subscriber woken by run writes")
	default:
	}
	cancel()
	for range all {
	}
}

// pgtestURL returns a URL for the schema s lives in.
func pgtestURL(t *testing.T, s *Store) string {
	t.Helper()
	cfg := s.Pool().Config().ConnConfig
	return cfg.ConnString()
}

func TestCluster(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	c, err := s.Cluster(ctx)
	if err != nil || len(c.Nodes) != 0 || c.Lease.Term != 0 || c.Now.IsZero() {
		t.Fatalf("empty cluster = %+v, %v", c, err)
	}
	for _, n := range []Node{
		{ID: "b", Address: "127.0.0.1:8081", StartedAt: t0, HeartbeatAt: t0.Add(time.Second)},
		{ID: "a", Address: "127.0.0.1:8080", StartedAt: t0, HeartbeatAt: t0.Add(time.Minute)},
	} {
		if err := s.NodeHeartbeat(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NodeHeartbeat(ctx, Node{ID: "b", Address: "127.0.0.1:8081", StartedAt: t0, HeartbeatAt: t0.Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, err := elect(t, s, "a").TryAcquire(ctx); err != nil {
		t.Fatal(err)
	}
	c, err = s.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 2 || c.Nodes[0].ID != "a" || !c.Nodes[1].HeartbeatAt.Equal(t0.Add(2*time.Second)) {
		t.Errorf("nodes = %+v", c.Nodes)
	}
	if c.Lease.Holder != "a" || c.Lease.Term != 1 || !c.Lease.ExpiresAt.After(c.Now) {
		t.Errorf("lease = %+v at %v", c.Lease, c.Now)
	}
	if n, err := s.NodePrune(ctx, t0.Add(30*time.Second)); err != nil || n != 1 {
		t.Errorf("pruned %d, %v", n, err)
	}
	if err := s.NodeRemove(ctx, "a", ""); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Cluster(ctx); len(c.Nodes) != 0 {
		t.Errorf("nodes after removal = %+v", c.Nodes)
	}
}
