package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore/sqlitedamage"
	_ "modernc.org/sqlite"
)

// populated creates a store in a new directory with enough jobs that its
// indexes span pages, closes it and returns the directory.
func populated(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		spec := store.JobSpec{Name: fmt.Sprintf("job-%03d-%s", i, strings.Repeat("x", 40)), Gate: "@daily", Command: []string{"true"}}
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// corruptIndex overwrites one page of an index b-tree with garbage.
func corruptIndex(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type = 'index' AND rootpage > 1 ORDER BY rootpage DESC LIMIT 1`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesDamage(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, dir string)
		want    error
		message string
	}{
		{"corrupted index page", func(t *testing.T, dir string) {
			corruptIndex(t, filepath.Join(dir, sqlitestore.FileName))
		}, sqlitestore.ErrDamaged, "--reset"},
		{"deleted database", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, sqlitestore.FileName)); err != nil {
				t.Fatal(err)
			}
		}, sqlitestore.ErrMissing, "does not exist"},
		{"emptied database", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, sqlitestore.FileName), 0); err != nil {
				t.Fatal(err)
			}
		}, sqlitestore.ErrMissing, "is empty"},
		{"garbage file", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, sqlitestore.FileName), []byte(strings.Repeat("not sqlite ", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, sqlitestore.ErrDamaged, "--reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := populated(t)
			tt.damage(t, dir)
			s, err := sqlitestore.Open(context.Background(), dir)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the damaged directory")
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Open error %q, want %v with %q on one line", err, tt.want, tt.message)
			}

			// Setting the files aside lets a new, empty database start and
			// keeps the old file.
			moved, err := sqlitestore.SetAside(dir, time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range moved {
				if _, err := os.Stat(m); err != nil {
					t.Errorf("set-aside file %s: %v", m, err)
				}
			}
			s, err = sqlitestore.Open(context.Background(), dir)
			if err != nil {
				t.Fatalf("Open after SetAside: %v", err)
			}
			defer s.Close()
			jobs, err := s.JobList(context.Background(), store.JobListParams{})
			if err != nil || len(jobs) != 0 {
				t.Errorf("after SetAside: %d jobs, %v; want an empty store", len(jobs), err)
			}
		})
	}
}

// TestFirstStartIsNotALoss checks that an empty directory starts without
// complaint and leaves the marker behind.
func TestFirstStartIsNotALoss(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, sqlitestore.MarkerName)); err != nil {
		t.Errorf("marker: %v", err)
	}
}

// TestOpenFindsALostIndexEntry: a database whose index lost a row is
// refused at Open, before a second job of the lost name can be created.
func TestOpenFindsALostIndexEntry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"job-1", "job-2", "job-4"} {
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: name, Cron: "@daily", Command: []string{"true"}}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	path := filepath.Join(dir, sqlitestore.FileName)
	if err := sqlitedamage.LoseIndexEntry(path, "sqlite_autoindex_jobs_1", "job-2", "job-3"); err != nil {
		t.Fatal(err)
	}

	// quick_check, all the start-up ran before, sees nothing wrong.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var quick string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&quick); err != nil || quick != "ok" {
		t.Fatalf("quick_check = %q, %v; the damage is not the kind this test means", quick, err)
	}
	db.Close()

	s, err = sqlitestore.Open(ctx, dir)
	if err == nil {
		defer s.Close()
		_, getErr := s.JobGet(ctx, "job-2")
		_, createErr := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "job-2", Cron: "@daily", Command: []string{"true"}}})
		t.Fatalf("Open accepted a damaged index (get job-2: %v; create job-2 again: %v)", getErr, createErr)
	}
	if !errors.Is(err, sqlitestore.ErrDamaged) || !strings.Contains(err.Error(), "sqlite_autoindex_jobs_1") {
		t.Errorf("Open = %v, want ErrDamaged naming the index", err)
	}
}

// TestRefuseWrites: after RefuseWrites reads answer and writes fail.
func TestRefuseWrites(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RefuseWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "a", Cron: "@daily", Command: []string{"true"}}}); err == nil {
		t.Error("a write succeeded after RefuseWrites")
	}
	if _, err := s.JobList(ctx, store.JobListParams{}); err != nil {
		t.Errorf("a read failed after RefuseWrites: %v", err)
	}
}
