package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/almanac-sh/almanac/internal/store"
)

// RebootLockAcquire implements store.Store. The single writer connection
// makes the count and the insert one atomic step.
func (s *Store) RebootLockAcquire(ctx context.Context, p store.RebootLockParams) (granted bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var held int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM reboot_locks WHERE grp = ? AND holder = ?`, p.Group, p.Holder).Scan(&held); err != nil {
			return err
		}
		if held > 0 {
			granted = true
			return nil
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM reboot_locks WHERE grp = ?`, p.Group).Scan(&n); err != nil {
			return err
		}
		if n >= p.Max {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO reboot_locks (grp, holder, since) VALUES (?, ?, ?)`, p.Group, p.Holder, s.now(p.Now).UnixMicro())
		granted = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("take reboot slot: %w", err)
	}
	return granted, nil
}

// RebootLockRelease implements store.Store.
func (s *Store) RebootLockRelease(ctx context.Context, group, holder string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM reboot_locks WHERE grp = ? AND holder = ?`, group, holder); err != nil {
			return fmt.Errorf("release reboot slot: %w", err)
		}
		return nil
	})
}

// RebootLocks implements store.Store.
func (s *Store) RebootLocks(ctx context.Context) ([]store.RebootLock, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT grp, holder, since FROM reboot_locks ORDER BY grp, holder`)
	if err != nil {
		return nil, fmt.Errorf("list reboot slots: %w", err)
	}
	defer rows.Close()
	var out []store.RebootLock
	for rows.Next() {
		var l store.RebootLock
		var since sql.NullInt64
		if err := rows.Scan(&l.Group, &l.Holder, &since); err != nil {
			return nil, fmt.Errorf("list reboot slots: %w", err)
		}
		l.Since = fromMicro(since)
		out = append(out, l)
	}
	return out, rows.Err()
}
