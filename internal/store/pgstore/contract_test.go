package pgstore

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
)

// applyUpTo migrates the schema at url as a binary that knows the
// migrations before number n would.
func applyUpTo(t *testing.T, pool *pgxpool.Pool, n int) error {
	t.Helper()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var old []string
	for _, name := range names {
		if migrate.Latest([]string{name}) < n {
			old = append(old, name)
		}
	}
	return pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return migrate.Apply(context.Background(), migrate.Pgx(tx), migrations, old, "schema_version", "$1")
	})
}

// oldInsert is the previous release's run insert: its ON CONFLICT names
// the key (job, scheduled_time, attempt).
const oldInsert = `
	INSERT INTO runs (job, scheduled_time, attempt, reason, state, created_at)
	VALUES ('j', $1, 1, 'schedule', 'pending', now())
	ON CONFLICT (job, scheduled_time, attempt) DO NOTHING`

// TestRollingUpgradeKeepsTheOldKey: after this release migrates a
// database the previous release created, that release's inserts still
// work (no SQLSTATE 42P10), this release's inserts see its runs as
// duplicates, fan-out waits, and the leader drops the old key only once
// no live node of the old schema remains; a binary that knows less is
// then refused with a TooOldError.
func TestRollingUpgradeKeepsTheOldKey(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := applyUpTo(t, pool, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO jobs (name, spec, source, version, created_at, updated_at)
		VALUES ('j', '{"name":"j"}', 'api', 1, now(), now())`); err != nil {
		t.Fatal(err)
	}
	s := openURL(t, url)
	at := t0
	for i := range 2 {
		if _, err := pool.Exec(ctx, oldInsert, at); err != nil {
			t.Fatalf("old release's insert %d on the expanded schema: %v", i+1, err)
		}
	}
	_, err = s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule}, Now: t0})
	if !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("this release's insert of the same instant: %v, want ErrDuplicate", err)
	}
	if ok, err := s.FanOutReady(ctx); err != nil || ok {
		t.Fatalf("FanOutReady before the contraction = %v, %v; want false", ok, err)
	}

	// A live node of the previous release (it never sets knows_schema).
	if _, err := pool.Exec(ctx, `INSERT INTO nodes (id, version, started_at, heartbeat_at) VALUES ('old', '0.9', now(), now())`); err != nil {
		t.Fatal(err)
	}
	res, err := s.Contract(ctx, 5*time.Second)
	if err != nil || len(res.Applied) != 0 || len(res.Pending) == 0 || len(res.Blocking) != 1 || res.Blocking[0].ID != "old" {
		t.Fatalf("Contract with an old node live = %+v, %v; want it waiting for node old", res, err)
	}
	if _, err := pool.Exec(ctx, oldInsert, at.Add(time.Minute)); err != nil {
		t.Fatalf("old release's insert while its node is live: %v", err)
	}

	// The old node stopped heart-beating: the contraction runs, once.
	if _, err := pool.Exec(ctx, `UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = 'old'`); err != nil {
		t.Fatal(err)
	}
	res, err = s.Contract(ctx, 5*time.Second)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].To != 7 || len(res.Pending) != 0 {
		t.Fatalf("Contract with no old node live = %+v, %v; want step 7 applied", res, err)
	}
	if res, err := s.Contract(ctx, 5*time.Second); err != nil || len(res.Applied) != 0 {
		t.Fatalf("Contract again = %+v, %v; want nothing", res, err)
	}
	if ok, err := s.FanOutReady(ctx); err != nil || !ok {
		t.Fatalf("FanOutReady after the contraction = %v, %v; want true", ok, err)
	}
	for _, target := range []string{"n1", "n2"} {
		if _, err := s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: at.Add(2 * time.Minute), Attempt: 1,
			Reason: store.ReasonSchedule, Target: target}, Now: t0}); err != nil {
			t.Fatalf("a run per target after the contraction (%s): %v", target, err)
		}
	}
	// A binary that knows only the migrations before 7 is refused.
	err = applyUpTo(t, pool, 7)
	var old *migrate.TooOldError
	if !errors.As(err, &old) || old.Contracted != 7 {
		t.Fatalf("a binary that knows schema 6 on the contracted schema: %v, want a TooOldError", err)
	}
}

// TestNodesRecordTheirSchema: a node's row says the highest schema its
// binary knows, which is what Contract waits on.
func TestNodesRecordTheirSchema(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	if err := s.NodeHeartbeat(ctx, Node{ID: "a", Instance: "i"}); err != nil {
		t.Fatal(err)
	}
	var k int
	if err := s.Pool().QueryRow(ctx, `SELECT knows_schema FROM nodes WHERE id = 'a'`).Scan(&k); err != nil || k != s.knows || k == 0 {
		t.Fatalf("knows_schema = %d, %v; want %d", k, err, s.knows)
	}
	if res, err := s.Contract(ctx, 5*time.Second); err != nil || len(res.Pending) != 0 {
		t.Fatalf("Contract on a fresh schema with a current node = %+v, %v; want nothing pending", res, err)
	}
}

// TestRegisterRefusedAfterContraction: a node whose binary knows less
// than a contraction the leader ran after it opened the store cannot
// register, with the same TooOldError as at open.
func TestRegisterRefusedAfterContraction(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO schema_version_contracted VALUES ($1)`, s.knows+1); err != nil {
		t.Fatal(err)
	}
	err := s.NodeRegister(ctx, Node{ID: "late", Instance: "i"}, 5*time.Second, nil)
	if !errors.Is(err, migrate.ErrTooOld) {
		t.Fatalf("NodeRegister after a contraction past the binary = %v, want ErrTooOld", err)
	}
}
