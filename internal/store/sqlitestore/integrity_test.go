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
		spec := store.JobSpec{Name: fmt.Sprintf("job-%03d-%s", i, strings.Repeat("x", 40)), Schedule: "@daily", Command: []string{"true"}}
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
