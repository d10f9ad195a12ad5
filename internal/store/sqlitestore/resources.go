package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// ResourceClaimTransition implements store.ResourceStore.
func (s *Store) ResourceClaimTransition(ctx context.Context, p store.ResourceClaimParams) error {
	c := p.Claim
	if c.ResourceID == "" || c.At.IsZero() {
		return errors.New("claim transition: resource id and instant are required")
	}
	now := s.now(c.ClaimedAt)
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO resource_claims (resource_id, instant, action, claimed_at) VALUES (?, ?, ?, ?)`,
			c.ResourceID, c.At.UnixMicro(), c.Action, now.UnixMicro())
		if isUnique(err) {
			return fmt.Errorf("transition of %s at %s: %w", c.ResourceID, c.At.UTC().Format(time.RFC3339), store.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("claim transition of %s: %w", c.ResourceID, err)
		}
		return s.appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// ResourceClaims implements store.ResourceStore.
func (s *Store) ResourceClaims(ctx context.Context, p store.ResourceClaimListParams) ([]store.ResourceClaim, error) {
	q := `SELECT resource_id, instant, action, claimed_at FROM resource_claims`
	var args []any
	if p.ResourceID != "" {
		q += ` WHERE resource_id = ?`
		args = append(args, p.ResourceID)
	}
	q += ` ORDER BY instant DESC, resource_id LIMIT ?`
	args = append(args, store.Page{Limit: p.Limit}.Size())
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	defer rows.Close()
	var out []store.ResourceClaim
	for rows.Next() {
		var c store.ResourceClaim
		var at, claimed int64
		if err := rows.Scan(&c.ResourceID, &at, &c.Action, &claimed); err != nil {
			return nil, fmt.Errorf("list claims: %w", err)
		}
		c.At, c.ClaimedAt = time.UnixMicro(at).UTC(), time.UnixMicro(claimed).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	return out, nil
}

// ResourceCheckpoint implements store.ResourceStore.
func (s *Store) ResourceCheckpoint(ctx context.Context) (time.Time, error) {
	var v sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT instant FROM resource_checkpoint WHERE id = 1`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read checkpoint: %w", err)
	}
	return fromMicro(v), nil
}

// ResourceSetCheckpoint implements store.ResourceStore.
func (s *Store) ResourceSetCheckpoint(ctx context.Context, p store.ResourceCheckpointParams) error {
	if p.At.IsZero() {
		return errors.New("set checkpoint: zero instant")
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO resource_checkpoint (id, instant) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET instant = excluded.instant`,
			p.At.UnixMicro())
		if err != nil {
			return fmt.Errorf("set checkpoint: %w", err)
		}
		return nil
	})
}

// ResourceInventory implements store.ResourceStore.
func (s *Store) ResourceInventory(ctx context.Context) ([]store.ResourceRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, data, updated_at FROM resource_inventory ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read inventory: %w", err)
	}
	defer rows.Close()
	var out []store.ResourceRecord
	for rows.Next() {
		var r store.ResourceRecord
		var data string
		var updated int64
		if err := rows.Scan(&r.ID, &data, &updated); err != nil {
			return nil, fmt.Errorf("read inventory: %w", err)
		}
		r.Data, r.UpdatedAt = json.RawMessage(data), time.UnixMicro(updated).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read inventory: %w", err)
	}
	return out, nil
}

// ResourceSaveInventory implements store.ResourceStore.
func (s *Store) ResourceSaveInventory(ctx context.Context, p store.ResourceInventoryParams) error {
	for _, r := range p.Records {
		if err := checkRecord(r); err != nil {
			return err
		}
	}
	now := s.now(p.Now)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM resource_inventory`); err != nil {
			return fmt.Errorf("save inventory: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO resource_inventory (id, data, updated_at) VALUES (?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("save inventory: %w", err)
		}
		defer stmt.Close()
		for _, r := range p.Records {
			if _, err := stmt.ExecContext(ctx, r.ID, string(r.Data), updatedAt(r, now)); err != nil {
				if isUnique(err) {
					return fmt.Errorf("save inventory: resource %q listed twice: %w", r.ID, store.ErrDuplicate)
				}
				return fmt.Errorf("save inventory: %w", err)
			}
		}
		return s.appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// ResourceSave implements store.ResourceStore.
func (s *Store) ResourceSave(ctx context.Context, p store.ResourceSaveParams) error {
	if err := checkRecord(p.Record); err != nil {
		return err
	}
	now := s.now(p.Now)
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO resource_inventory (id, data, updated_at) VALUES (?, ?, ?)
			 ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			p.Record.ID, string(p.Record.Data), updatedAt(p.Record, now))
		if err != nil {
			return fmt.Errorf("save resource %s: %w", p.Record.ID, err)
		}
		return s.appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// checkRecord rejects a record the table could not hold faithfully.
func checkRecord(r store.ResourceRecord) error {
	if r.ID == "" {
		return errors.New("save resource: empty id")
	}
	if !json.Valid(r.Data) {
		return fmt.Errorf("save resource %s: data is not valid JSON", r.ID)
	}
	return nil
}

func updatedAt(r store.ResourceRecord, now time.Time) int64 {
	if r.UpdatedAt.IsZero() {
		return now.UnixMicro()
	}
	return r.UpdatedAt.UnixMicro()
}
