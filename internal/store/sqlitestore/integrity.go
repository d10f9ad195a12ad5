package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MarkerName is the file, next to the database, that records that a
// database was created in this directory. A missing or empty database
// beside it means the data was lost, not that this is a first start.
const MarkerName = "almanac.id"

// ErrDamaged is wrapped by Open's error when the database fails SQLite's
// integrity check.
var ErrDamaged = errors.New("the database is damaged")

// ErrMissing is wrapped by Open's error when the database file is missing or
// empty although the marker shows one existed.
var ErrMissing = errors.New("the database is missing")

// recovery is the advice every refusal ends with.
const recovery = "stop every daemon using it, keep a copy of the directory, then restore a backup, " +
	"or salvage with `sqlite3 almanac.db .recover | sqlite3 recovered.db`, " +
	"or start with --reset to set the old files aside and begin empty (docs/daemon.md#a-damaged-or-missing-database)"

// checkPresent refuses a missing or empty database in a directory whose
// marker says a database was created there.
func checkPresent(dir, path string) error {
	marker, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(dir, MarkerName), err)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist, but %s shows a database was created here (%s); %s",
			ErrMissing, path, MarkerName, strings.TrimSpace(string(marker)), recovery)
	case err != nil:
		return err
	case fi.Size() == 0:
		return fmt.Errorf("%w: %s is empty, but %s shows a database was created here (%s); %s",
			ErrMissing, path, MarkerName, strings.TrimSpace(string(marker)), recovery)
	}
	return nil
}

// writeMarker records, once, that the database in dir exists.
func writeMarker(dir string, now time.Time) error {
	p := filepath.Join(dir, MarkerName)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	_, werr := fmt.Fprintf(f, "almanac database %s created %s\n", FileName, now.UTC().Format(time.RFC3339))
	return errors.Join(werr, f.Sync(), f.Close())
}

// IntegrityCheck runs SQLite's full integrity_check, which unlike
// quick_check also verifies that every index holds exactly its table's
// rows: a damaged index that loses a row would otherwise let a second job
// of one name be created. The error wraps ErrDamaged when the database is
// damaged. It reads every page, so it takes time in proportion to the
// database's size (docs/performance.md).
func (s *Store) IntegrityCheck(ctx context.Context) error {
	return s.check(ctx, "integrity_check")
}

// RefuseWrites makes every later write fail (PRAGMA query_only on the
// writing connection), for a database found damaged while it is open:
// reads still answer, so people can see what is there, but nothing is
// built on a damaged index.
func (s *Store) RefuseWrites(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		return fmt.Errorf("refuse writes to %s: %w", s.path, err)
	}
	return nil
}

// check runs PRAGMA pragma(5) on the reading pool and turns its findings
// into one line.
func (s *Store) check(ctx context.Context, pragma string) error {
	rows, err := s.r.QueryContext(ctx, `PRAGMA `+pragma+`(5)`)
	if err != nil {
		return fmt.Errorf("%w: %s: integrity check failed: %v; %s", ErrDamaged, s.path, err, recovery)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			line = strings.TrimPrefix(line, "*** in database main ***")
			problems = append(problems, strings.Join(strings.Fields(line), " "))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %s: integrity check failed: %v; %s", ErrDamaged, s.path, err, recovery)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s: %s; %s", ErrDamaged, s.path, strings.Join(problems, "; "), recovery)
	}
	return nil
}

// SetAside renames the database in dir and its WAL companions to
// almanac.db.broken-TIMESTAMP (and so on), and removes the marker, so the
// next Open starts empty; nothing is deleted. It returns the new names.
func SetAside(dir string, now time.Time) ([]string, error) {
	suffix := ".broken-" + now.UTC().Format("20060102T150405Z")
	var moved []string
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		from := filepath.Join(dir, name)
		to := from + suffix
		if err := os.Rename(from, to); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return moved, fmt.Errorf("set %s aside: %w", from, err)
		}
		moved = append(moved, to)
	}
	if err := os.Remove(filepath.Join(dir, MarkerName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return moved, err
	}
	return moved, nil
}
