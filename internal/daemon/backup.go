package daemon

import (
	"context"
	"time"

	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// ErrDataInUse is returned by Restore while a daemon holds the data
// directory.
var ErrDataInUse = sqlitestore.ErrInUse

// Backup copies the embedded store under the data directory dir to dest, a
// file that must not exist yet: one consistent snapshot, taken whether or not
// a daemon is running on dir.
func Backup(ctx context.Context, dir, dest string) error {
	return sqlitestore.Backup(ctx, dir, dest)
}

// Restore puts the backup src in place of the embedded store under dir,
// refusing (ErrDataInUse) while a daemon uses dir. The database it
// replaces is set aside, never deleted; it returns the files set aside.
func Restore(ctx context.Context, src, dir string, now time.Time) ([]string, error) {
	return sqlitestore.Restore(ctx, src, dir, now)
}
