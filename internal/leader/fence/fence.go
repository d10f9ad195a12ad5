// Package fence is the one fenced write of almanac's PostgreSQL stores: a
// transaction whose COMMIT goes through only while the writer's leadership
// term is still the current term of its lease. Package leader owns the
// lease table and almanac_fence, the SQL function the commit calls
// (leader.Migrate creates both); the stores (pgstore, agentpg) import
// this package rather than leader, so they depend on the check alone and
// not on the election.
package fence

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/store"
)

// ErrStaleTerm marks a write refused because its term no longer leads. It
// is the store contract's sentinel, so every store's refusal is one error.
var ErrStaleTerm = store.ErrStaleTerm

// Margin is how much of the lease must remain for a fenced commit: it
// covers the time between the check and the end of the COMMIT that follows
// it on the server, so a takeover (which needs the lease expired) cannot
// fall in between.
const Margin = 250 * time.Millisecond

// codeStaleTerm is the SQLSTATE almanac_fence raises.
const codeStaleTerm = "AL001"

// Tx runs fn in a transaction on one connection of pool and commits it.
// For a term > 0 the commit is fenced by the lease named lease: the check
// and COMMIT travel in one simple-protocol message, so the server runs them
// back to back with no round trip in between; if the check fails the
// transaction is rolled back and Tx returns an error wrapping
// ErrStaleTerm. A client paused at any point before that message cannot
// commit later: either the check runs after the pause (and sees the new
// term), or the server's idle_in_transaction timeout has already ended the
// session and discarded the writes. fn's error is returned as it is.
func Tx(ctx context.Context, pool *pgxpool.Pool, lease string, term int64, fn func(conn *pgxpool.Conn) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left inside a transaction is destroyed, not reused.
	defer conn.Release()
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if err := fn(conn); err != nil {
		return err
	}
	commit := "COMMIT"
	if term > 0 {
		commit = fmt.Sprintf("SELECT almanac_fence(%s, %d, %s); COMMIT",
			quoteLiteral(lease), term, quoteLiteral(fmt.Sprintf("%d milliseconds", Margin.Milliseconds())))
	}
	if _, err := conn.Conn().PgConn().Exec(ctx, commit).ReadAll(); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == codeStaleTerm {
			return fmt.Errorf("%s: %w", pe.Message, ErrStaleTerm)
		}
		return fmt.Errorf("commit: %w", err)
	}
	committed = true
	return nil
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
