package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/almanac-sh/almanac/internal/store"
)

// RebootLockAcquire implements store.Store. A transaction-scoped advisory
// lock per group serializes every node's count-then-insert, so the group
// never has more than Max holders whichever node answers.
func (s *Store) RebootLockAcquire(ctx context.Context, p store.RebootLockParams) (granted bool, err error) {
	err = s.tx(ctx, 0, func(q querier) error {
		if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('almanac reboot group ' || $1))`, p.Group); err != nil {
			return err
		}
		var held, n int
		if err := q.QueryRow(ctx, `SELECT count(*) FILTER (WHERE holder = $2), count(*) FROM reboot_locks WHERE grp = $1`, p.Group, p.Holder).Scan(&held, &n); err != nil {
			return err
		}
		switch {
		case held > 0:
			granted = true
			return nil
		case n >= p.Max:
			return nil
		}
		_, err := q.Exec(ctx, `INSERT INTO reboot_locks (grp, holder, since) VALUES ($1, $2, $3)`, p.Group, p.Holder, s.now(p.Now))
		granted = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("pgstore: take reboot slot: %w", err)
	}
	return granted, nil
}

// RebootLockRelease implements store.Store.
func (s *Store) RebootLockRelease(ctx context.Context, group, holder string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM reboot_locks WHERE grp = $1 AND holder = $2`, group, holder); err != nil {
		return fmt.Errorf("pgstore: release reboot slot: %w", err)
	}
	return nil
}

// RebootLocks implements store.Store.
func (s *Store) RebootLocks(ctx context.Context) ([]store.RebootLock, error) {
	rows, err := s.pool.Query(ctx, `SELECT grp, holder, since FROM reboot_locks ORDER BY grp, holder`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: list reboot slots: %w", err)
	}
	locks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.RebootLock, error) {
		var l store.RebootLock
		err := r.Scan(&l.Group, &l.Holder, &l.Since)
		l.Since = l.Since.UTC()
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: list reboot slots: %w", err)
	}
	return locks, nil
}
