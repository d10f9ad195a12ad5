// Package sqlitestore implements store.Store on an embedded SQLite database
// (modernc.org/sqlite, pure Go): one file under a data directory, WAL
// journal, a busy timeout, schema migrations embedded in the binary and
// applied when the store opens, and every write in a transaction.
//
// Writes go through a single connection, so writers in one process never
// contend for the SQLite write lock; reads use a separate pool and see the
// latest committed state (WAL readers do not block the writer). Leadership
// terms are ignored: a SQLite store serves one node.
package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/store"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the database file created inside the data directory.
const FileName = "almanac.db"

// busyTimeout is how long a connection waits for a lock held by another
// process (a second daemon on the same directory, a backup tool).
const busyTimeout = 10 * time.Second

// readerCacheKiB is the page cache of each reading connection, in SQLite's
// negative-means-KiB form of PRAGMA cache_size (the default is -2000).
const readerCacheKiB = -512

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a SQLite-backed store.Store. It is safe for concurrent use.
type Store struct {
	w     *sql.DB // one connection: all writes
	r     *sql.DB // reads
	path  string
	clock clock.Clock
	// stmts are the hot statements prepared on w, by query (stmts.go).
	stmts map[string]*sql.Stmt
	log   *slog.Logger
}

// Option configures Open.
type Option func(*Store)

// WithClock sets the clock used for timestamps a caller leaves zero
// (default clock.Real).
func WithClock(c clock.Clock) Option { return func(s *Store) { s.clock = c } }

// WithLogger sets where migrations are logged (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the database in dir, checks its
// integrity (PRAGMA integrity_check, about 10 s a gigabyte: see
// docs/performance.md) and applies pending migrations. It refuses
// a damaged database (ErrDamaged), and a missing or empty one in a
// directory where one was created before (ErrMissing): see SetAside.
func Open(ctx context.Context, dir string, opts ...Option) (*Store, error) {
	// The database holds every job's command and output: the directory
	// and the files are the daemon user's alone. SQLite gives its -wal and
	// -shm files the database file's mode, so creating that file 0600
	// covers them too.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if err := checkPresent(dir, path); err != nil {
		return nil, err
	}
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	dsn := "file:" + path + "?_txlock=immediate" +
		"&_pragma=busy_timeout(" + strconv.FormatInt(busyTimeout.Milliseconds(), 10) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	// Each reading connection keeps a page cache of its own: a small one,
	// since reads of pages it lacks come from the system's page cache, and
	// four full-size ones holding the same pages of the jobs table took
	// about 5 MB of a daemon with 10,000 jobs (docs/performance.md).
	r, err := sql.Open("sqlite", dsn+"&_pragma=cache_size("+strconv.Itoa(readerCacheKiB)+")")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s := &Store{w: w, r: r, path: path, clock: clock.Real{}, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := writeMarker(dir, s.clock.Now()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes both connection pools.
func (s *Store) Close() error {
	return errors.Join(s.w.Close(), s.r.Close())
}

// migrate applies the embedded migrations newer than schema_version and
// then every contract step at once, in one transaction: one daemon at a
// time opens the database (the data directory's lock), so no node of an
// older version can be reading it.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	contracts, err := fs.Glob(migrations, "migrations/contract/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := migrate.Run(ctx, migrate.SQL(tx), migrations, names, "schema_version", "?",
			migrate.Options{Contract: contracts, ContractNow: true, Log: s.log, Clock: s.clock})
		return err
	})
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE) and commits it.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// sqliteCode returns the extended result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

func isUnique(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

func isForeignKey(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// micro converts a time to the stored form: Unix microseconds, NULL for zero.
func micro(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// fromMicro converts a stored time back; NULL is the zero time.
func fromMicro(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMicro(v.Int64).UTC()
}

// appendEvents inserts events in tx, filling in defaults.
func (s *Store) appendEvents(ctx context.Context, tx *sql.Tx, now time.Time, job string, runID int64, events []store.Event) error {
	for _, e := range events {
		if e.Time.IsZero() {
			e.Time = now
		}
		if e.Job == "" {
			e.Job = job
		}
		if e.RunID == 0 {
			e.RunID = runID
		}
		store.StampActor(ctx, &e)
		var data any
		if len(e.Data) > 0 {
			data = string(e.Data)
		}
		if _, err := s.stmt(ctx, tx, sqlEvent).ExecContext(ctx,
			e.Time.UnixMicro(), string(e.Kind), e.Job, e.Resource, e.RunID, e.Message, data, e.Actor, e.Via, e.Remote); err != nil {
			return fmt.Errorf("append event: %w", err)
		}
	}
	return nil
}

// now returns t, or the store clock's reading if t is zero (callers normally
// pass their own clock's reading; the fallback keeps simple writes simple).
func (s *Store) now(t time.Time) time.Time {
	if t.IsZero() {
		t = s.clock.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// placeholders returns "?, ?, ?" for n arguments.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
