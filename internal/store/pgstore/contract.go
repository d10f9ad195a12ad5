package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/almanac-sh/almanac/internal/migrate"
)

// ContractResult is what one call of Contract did or why it waited.
type ContractResult struct {
	// Applied lists the contract steps run now (each also logged).
	Applied []migrate.Step
	// Pending lists the steps still to run, and Blocking the live nodes
	// whose binaries know too old a schema for the first of them.
	Pending  []int
	Blocking []Node
}

// Contract runs the contract steps this binary knows that no live node
// still needs: a node is live if it heart-beat within live (by the
// database clock), and a step numbered N waits while a live node knows a
// schema below N (nodes of releases before the knows_schema column count
// as knowing 0). It runs in one transaction under the migration lock, so
// a node starting meanwhile either sees the contracted schema or is
// already registered and counted. The leader calls it; a follower may
// too, it only finds nothing to do or the same answer.
func (s *Store) Contract(ctx context.Context, live time.Duration) (ContractResult, error) {
	var res ContractResult
	_, contracts, err := migrationNames()
	if err != nil {
		return res, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		mt := migrate.Pgx(tx)
		res = ContractResult{}
		pending, err := migrate.Pending(ctx, mt, contracts, "schema_version")
		if err != nil || len(pending) == 0 {
			return err
		}
		if err := lockMigrations(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			SELECT id, version, host, pid, knows_schema FROM nodes
			 WHERE heartbeat_at > now() - make_interval(secs => $1) ORDER BY id`, live.Seconds())
		if err != nil {
			return err
		}
		minLive := s.knows
		var nodes []Node
		var knows []int
		for rows.Next() {
			var n Node
			var k int
			if err := rows.Scan(&n.ID, &n.Version, &n.Host, &n.PID, &k); err != nil {
				rows.Close()
				return err
			}
			nodes, knows = append(nodes, n), append(knows, k)
			minLive = min(minLive, k)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		res.Applied, err = migrate.Contract(ctx, mt, migrations, contracts, "schema_version", "$1", minLive,
			migrate.Options{Log: s.log, Clock: s.clock})
		if err != nil {
			return err
		}
		if res.Pending, err = migrate.Pending(ctx, mt, contracts, "schema_version"); err != nil {
			return err
		}
		if len(res.Pending) > 0 {
			for i, n := range nodes {
				if knows[i] < res.Pending[0] {
					res.Blocking = append(res.Blocking, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("pgstore: contract schema: %w", err)
	}
	return res, nil
}

// FanOutReady reports whether the run key includes the target, so that
// an instant may have one run per node: true once the contract step of
// migration 007 ran, or on a database whose 007 dropped the old key at
// once. Until then a fanned-out job's instants are skipped (package job).
// A true answer is remembered: a schema does not expand back.
func (s *Store) FanOutReady(ctx context.Context) (bool, error) {
	if s.fanOut.Load() {
		return true, nil
	}
	var old bool
	err := s.pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM pg_constraint
		                WHERE conrelid = to_regclass('runs') AND conname = 'runs_job_scheduled_time_attempt_key')`).Scan(&old)
	if err != nil {
		return false, fmt.Errorf("pgstore: read the run key: %w", err)
	}
	if !old {
		s.fanOut.Store(true)
	}
	return !old, nil
}
