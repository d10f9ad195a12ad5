package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/almanac-sh/almanac/internal/store"
)

// RunSetWaiting implements store.Store: one upsert (or delete, for a nil
// reason) per item, in one transaction.
func (s *Store) RunSetWaiting(ctx context.Context, p store.RunSetWaitingParams) error {
	if len(p.Items) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, it := range p.Items {
			var err error
			if it.Waiting == nil {
				_, err = tx.ExecContext(ctx, `DELETE FROM run_waiting WHERE run_id = ?`, it.ID)
			} else {
				w := it.Waiting
				_, err = tx.ExecContext(ctx, `INSERT INTO run_waiting (run_id, kind, detail, until)
					SELECT id, ?2, ?3, ?4 FROM runs WHERE id = ?1 AND state = 'pending'
					ON CONFLICT (run_id) DO UPDATE SET kind = excluded.kind, detail = excluded.detail, until = excluded.until`,
					it.ID, string(w.Kind), w.Detail, micro(w.Until))
			}
			if err != nil {
				return fmt.Errorf("record why run %d waits: %w", it.ID, err)
			}
		}
		return nil
	})
}

// RunWaiting implements store.Store.
func (s *Store) RunWaiting(ctx context.Context, ids []int64) (map[int64]store.Waiting, error) {
	out := map[int64]store.Waiting{}
	for len(ids) > 0 {
		n := min(len(ids), 500) // SQLite's bound on host parameters
		chunk := ids[:n]
		ids = ids[n:]
		args := make([]any, n)
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT w.run_id, w.kind, w.detail, w.until FROM run_waiting w
			JOIN runs r ON r.id = w.run_id AND r.state = 'pending' AND r.ready_at IS NULL
			WHERE w.run_id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read why runs wait: %w", err)
		}
		for rows.Next() {
			var id int64
			var kind, detail string
			var until sql.NullInt64
			if err := rows.Scan(&id, &kind, &detail, &until); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read why runs wait: %w", err)
			}
			out[id] = store.Waiting{Kind: store.WaitKind(kind), Detail: detail, Until: fromMicro(until)}
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("read why runs wait: %w", err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read why runs wait: %w", err)
		}
	}
	return out, nil
}
