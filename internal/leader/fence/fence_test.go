package fence_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

// TestTx: a fenced write commits under the lease's current term, and is
// rolled back with ErrStaleTerm under an older term, an expired lease or
// an election nobody won; an unfenced write (term 0) always commits; fn's
// own error comes back as it is, and rolls the write back.
func TestTx(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := leader.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE writes (n int)`); err != nil {
		t.Fatal(err)
	}
	e, err := leader.New(pool, leader.Config{Name: "controller", Holder: "a", TTL: time.Minute, Clock: clock.Real{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	st, err := e.TryAcquire(ctx)
	if err != nil || !st.Leader || st.Term < 1 {
		t.Fatalf("campaign: %+v, %v", st, err)
	}
	// Later takeovers, so that older terms than the current one exist.
	var term int64
	if err := pool.QueryRow(ctx, `UPDATE leader SET term = term + 5 WHERE name = 'controller' RETURNING term`).Scan(&term); err != nil {
		t.Fatal(err)
	}
	errOwn := errors.New("fn failed")
	tests := []struct {
		name   string
		lease  string
		term   int64
		fnErr  error
		stale  bool
		writes bool
	}{
		{"current term", "controller", term, nil, false, true},
		{"unfenced", "controller", 0, nil, false, true},
		{"older term", "controller", term - 1, nil, true, false},
		{"newer term", "controller", term + 1, nil, true, false},
		{"no such election", "nobody", 1, nil, true, false},
		{"fn fails", "controller", term, errOwn, false, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fence.Tx(ctx, pool, tt.lease, tt.term, func(conn *pgxpool.Conn) error {
				if _, err := conn.Exec(ctx, `INSERT INTO writes VALUES ($1)`, i); err != nil {
					return err
				}
				return tt.fnErr
			})
			switch {
			case tt.fnErr != nil && err != tt.fnErr:
				t.Errorf("Tx = %v, want fn's error as it is", err)
			case tt.stale != errors.Is(err, fence.ErrStaleTerm):
				t.Errorf("Tx = %v, want stale %v", err, tt.stale)
			case tt.fnErr == nil && !tt.stale && err != nil:
				t.Errorf("Tx = %v", err)
			}
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM writes WHERE n = $1`, i).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if (n == 1) != tt.writes {
				t.Errorf("%d rows written, want written %v", n, tt.writes)
			}
		})
	}
	// A lease that has expired fences its own holder out.
	if _, err := pool.Exec(ctx, `UPDATE leader SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	err = fence.Tx(ctx, pool, "controller", term, func(*pgxpool.Conn) error { return nil })
	if !errors.Is(err, fence.ErrStaleTerm) {
		t.Errorf("Tx under an expired lease = %v, want ErrStaleTerm", err)
	}
}
