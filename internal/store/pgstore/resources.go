package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

// ResourceClaimTransition inserts a claim under the (resource, instant)
// primary key with ON CONFLICT DO NOTHING, so a second claim by any node
// returns store.ErrDuplicate without aborting anything.
func (s *Store) ResourceClaimTransition(ctx context.Context, p store.ResourceClaimParams) error {
	c := p.Claim
	if c.ResourceID == "" || c.At.IsZero() {
		return errors.New("pgstore: claim transition: resource id and instant are required")
	}
	now := s.now(c.ClaimedAt)
	return s.tx(ctx, p.Term, func(tx querier) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO resource_claims (resource_id, instant, action, claimed_at)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (resource_id, instant) DO NOTHING`,
			c.ResourceID, ts(c.At), c.Action, now)
		if err != nil {
			return fmt.Errorf("pgstore: claim transition of %s: %w", c.ResourceID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("pgstore: transition of %s at %s: %w", c.ResourceID, c.At.UTC().Format(time.RFC3339), store.ErrDuplicate)
		}
		return appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// ResourceClaims lists claims, newest transition first.
func (s *Store) ResourceClaims(ctx context.Context, p store.ResourceClaimListParams) ([]store.ResourceClaim, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT resource_id, instant, action, claimed_at
		  FROM resource_claims
		 WHERE ($1 = '' OR resource_id = $1)
		 ORDER BY instant DESC, resource_id
		 LIMIT $2`, p.ResourceID, store.Page{Limit: p.Limit}.Size())
	if err != nil {
		return nil, fmt.Errorf("pgstore: list claims: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ResourceClaim, error) {
		var c store.ResourceClaim
		var at, claimed pgtype.Timestamptz
		if err := r.Scan(&c.ResourceID, &at, &c.Action, &claimed); err != nil {
			return c, err
		}
		c.At, c.ClaimedAt = fromTS(at), fromTS(claimed)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: list claims: %w", err)
	}
	return out, nil
}

// ResourceCheckpoint returns the evaluation checkpoint; zero when never set.
func (s *Store) ResourceCheckpoint(ctx context.Context) (time.Time, error) {
	var v pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `SELECT instant FROM resource_checkpoint WHERE id = 1`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("pgstore: read checkpoint: %w", err)
	}
	return fromTS(v), nil
}

// ResourceSetCheckpoint records the evaluation checkpoint (fenced by the term).
func (s *Store) ResourceSetCheckpoint(ctx context.Context, p store.ResourceCheckpointParams) error {
	if p.At.IsZero() {
		return errors.New("pgstore: set checkpoint: zero instant")
	}
	return s.tx(ctx, p.Term, func(tx querier) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO resource_checkpoint (id, instant) VALUES (1, $1)
			ON CONFLICT (id) DO UPDATE SET instant = excluded.instant`, ts(p.At)); err != nil {
			return fmt.Errorf("pgstore: set checkpoint: %w", err)
		}
		return nil
	})
}

// ResourceInventory returns the saved inventory ordered by id.
func (s *Store) ResourceInventory(ctx context.Context) ([]store.ResourceRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, data::text, updated_at FROM resource_inventory ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read inventory: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ResourceRecord, error) {
		var rec store.ResourceRecord
		var data string
		var updated pgtype.Timestamptz
		if err := r.Scan(&rec.ID, &data, &updated); err != nil {
			return rec, err
		}
		rec.Data, rec.UpdatedAt = json.RawMessage(data), fromTS(updated)
		return rec, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: read inventory: %w", err)
	}
	return out, nil
}

// ResourceSaveInventory replaces the saved inventory in one transaction.
func (s *Store) ResourceSaveInventory(ctx context.Context, p store.ResourceInventoryParams) error {
	ids := make([]string, len(p.Records))
	data := make([]string, len(p.Records))
	updated := make([]time.Time, len(p.Records))
	now := s.now(p.Now)
	for i, r := range p.Records {
		if err := checkRecord(r); err != nil {
			return err
		}
		ids[i], data[i], updated[i] = r.ID, string(r.Data), now
		if !r.UpdatedAt.IsZero() {
			updated[i] = r.UpdatedAt.UTC().Truncate(time.Microsecond)
		}
	}
	return s.tx(ctx, p.Term, func(tx querier) error {
		if _, err := tx.Exec(ctx, `DELETE FROM resource_inventory`); err != nil {
			return fmt.Errorf("pgstore: save inventory: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO resource_inventory (id, data, updated_at)
			SELECT * FROM unnest($1::text[], $2::json[], $3::timestamptz[])`, ids, data, updated); err != nil {
			if pgCode(err) == codeUniqueViolation {
				return fmt.Errorf("pgstore: save inventory: a resource is listed twice: %w", store.ErrDuplicate)
			}
			return fmt.Errorf("pgstore: save inventory: %w", err)
		}
		return appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// ResourceSave inserts or replaces one resource of the saved inventory.
func (s *Store) ResourceSave(ctx context.Context, p store.ResourceSaveParams) error {
	if err := checkRecord(p.Record); err != nil {
		return err
	}
	now := s.now(p.Now)
	updated := now
	if !p.Record.UpdatedAt.IsZero() {
		updated = p.Record.UpdatedAt.UTC().Truncate(time.Microsecond)
	}
	return s.tx(ctx, p.Term, func(tx querier) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO resource_inventory (id, data, updated_at) VALUES ($1, $2::json, $3)
			ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			p.Record.ID, string(p.Record.Data), updated); err != nil {
			return fmt.Errorf("pgstore: save resource %s: %w", p.Record.ID, err)
		}
		return appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// checkRecord rejects a record the table could not hold faithfully.
func checkRecord(r store.ResourceRecord) error {
	if r.ID == "" {
		return errors.New("pgstore: save resource: empty id")
	}
	if !json.Valid(r.Data) {
		return fmt.Errorf("pgstore: save resource %s: data is not valid JSON", r.ID)
	}
	return nil
}
