package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/store"
)

// LockName is the file in the data directory that names the pid of the
// daemon using it, for the message a refused second process prints. The
// lock itself is on the directory (see Lock): deleting or replacing this
// file changes nothing.
const LockName = "almanac.lock"

// ErrInUse is returned by Lock and Restore when a daemon uses the directory.
var ErrInUse = errors.New("a daemon is using the data directory")

// DirLock is a held data-directory lock.
type DirLock struct{ dir, f *os.File }

// Lock takes the data directory's lock, which a daemon holds as long as
// it runs, so Restore can refuse to replace the database under it and a
// second daemon on the directory is refused. The lock is an exclusive
// flock on the directory itself, held through an open descriptor of it:
// no file inside can be removed or replaced to lose it, and the kernel
// drops it with the process however that ends. LockName records the
// holder's pid beside it.
func Lock(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open data directory: %w", err)
	}
	path := filepath.Join(dir, LockName)
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := "unknown"
			if b, rerr := readSmall(path, 32); rerr == nil {
				if _, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
					pid = strings.TrimSpace(string(b))
				}
			}
			return nil, fmt.Errorf("%w: %s is locked by process %s", ErrInUse, dir, pid)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Processes of releases that locked only this file still find it
	// taken.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked (its %s) by another process", ErrInUse, dir, LockName)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{dir: d, f: f}, nil
}

