package sqlitestore

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestMigrateRunTarget: a store written before runs had a target keeps
// every run (with target ”) through the table rebuild, and run ids keep
// growing past the highest id ever handed out, even a pruned one.
func TestMigrateRunTarget(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var old []string
	for _, n := range names {
		if n < "migrations/005" {
			old = append(old, n)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate.Apply(ctx, migrate.SQL(tx), migrations, old, "schema_version", "?"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for _, q := range []string{
		`INSERT INTO jobs (name, spec, source, version, created_at, updated_at) VALUES ('j', '{"name":"j","cron":"* * * * *","command":["true"]}', 'api', 1, 0, 0)`,
		`INSERT INTO runs (id, job, scheduled_time, attempt, reason, state, node, created_at, pgid) VALUES (7, 'j', ` + itoa(at) + `, 1, 'schedule', 'succeeded', 'n1', 0, 42)`,
		`INSERT INTO runs (id, job, scheduled_time, attempt, reason, state, created_at) VALUES (9, 'j', ` + itoa(at+60e6) + `, 1, 'schedule', 'failed', 0)`,
		`DELETE FROM runs WHERE id = 9`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.RunGet(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if r.Job != "j" || r.Node != "n1" || r.State != store.RunSucceeded || r.Process.PGID != 42 || r.Target != "" {
		t.Errorf("migrated run = %+v", r)
	}
	n, err := s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: time.UnixMicro(at), Target: "a"}})
	if err != nil {
		t.Fatalf("a targeted run for the migrated instant: %v", err)
	}
	if n.ID <= 9 {
		t.Errorf("new run id %d reuses a pruned run's id (9 was handed out)", n.ID)
	}
	var idx int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND name LIKE 'runs_%'`).Scan(&idx); err != nil || idx != 4 {
		t.Errorf("runs has %d named indexes (%v), want 4", idx, err)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
