package sqlitestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestBackupRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	st, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "kept", Cron: "* * * * *", Shell: "true"}, Source: store.SourceAPI, Now: now}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "b.db")
	// Taken while the store is open (a daemon running).
	if err := Backup(ctx, src, backup); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := Backup(ctx, src, backup); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup over an existing file: %v", err)
	}
	if err := Backup(ctx, filepath.Join(dir, "none"), filepath.Join(dir, "x.db")); err == nil {
		t.Error("backup of a missing database succeeded")
	}

	dst := filepath.Join(dir, "dst")
	lock, err := Lock(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, backup, dst, now); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "process ") {
		t.Errorf("restore under a lock: %v, want ErrInUse naming the process", err)
	}
	lock.Unlock()
	if _, err := Restore(ctx, backup, dst, now); err != nil {
		t.Fatal(err)
	}
	// A second restore sets the first aside.
	moved, err := Restore(ctx, backup, dst, now)
	if err != nil || len(moved) == 0 || !strings.Contains(moved[0], ".before-restore-20261127T040000Z") {
		t.Fatalf("second restore: %v %v", moved, err)
	}
	got, err := Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if _, err := got.JobGet(ctx, "kept"); err != nil {
		t.Errorf("restored store lacks the job: %v", err)
	}
}

func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := filepath.Join(dir, "newer")
	st, err := Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES (999)"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	tests := []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "none"), "no such file"},
		{"not a database", junk, "not a SQLite database"},
		{"newer schema", filepath.Join(newer, FileName), "schema version 999, newer than this binary's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Check(ctx, tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}