// readSmall reads at most n bytes of path.
func readSmall(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// Unlock releases the lock.
func (l *DirLock) Unlock() error { return errors.Join(l.f.Close(), l.dir.Close()) }

// Backup writes a consistent copy of the database in dir to dest while
// daemons may be writing to it: VACUUM INTO reads one snapshot (a WAL read
// transaction) and writes a compact database, which is then synced and
// renamed into place. dest must not exist.
func Backup(ctx context.Context, dir, dest string) error {
	return BackupWith(ctx, dir, dest, nil)
}

// Secret is a file of the data directory a backup may carry besides the
// database (backup --with-secrets): the API token, say.
type Secret struct {
	Name string
	Data []byte
}

// secretsTable holds a backup's secrets inside the backup file; Restore
// takes them out before the database goes into place.
const secretsTable = "almanac_backup_secrets"

// BackupWith is Backup that also stores secrets in the backup file
// (which, like every backup, only its owner may read).
func BackupWith(ctx context.Context, dir, dest string, secrets []Secret) error {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no database to back up: %w", err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("%s exists; give a new file name", dest)
	}
	tmp := dest + ".partial"
	os.Remove(tmp)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout("+strconv.FormatInt(busyTimeout.Milliseconds(), 10)+")")
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("back up %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if len(secrets) > 0 {
		if err := editBackup(ctx, tmp, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE `+secretsTable+` (name TEXT PRIMARY KEY, data BLOB NOT NULL)`); err != nil {
				return err
			}
			for _, sc := range secrets {
				if _, err := tx.ExecContext(ctx, `INSERT INTO `+secretsTable+` (name, data) VALUES (?, ?)`, sc.Name, sc.Data); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("add secrets to %s: %w", dest, err)
		}
	}
	if err := syncAndRename(tmp, dest); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// syncAndRename makes tmp durable, private and renames it to dest.
func syncAndRename(tmp, dest string) error {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = errors.Join(f.Chmod(0o600), f.Sync(), f.Close())
	if err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(dest)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Check opens the database file at path read-only and checks that it is
// an almanac database this binary can use: intact (quick_check) and at a
// schema version no newer than its migrations.
func Check(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var result string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&result); err != nil {
		return fmt.Errorf("%s is not a SQLite database: %w", path, err)
	}
	if result != "ok" {
		return fmt.Errorf("%s is damaged: %s", path, result)
	}
	var version int
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&version); err != nil {
		return fmt.Errorf("%s is not an almanac database: %w", path, err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if latest := migrate.Latest(names); version > latest {
		return fmt.Errorf("%s has schema version %d, newer than this binary's %d; restore it with a newer almanac", path, version, latest)
	}
	return nil
}

// Restore replaces the database in dir with the backup at src. It takes
// the directory's lock first, so it refuses while a daemon runs there
// (ErrInUse); it checks the backup (see Check); the database it replaces,
// if any, is set aside as almanac.db.before-restore-TIMESTAMP, never
// deleted. It returns the names of the files set aside.
func Restore(ctx context.Context, src, dir string, now time.Time) ([]string, error) {
	res, err := RestoreWith(ctx, src, dir, RestoreOptions{Now: now})
	return res.Moved, err
}

// RestoreOptions adjusts RestoreWith.
type RestoreOptions struct {
	// Now stamps the files set aside and the events written.
	Now time.Time
	// Suspend suspends every job of the restored database, so the daemon
	// started on it runs nothing until an operator resumes jobs (restore
	// --suspended, for inspection).
	Suspend bool
}

// RestoreResult is what RestoreWith did.
type RestoreResult struct {
	// Moved lists the files set aside.
	Moved []string
	// Secrets are those the backup carried (BackupWith), for the caller
	// to put back in place; they are not left in the database.
	Secrets []Secret
	// Suspended counts the jobs Suspend suspended.
	Suspended int
}

// RestoreWith is Restore with options; it returns the backup's secrets.
func RestoreWith(ctx context.Context, src, dir string, opts RestoreOptions) (RestoreResult, error) {
	var res RestoreResult
	now := opts.Now
	if err := Check(ctx, src); err != nil {
		return res, err
	}
	lock, err := Lock(dir)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	path := filepath.Join(dir, FileName)
	tmp := path + ".restoring"
	if err := copyFile(src, tmp); err != nil {
		os.Remove(tmp)
		return res, err
	}
	if err := editBackup(ctx, tmp, func(tx *sql.Tx) error {
		var err error
		if res.Secrets, err = takeSecrets(ctx, tx); err != nil {
			return err
		}
		if opts.Suspend {
			res.Suspended, err = suspendAll(ctx, tx, now)
		}
		return err
	}); err != nil {
		os.Remove(tmp)
		return res, fmt.Errorf("prepare %s: %w", src, err)
	}
	suffix := RestoreSuffix(now)
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		from := filepath.Join(dir, name)
		if err := os.Rename(from, from+suffix); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			os.Remove(tmp)
			return res, fmt.Errorf("set %s aside: %w", from, err)
		}
		res.Moved = append(res.Moved, from+suffix)
	}
	if err := syncAndRename(tmp, path); err != nil {
		return res, err
	}
	return res, writeMarker(dir, now)
}

// RestoreSuffix is what a file a restore sets aside gets appended.
func RestoreSuffix(now time.Time) string {
	return ".before-restore-" + now.UTC().Format("20060102T150405Z")
}

// editBackup changes the database file at path (a backup, or a copy about
// to be restored, which no daemon has open) in one transaction.
func editBackup(ctx context.Context, path string, fn func(*sql.Tx) error) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// takeSecrets reads and drops the secrets table of a backup, if any.
func takeSecrets(ctx context.Context, tx *sql.Tx) ([]Secret, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, secretsTable).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT name, data FROM `+secretsTable+` ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var out []Secret
	for rows.Next() {
		var sc Secret
		if err := rows.Scan(&sc.Name, &sc.Data); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, sc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE `+secretsTable)
	return out, err
}

// suspendAll suspends every job not suspended yet, with an event each
// saying why, and returns how many it suspended.
func suspendAll(ctx context.Context, tx *sql.Tx, now time.Time) (int, error) {
	at := now.UnixMicro()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO events (time, kind, job, message)
		SELECT ?, ?, name, 'suspended by almanac restore --suspended' FROM jobs
		 WHERE coalesce(json_extract(spec, '$.suspend'), 0) <> 1`, at, string(store.EventJobSuspended)); err != nil {
		return 0, err
	}
	r, err := tx.ExecContext(ctx, `
		UPDATE jobs SET spec = json_set(spec, '$.suspend', json('true')), version = version + 1, updated_at = ?
		 WHERE coalesce(json_extract(spec, '$.suspend'), 0) <> 1`, at)
	if err != nil {
		return 0, err
	}
	n, err := r.RowsAffected()
	return int(n), err
}

// copyFile copies src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
