// Package migrate applies numbered SQL migrations, embedded in the binary,
// to a database inside one transaction the caller owns. It is shared by
// the SQLite and PostgreSQL stores, which differ only in how they run a
// statement and write a placeholder.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Tx is what Apply needs of the caller's transaction.
type Tx interface {
	// Exec runs a statement.
	Exec(ctx context.Context, sql string, args ...any) error
	// QueryInt runs a query that answers one integer.
	QueryInt(ctx context.Context, sql string) (int, error)
}

// Apply creates the version table if it is missing and runs, in order,
// every migration in names (read from fsys) whose number, the digits
// before the first '_' of its base name, is above the recorded version.
// placeholder is the dialect's first bind parameter ("$1" or "?"). A
// database newer than every migration is refused, so an old binary does
// not write to a schema it does not know.
func Apply(ctx context.Context, tx Tx, fsys fs.ReadFileFS, names []string, table, placeholder string) error {
	names = append([]string(nil), names...)
	sort.Strings(names)
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (version integer NOT NULL)`); err != nil {
		return fmt.Errorf("create %s: %w", table, err)
	}
	current, err := tx.QueryInt(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+table)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	latest := 0
	for _, name := range names {
		base := path.Base(name)
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", base)
		}
		latest = max(latest, n)
		if n <= current {
			continue
		}
		body, err := fsys.ReadFile(name)
		if err != nil {
			return err
		}
		if err := tx.Exec(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if err := tx.Exec(ctx, `INSERT INTO `+table+` (version) VALUES (`+placeholder+`)`, n); err != nil {
			return err
		}
	}
	if current > latest {
		return fmt.Errorf("database schema version %d is newer than this binary's %d; upgrade almanac", current, latest)
	}
	return nil
}

// Latest is the highest migration number among names (0 for none or for
// names without a number): the schema version a binary knows.
func Latest(names []string) int {
	latest := 0
	for _, name := range names {
		if n, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0]); err == nil {
			latest = max(latest, n)
		}
	}
	return latest
}
