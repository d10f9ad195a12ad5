package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

// RunSetWaiting implements store.Store: the reasons set and the ones
// cleared, two statements in one fenced transaction.
func (s *Store) RunSetWaiting(ctx context.Context, p store.RunSetWaitingParams) error {
	if len(p.Items) == 0 {
		return nil
	}
	var setIDs, clearIDs []int64
	var kinds, details []string
	var untils []*time.Time
	for _, it := range p.Items {
		if it.Waiting == nil {
			clearIDs = append(clearIDs, it.ID)
			continue
		}
		setIDs, kinds, details = append(setIDs, it.ID), append(kinds, string(it.Waiting.Kind)), append(details, it.Waiting.Detail)
		var u *time.Time
		if !it.Waiting.Until.IsZero() {
			t := it.Waiting.Until.UTC().Truncate(time.Microsecond)
			u = &t
		}
		untils = append(untils, u)
	}
	return s.tx(ctx, p.Term, func(tx querier) error {
		if len(clearIDs) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM run_waiting WHERE run_id = ANY($1)`, clearIDs); err != nil {
				return fmt.Errorf("pgstore: record why runs wait: %w", err)
			}
		}
		if len(setIDs) > 0 {
			_, err := tx.Exec(ctx, `
				INSERT INTO run_waiting (run_id, kind, detail, until)
				SELECT v.id, v.kind, v.detail, v.until
				  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[]) AS v(id, kind, detail, until)
				  JOIN runs r ON r.id = v.id AND r.state = 'pending'
				ON CONFLICT (run_id) DO UPDATE SET kind = excluded.kind, detail = excluded.detail, until = excluded.until`,
				setIDs, kinds, details, untils)
			if err != nil {
				return fmt.Errorf("pgstore: record why runs wait: %w", err)
			}
		}
		return nil
	})
}

// RunWaiting implements store.Store.
func (s *Store) RunWaiting(ctx context.Context, ids []int64) (map[int64]store.Waiting, error) {
	out := map[int64]store.Waiting{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT w.run_id, w.kind, w.detail, w.until FROM run_waiting w
		  JOIN runs r ON r.id = w.run_id AND r.state = 'pending' AND r.ready_at IS NULL
		 WHERE w.run_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read why runs wait: %w", err)
	}
	var id int64
	var kind, detail string
	var until pgtype.Timestamptz
	_, err = pgx.ForEachRow(rows, []any{&id, &kind, &detail, &until}, func() error {
		out[id] = store.Waiting{Kind: store.WaitKind(kind), Detail: detail, Until: fromTS(until)}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: read why runs wait: %w", err)
	}
	return out, nil
}
