package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

const tokenCols = `name, hash, role, job_prefix, created_at, created_by, expires_at`

func scanToken(row pgx.Row) (store.Token, error) {
	var t store.Token
	var created, expires pgtype.Timestamptz
	if err := row.Scan(&t.Name, &t.Hash, &t.Role, &t.JobPrefix, &created, &t.CreatedBy, &expires); err != nil {
		return t, err
	}
	t.CreatedAt, t.ExpiresAt = fromTS(created), fromTS(expires)
	return t, nil
}

// TokenCreate stores a named token; ErrDuplicate if its name or hash is taken.
func (s *Store) TokenCreate(ctx context.Context, p store.TokenCreateParams) error {
	t := p.Token
	if t.Name == "" || t.Hash == "" {
		return errors.New("pgstore: create token: empty name or hash")
	}
	now := s.now(t.CreatedAt)
	return s.tx(ctx, 0, func(tx querier) error {
		_, err := tx.Exec(ctx, `INSERT INTO api_tokens (`+tokenCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			t.Name, t.Hash, t.Role, t.JobPrefix, now, t.CreatedBy, ts(t.ExpiresAt))
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("pgstore: token %q: %w", t.Name, store.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("pgstore: create token %q: %w", t.Name, err)
		}
		return appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// TokenByHash returns the token whose secret hashes to hash.
func (s *Store) TokenByHash(ctx context.Context, hash string) (store.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenCols+` FROM api_tokens WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("pgstore: token: %w", store.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("pgstore: find token: %w", err)
	}
	return t, nil
}

// TokenList returns every token by name.
func (s *Store) TokenList(ctx context.Context) ([]store.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenCols+` FROM api_tokens ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: list tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Token, error) { return scanToken(r) })
	if err != nil {
		return nil, fmt.Errorf("pgstore: list tokens: %w", err)
	}
	return out, nil
}

// TokenDelete revokes a token; ErrNotFound.
func (s *Store) TokenDelete(ctx context.Context, p store.TokenDeleteParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, 0, func(tx querier) error {
		tag, err := tx.Exec(ctx, `DELETE FROM api_tokens WHERE name = $1`, p.Name)
		if err != nil {
			return fmt.Errorf("pgstore: revoke token %q: %w", p.Name, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("pgstore: token %q: %w", p.Name, store.ErrNotFound)
		}
		return appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}
