package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// ErrDataInUse is returned by Restore while a daemon holds the data
// directory.
var ErrDataInUse = sqlitestore.ErrInUse

// BackupOptions adjusts Backup.
type BackupOptions struct {
	// WithSecrets also stores the API token file of the data directory in
	// the backup, so a daemon restored from it answers the same clients.
	WithSecrets bool
}

// Backup copies the embedded store under the data directory dir to dest, a
// file that must not exist yet: one consistent snapshot, taken whether or not
// a daemon is running on dir. The backup is readable by its owner only.
func Backup(ctx context.Context, dir, dest string, opts BackupOptions) error {
	var secrets []sqlitestore.Secret
	if opts.WithSecrets {
		tok, err := apitoken.Read(dir)
		if err != nil {
			return fmt.Errorf("--with-secrets: %w", err)
		}
		secrets = append(secrets, sqlitestore.Secret{Name: apitoken.FileName, Data: []byte(tok + "\n")})
	}
	return sqlitestore.BackupWith(ctx, dir, dest, secrets)
}

// RestoreOptions adjusts Restore.
type RestoreOptions struct {
	// Suspended suspends every restored job: the daemon started on the
	// restored data runs nothing until jobs are resumed.
	Suspended bool
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	// Moved lists the files set aside (never deleted).
	Moved []string
	// Restored lists the secret files put back from the backup.
	Restored []string
	// Suspended counts the jobs suspended.
	Suspended int
}

// Restore puts the backup src in place of the embedded store under dir,
// refusing (ErrDataInUse) while a daemon uses dir. The database it
// replaces is set aside, never deleted; so is a token file the backup's
// replaces.
func Restore(ctx context.Context, src, dir string, now time.Time, opts RestoreOptions) (RestoreResult, error) {
	r, err := sqlitestore.RestoreWith(ctx, src, dir, sqlitestore.RestoreOptions{Now: now, Suspend: opts.Suspended})
	res := RestoreResult{Moved: r.Moved, Suspended: r.Suspended}
	if err != nil {
		return res, err
	}
	for _, sc := range r.Secrets {
		if sc.Name != apitoken.FileName {
			return res, fmt.Errorf("the backup carries an unknown secret %q; restore it with a newer almanac", sc.Name)
		}
		path := filepath.Join(dir, sc.Name)
		if old, err := os.ReadFile(path); err == nil && string(old) != string(sc.Data) {
			if err := os.Rename(path, path+sqlitestore.RestoreSuffix(now)); err != nil {
				return res, fmt.Errorf("set %s aside: %w", path, err)
			}
			res.Moved = append(res.Moved, path+sqlitestore.RestoreSuffix(now))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		if err := writePrivate(path, sc.Data); err != nil {
			return res, err
		}
		res.Restored = append(res.Restored, path)
	}
	return res, nil
}

// writePrivate writes data to path (mode 0600) through a temporary file.
func writePrivate(path string, data []byte) error {
	tmp := path + ".restoring"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
