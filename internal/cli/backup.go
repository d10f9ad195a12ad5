package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/almanac-sh/almanac/internal/daemon"
)

func init() {
	register("backup", "copy the embedded (SQLite) store consistently, while the daemon runs", runBackup)
	register("restore", "replace the embedded store with a backup (refused while a daemon runs)", runRestore)
}

// runBackup copies the database under --data to FILE. It reads the
// database file directly (a WAL snapshot), so it works whether or not a
// daemon runs, without a token; PostgreSQL stores are backed up with
// pg_dump (docs/install.md).
func runBackup(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("backup")
	data := fs.String("data", envOr("ALMANAC_DATA", defaultDataDir), "the daemon's data directory (env ALMANAC_DATA)")
	secrets := fs.Bool("with-secrets", false, "also store the API token of --data in the backup (mode 0600), so the restored daemon answers the same clients")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("backup: want one FILE to write")
	}
	if err := daemon.Backup(ctx, *data, pos[0], daemon.BackupOptions{WithSecrets: *secrets}); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	with := ""
	if *secrets {
		with = " with the API token (keep the file private)"
	}
	fmt.Fprintf(e.stdout, "backed up %s to %s%s\n", *data, pos[0], with)
	return nil
}

// runRestore puts the backup FILE in place of the database under --data.
func runRestore(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("restore")
	data := fs.String("data", envOr("ALMANAC_DATA", defaultDataDir), "the data directory to restore into (env ALMANAC_DATA)")
	suspended := fs.Bool("suspended", false, "suspend every restored job, so the daemon started on it runs nothing until jobs are resumed (for inspection)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("restore: want one backup FILE")
	}
	res, err := daemon.Restore(ctx, pos[0], *data, e.now(), daemon.RestoreOptions{Suspended: *suspended})
	if errors.Is(err, daemon.ErrDataInUse) {
		return fmt.Errorf("restore: %w; stop it first (systemctl stop almanac)", err)
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, m := range res.Moved {
		fmt.Fprintf(e.stdout, "set aside %s\n", m)
	}
	for _, r := range res.Restored {
		fmt.Fprintf(e.stdout, "restored %s\n", r)
	}
	if *suspended {
		fmt.Fprintf(e.stdout, "suspended %d jobs; resume them with almanac resume JOB\n", res.Suspended)
	}
	fmt.Fprintf(e.stdout, "restored %s into %s; start the daemon\n", pos[0], *data)
	return nil
}
