package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// EventAppend implements store.Store.
func (s *Store) EventAppend(ctx context.Context, events ...store.Event) error {
	if len(events) == 0 {
		return nil
	}
	now := s.now(time.Time{})
	return s.tx(ctx, func(tx *sql.Tx) error {
		return s.appendEvents(ctx, tx, now, "", 0, events)
	})
}

// EventList implements store.Store.
func (s *Store) EventList(ctx context.Context, p store.EventListParams) ([]store.Event, int64, error) {
	q := `SELECT id, time, kind, job, resource, run_id, message, data, actor, via, remote FROM events WHERE 1=1`
	var args []any
	if p.Job != "" {
		q += ` AND job = ?`
		args = append(args, p.Job)
	}
	if p.Resource != "" {
		q += ` AND resource = ?`
		args = append(args, p.Resource)
	}
	if p.Actor != "" {
		q += ` AND actor = ?`
		args = append(args, p.Actor)
	}
	if p.JobPrefix != "" {
		q += ` AND job <> '' AND substr(job, 1, length(?)) = ?`
		args = append(args, p.JobPrefix, p.JobPrefix)
	}
	if len(p.Kinds) > 0 {
		q += ` AND kind IN (` + placeholders(len(p.Kinds)) + `)`
		for _, k := range p.Kinds {
			args = append(args, string(k))
		}
	}
	if !p.Since.IsZero() {
		q += ` AND time >= ?`
		args = append(args, p.Since.UnixMicro())
	}
	if !p.Until.IsZero() {
		q += ` AND time < ?`
		args = append(args, p.Until.UnixMicro())
	}
	if p.Cursor > 0 {
		q += ` AND id < ?`
		args = append(args, p.Cursor)
	}
	size := p.Size()
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, size+1)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	var events []store.Event
	for rows.Next() {
		var (
			e    store.Event
			t    int64
			kind string
			data sql.NullString
		)
		if err := rows.Scan(&e.ID, &t, &kind, &e.Job, &e.Resource, &e.RunID, &e.Message, &data, &e.Actor, &e.Via, &e.Remote); err != nil {
			return nil, 0, fmt.Errorf("list events: %w", err)
		}
		e.Time = time.UnixMicro(t).UTC()
		e.Kind = store.EventKind(kind)
		if data.Valid {
			e.Data = json.RawMessage(data.String)
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list events: %w", err)
	}
	var next int64
	if len(events) > size {
		events = events[:size]
		next = events[size-1].ID
	}
	return events, next, nil
}

// pruneBatch bounds the events one pruning transaction deletes, so a
// first prune of a long log does not hold the write lock for long.
const pruneBatch = 5000

// EventPrune implements store.Store: the oldest events go first, a batch
// per transaction, until a batch finds fewer to delete than it could.
func (s *Store) EventPrune(ctx context.Context, p store.EventPruneParams) (int, error) {
	if p.Before.IsZero() && p.Keep <= 0 {
		return 0, nil
	}
	cut := int64(-1) // events with id <= cut are beyond Keep
	if p.Keep > 0 {
		err := s.r.QueryRowContext(ctx, `SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?`, p.Keep).Scan(&cut)
		if err != nil && err != sql.ErrNoRows {
			return 0, fmt.Errorf("prune events: %w", err)
		}
	}
	before := int64(-1 << 62)
	if !p.Before.IsZero() {
		before = p.Before.UnixMicro()
	}
	total := 0
	for {
		var n int64
		err := s.tx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?)
				AND (id <= ? OR time < ?)`, pruneBatch, cut, before)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("prune events: %w", err)
		}
		total += int(n)
		if n < pruneBatch {
			return total, nil
		}
	}
}
