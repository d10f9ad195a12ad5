package sqlitestore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestFilesArePrivate checks that a new data directory and the database
// files in it (including SQLite's -wal and -shm) are the owner's alone.
func TestFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A write makes SQLite create the WAL files.
	if _, err := s.JobCreate(context.Background(), store.JobCreateParams{Spec: store.JobSpec{Name: "j", Gate: "@daily", Command: []string{"true"}}}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("data directory mode %v, want 0700", fi.Mode().Perm())
	}
	if len(entries) < 2 {
		t.Errorf("expected the database and its WAL files, found %d entries", len(entries))
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, readable by others", e.Name(), fi.Mode().Perm())
		}
	}
}
