package migrate

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
)

// SQL adapts a database/sql transaction (the SQLite stores).
func SQL(tx *sql.Tx) Tx { return sqlTx{tx} }

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, q, args...)
	return err
}

func (t sqlTx) QueryInt(ctx context.Context, q string) (int, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// Pgx adapts a pgx transaction (the PostgreSQL stores).
func Pgx(tx pgx.Tx) Tx { return pgxTx{tx} }

type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.Exec(ctx, q, args...)
	return err
}

func (t pgxTx) QueryInt(ctx context.Context, q string) (int, error) {
	var n int
	err := t.tx.QueryRow(ctx, q).Scan(&n)
	return n, err
}
