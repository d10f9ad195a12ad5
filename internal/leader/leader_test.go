package leader

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

func pool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := Migrate(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func elector(t *testing.T, db DB, holder string, clk clock.Clock) *Elector {
	t.Helper()
	e, err := New(db, Config{Name: "controller", Holder: holder, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// expire makes the database consider the current lease expired, standing in
// for the passage of the TTL without waiting for it.
func expire(t *testing.T, db DB) {
	t.Helper()
	if _, err := db.Exec(context.Background(),
		`UPDATE leader SET expires_at = now() - interval '1 second' WHERE name = 'controller'`); err != nil {
		t.Fatal(err)
	}
}

func TestElection(t *testing.T) {
	ctx := context.Background()
	db := pool(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := elector(t, db, "a", clk)
	b := elector(t, db, "b", clk)

	steps := []struct {
		name  string
		do    func() (Status, error)
		want  Status
		lease Lease
	}{
		{"a acquires the first term", func() (Status, error) { return a.TryAcquire(ctx) }, Status{true, 1}, Lease{Holder: "a", Term: 1}},
		{"b is refused while a holds it", func() (Status, error) { return b.TryAcquire(ctx) }, Status{false, 0}, Lease{Holder: "a", Term: 1}},
		{"a renews in the same term", func() (Status, error) { return a.TryAcquire(ctx) }, Status{true, 1}, Lease{Holder: "a", Term: 1}},
		{"b takes over an expired lease with a new term", func() (Status, error) {
			expire(t, db)
			return b.TryAcquire(ctx)
		}, Status{true, 2}, Lease{Holder: "b", Term: 2}},
		{"a's renewal is refused after the takeover", func() (Status, error) { return a.TryAcquire(ctx) }, Status{false, 1}, Lease{Holder: "b", Term: 2}},
		{"b resigns and a takes over at once", func() (Status, error) {
			if err := b.Resign(ctx); err != nil {
				return Status{}, err
			}
			return a.TryAcquire(ctx)
		}, Status{true, 3}, Lease{Holder: "a", Term: 3}},
		{"a returning after its own lease lapsed starts a new term", func() (Status, error) {
			expire(t, db)
			return a.TryAcquire(ctx)
		}, Status{true, 4}, Lease{Holder: "a", Term: 4}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, err := s.do()
			if err != nil {
				t.Fatal(err)
			}
			if got != s.want {
				t.Fatalf("status = %+v, want %+v", got, s.want)
			}
			l, err := Current(ctx, db, "controller")
			if err != nil {
				t.Fatal(err)
			}
			if l.Holder != s.lease.Holder || l.Term != s.lease.Term {
				t.Fatalf("lease = %s/%d, want %s/%d", l.Holder, l.Term, s.lease.Holder, s.lease.Term)
			}
		})
	}
}

func TestCheckTermFencesAStaleLeader(t *testing.T) {
	ctx := context.Background()
	db := pool(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := elector(t, db, "a", clk)
	b := elector(t, db, "b", clk)
	sa, err := a.TryAcquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTerm(ctx, db, "controller", sa.Term); err != nil {
		t.Fatalf("current term rejected: %v", err)
	}
	expire(t, db)
	if err := CheckTerm(ctx, db, "controller", sa.Term); !errors.Is(err, fence.ErrStaleTerm) {
		t.Fatalf("expired lease accepted: %v", err)
	}
	if _, err := b.TryAcquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := CheckTerm(ctx, db, "controller", sa.Term); !errors.Is(err, fence.ErrStaleTerm) {
		t.Fatalf("old term accepted after takeover: %v", err)
	}
	if err := CheckTerm(ctx, db, "nosuch", 1); !errors.Is(err, fence.ErrStaleTerm) {
		t.Fatalf("unknown election accepted: %v", err)
	}
}

func TestLocalDeadline(t *testing.T) {
	ctx := context.Background()
	db := pool(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := elector(t, db, "a", clk)
	if _, err := a.TryAcquire(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultTTL - time.Millisecond)
	if !a.Status().Leader {
		t.Fatal("stepped down before the lease ran out")
	}
	clk.Advance(time.Millisecond)
	if a.Status().Leader {
		t.Fatal("still leader after the local lease estimate ran out")
	}
}

func TestRunRenewsAndReleases(t *testing.T) {
	db := pool(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := elector(t, db, "a", clk)
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan Status, 16)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(s Status) { changes <- s }) }()

	if s := <-changes; s != (Status{true, 1}) {
		t.Fatalf("first change = %+v", s)
	}
	// Drive three renewals: each time the loop has re-armed its timer,
	// advance the clock to it; the term must not change.
	for i := 0; i < 3; i++ {
		waitTimer(t, clk)
		clk.Advance(DefaultRenewInterval)
	}
	waitTimer(t, clk)
	if s := a.Status(); s != (Status{true, 1}) {
		t.Fatalf("after renewals status = %+v", s)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if s := <-changes; s.Leader {
		t.Fatalf("last change = %+v, want stepped down", s)
	}
	l, err := Current(context.Background(), db, "controller")
	if err != nil {
		t.Fatal(err)
	}
	b := elector(t, db, "b", clk)
	if s, err := b.TryAcquire(context.Background()); err != nil || s != (Status{true, 2}) {
		t.Fatalf("takeover after release = %+v, %v (lease %+v)", s, err, l)
	}
}

// waitTimer blocks until the goroutine under test has armed its timer.
func waitTimer(t *testing.T, clk *clock.Fake) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for clk.PendingTimers() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("loop never re-armed its timer")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no name", Config{Holder: "a"}},
		{"no holder", Config{Name: "x"}},
		{"renew not shorter than ttl", Config{Name: "x", Holder: "a", TTL: time.Second, RenewInterval: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(nil, tt.cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestMigrateAdoptsEarlierSchema: a database from before the lease table
// had migrations (the table made from Go, the fence function from the
// store's first migration, a lease already held) takes Migrate, keeps its
// lease, and runs it again as a no-op.
func TestMigrateAdoptsEarlierSchema(t *testing.T) {
	ctx := context.Background()
	p, err := pgxpool.New(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	for _, stmt := range []string{
		`CREATE TABLE leader (name text PRIMARY KEY, holder text NOT NULL DEFAULT '', term bigint NOT NULL DEFAULT 0, expires_at timestamptz NOT NULL DEFAULT 'epoch')`,
		`INSERT INTO leader VALUES ('controller', 'old-node', 7, now() + interval '1 hour')`,
		`CREATE FUNCTION almanac_fence(lease text, want bigint, margin interval) RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$`,
	} {
		if _, err := p.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := Migrate(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	var holder string
	var term int64
	if err := p.QueryRow(ctx, `SELECT holder, term FROM leader WHERE name = 'controller'`).Scan(&holder, &term); err != nil || holder != "old-node" || term != 7 {
		t.Fatalf("lease after migrating = %q term %d, %v; want old-node's term 7 kept", holder, term, err)
	}
	// The fence is the migrated one now: a stale term is refused.
	if _, err := p.Exec(ctx, `SELECT almanac_fence('controller', 6, '0 seconds')`); err == nil || !strings.Contains(err.Error(), "AL001") {
		t.Fatalf("fence with a stale term = %v, want SQLSTATE AL001", err)
	}
}

// TestTakeoverWhenTheLeaderDies: with a pool, the leader holds the
// election's advisory lock on a session of its own. When that session ends
// (the process died; here its backend is terminated) a follower takes the
// lease at its next attempt, long before the lease runs out, with a new
// term that fences the old one. While the leader lives, nobody preempts it.
func TestTakeoverWhenTheLeaderDies(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	open := func() *pgxpool.Pool {
		p, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	pa, pb := open(), open()
	if err := Migrate(ctx, pa); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	newElector := func(db DB, holder string) *Elector {
		e, err := New(db, Config{Name: "controller", Holder: holder, TTL: time.Hour, RenewInterval: time.Second, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.Close)
		return e
	}
	a, b := newElector(pa, "a"), newElector(pb, "b")
	if st, err := a.TryAcquire(ctx); err != nil || st != (Status{true, 1}) {
		t.Fatalf("a: %+v, %v", st, err)
	}
	for range 3 {
		if st, err := b.TryAcquire(ctx); err != nil || st.Leader {
			t.Fatalf("b preempted a living leader: %+v, %v", st, err)
		}
		if st, err := a.TryAcquire(ctx); err != nil || st != (Status{true, 1}) {
			t.Fatalf("a renewing: %+v, %v", st, err)
		}
	}
	// a's process dies: its sessions end, the lease (an hour) does not.
	a.lockMu.Lock()
	pid := a.lock.PgConn().PID()
	a.lockMu.Unlock()
	// With a timeout, pg_terminate_backend returns once the backend has
	// exited, its locks released.
	var gone bool
	if err := pb.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, pid).Scan(&gone); err != nil || !gone {
		t.Fatalf("terminate a's session: %v %v", gone, err)
	}
	pa.Close()
	st, err := b.TryAcquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st != (Status{true, 2}) {
		t.Fatalf("b after a died: %+v, want the lease in term 2 at once", st)
	}
	if err := CheckTerm(ctx, pb, "controller", 1); !errors.Is(err, fence.ErrStaleTerm) {
		t.Errorf("a's term after the takeover: %v, want fence.ErrStaleTerm", err)
	}
	// The fence refuses the old term too.
	if _, err := pb.Exec(ctx, `SELECT almanac_fence('controller', 1, '0 seconds')`); err == nil || !strings.Contains(err.Error(), "AL001") {
		t.Errorf("fence with the old term: %v, want AL001", err)
	}
	// b keeps the lock: another node cannot preempt it.
	c := newElector(open(), "c")
	if st, err := c.TryAcquire(ctx); err != nil || st.Leader {
		t.Fatalf("c preempted b: %+v, %v", st, err)
	}
}

// TestNoPreemptionOfAHolderWithoutTheLock: nodes starting together can
// split the two: one takes the lock, another the free lease. The lock's
// holder must not take the lease over (it would take a living leader's
// place for nothing); the lease's holder keeps leading in its term and
// takes the lock once it is free.
func TestNoPreemptionOfAHolderWithoutTheLock(t *testing.T) {
	ctx := context.Background()
	db := pool(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a, b := elector(t, db, "a", clk), elector(t, db, "b", clk)
	if fresh, held := a.takeLock(ctx); !fresh || !held {
		t.Fatalf("a took the free lock: fresh %v, held %v", fresh, held)
	}
	if st, err := b.TryAcquire(ctx); err != nil || st != (Status{true, 1}) {
		t.Fatalf("b, the lease free: %+v, %v; want term 1", st, err)
	}
	// a takes the lock afresh, as it would have had its attempt come a
	// moment after b's.
	a.dropLock()
	if st, err := a.TryAcquire(ctx); err != nil || st.Leader {
		t.Fatalf("a with a fresh lock preempted b, which never held it: %+v, %v", st, err)
	}
	if st, err := b.TryAcquire(ctx); err != nil || st != (Status{true, 1}) {
		t.Fatalf("b renewing: %+v, %v; want term 1", st, err)
	}
	b.lockMu.Lock()
	holds := b.lock != nil
	b.lockMu.Unlock()
	if !holds {
		t.Fatal("b leads without the lock after a let it go")
	}
	l, err := Current(ctx, db, "controller")
	if err != nil || l.Holder != "b" || l.Term != 1 {
		t.Fatalf("lease %+v, %v; want b in term 1", l, err)
	}
}
