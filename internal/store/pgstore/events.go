package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

// appendEvents inserts events in tx, filling in the time, job and run a
// write's events are about when the caller left them empty.
func appendEvents(ctx context.Context, tx querier, now time.Time, job string, runID int64, events []store.Event) error {
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
		if _, err := tx.Exec(ctx,
			`INSERT INTO events (time, kind, job, resource, run_id, message, data, actor, via, remote)
			 VALUES ($1, $2, $3, $4, $5, $6, $7::json, $8, $9, $10)`,
			e.Time.UTC().Truncate(time.Microsecond), string(e.Kind), e.Job, e.Resource, e.RunID, e.Message, data,
			e.Actor, e.Via, e.Remote); err != nil {
			return fmt.Errorf("pgstore: append event: %w", err)
		}
	}
	return nil
}

// EventAppend appends events; zero times get the store clock's reading.
func (s *Store) EventAppend(ctx context.Context, events ...store.Event) error {
	if len(events) == 0 {
		return nil
	}
	now := s.now(time.Time{})
	return s.tx(ctx, 0, func(tx querier) error {
		return appendEvents(ctx, tx, now, "", 0, events)
	})
}

// EventList returns events newest first and the next page's cursor.
func (s *Store) EventList(ctx context.Context, p store.EventListParams) ([]store.Event, int64, error) {
	limit := p.Size()
	kinds := make([]string, len(p.Kinds))
	for i, k := range p.Kinds {
		kinds[i] = string(k)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT id, time, kind, job, resource, run_id, message, data::text, actor, via, remote
		  FROM events
		 WHERE ($1 = '' OR job = $1)
		   AND (cardinality($2::text[]) = 0 OR kind = ANY($2))
		   AND ($3 = 0 OR id < $3)
		   AND ($5 = '' OR resource = $5)
		   AND ($6::timestamptz IS NULL OR time >= $6)
		   AND ($7::timestamptz IS NULL OR time < $7)
		   AND ($8 = '' OR actor = $8)
		   AND ($9 = '' OR (job <> '' AND left(job, length($9)) = $9))
		 ORDER BY id DESC
		 LIMIT $4`, p.Job, kinds, p.Cursor, limit+1, p.Resource, ts(p.Since), ts(p.Until), p.Actor, p.JobPrefix)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list events: %w", err)
	}
	events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Event, error) {
		var e store.Event
		var t pgtype.Timestamptz
		var kind string
		var data *string
		if err := r.Scan(&e.ID, &t, &kind, &e.Job, &e.Resource, &e.RunID, &e.Message, &data, &e.Actor, &e.Via, &e.Remote); err != nil {
			return e, err
		}
		e.Time, e.Kind = fromTS(t), store.EventKind(kind)
		if data != nil {
			e.Data = json.RawMessage(*data)
		}
		return e, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list events: %w", err)
	}
	var next int64
	if len(events) > limit {
		events = events[:limit]
		next = events[limit-1].ID
	}
	return events, next, nil
}

// pruneBatch bounds the events one pruning statement deletes.
const pruneBatch = 5000

// EventPrune implements store.Store: the oldest events go first, a batch
// per statement, until a batch finds fewer to delete than it could.
func (s *Store) EventPrune(ctx context.Context, p store.EventPruneParams) (int, error) {
	if p.Before.IsZero() && p.Keep <= 0 {
		return 0, nil
	}
	cut := int64(-1) // events with id <= cut are beyond Keep
	if p.Keep > 0 {
		err := s.pool.QueryRow(ctx, `SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET $1`, p.Keep).Scan(&cut)
		if err != nil && err != pgx.ErrNoRows {
			return 0, fmt.Errorf("pgstore: prune events: %w", err)
		}
	}
	var before any
	if !p.Before.IsZero() {
		before = p.Before.UTC()
	}
	total := 0
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT $1)
			AND (id <= $2 OR time < $3::timestamptz)`, pruneBatch, cut, before)
		if err != nil {
			return total, fmt.Errorf("pgstore: prune events: %w", err)
		}
		total += int(tag.RowsAffected())
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
