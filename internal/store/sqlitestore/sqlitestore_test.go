package sqlitestore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlitestore.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestReopen checks that data survives closing and that reopening an
// up-to-date database applies no migration twice.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "data")
	s, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "j", Cron: "@hourly"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sqlitestore.FileName)); err != nil {
		t.Fatalf("database file: %v", err)
	}
	s, err = sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.JobGet(ctx, "j"); err != nil {
		t.Errorf("job lost across reopen: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sqlitestore.Open(context.Background(), file)
	if err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Errorf("Open(a regular file) err = %v, want a data directory error", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, sqlitestore.FileName), []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlitestore.Open(context.Background(), dir); err == nil {
		t.Error("Open of a corrupt database file succeeded")
	}
}
