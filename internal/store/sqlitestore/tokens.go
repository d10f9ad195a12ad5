package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

const tokenColumns = `name, hash, role, job_prefix, created_at, created_by, expires_at`

func scanToken(row interface{ Scan(...any) error }) (store.Token, error) {
	var t store.Token
	var created int64
	var expires sql.NullInt64
	if err := row.Scan(&t.Name, &t.Hash, &t.Role, &t.JobPrefix, &created, &t.CreatedBy, &expires); err != nil {
		return t, err
	}
	t.CreatedAt = fromMicro(sql.NullInt64{Int64: created, Valid: true})
	t.ExpiresAt = fromMicro(expires)
	return t, nil
}

// TokenCreate implements store.Store.
func (s *Store) TokenCreate(ctx context.Context, p store.TokenCreateParams) error {
	t := p.Token
	if t.Name == "" || t.Hash == "" {
		return errors.New("create token: empty name or hash")
	}
	now := s.now(t.CreatedAt)
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (`+tokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			t.Name, t.Hash, t.Role, t.JobPrefix, now.UnixMicro(), t.CreatedBy, micro(t.ExpiresAt))
		if isUnique(err) {
			return fmt.Errorf("create token %q: %w", t.Name, store.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("create token %q: %w", t.Name, err)
		}
		return s.appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}

// TokenByHash implements store.Store.
func (s *Store) TokenByHash(ctx context.Context, hash string) (store.Token, error) {
	t, err := scanToken(s.r.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("token: %w", store.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("find token: %w", err)
	}
	return t, nil
}

// TokenList implements store.Store.
func (s *Store) TokenList(ctx context.Context) ([]store.Token, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []store.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TokenDelete implements store.Store.
func (s *Store) TokenDelete(ctx context.Context, p store.TokenDeleteParams) error {
	now := s.now(time.Time{})
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE name = ?`, p.Name)
		if err != nil {
			return fmt.Errorf("revoke token %q: %w", p.Name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("token %q: %w", p.Name, store.ErrNotFound)
		}
		return s.appendEvents(ctx, tx, now, "", 0, p.Events)
	})
}
