package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Node is one almanac process sharing the database.
type Node struct {
	// ID identifies the node (the holder name it campaigns with).
	ID string
	// Address is where its API listens, for operators.
	Address string
	// Version is the almanac version it runs.
	Version     string
	StartedAt   time.Time
	HeartbeatAt time.Time
}

// Cluster is the state of all nodes and the controller lease, as served by
// GET /api/v1/cluster.
type Cluster struct {
	Nodes []Node
	// Lease is the controller election's lease row (zero if no node has
	// campaigned yet).
	Lease leader.Lease
	// Now is the database clock when the snapshot was taken, to judge
	// heartbeats and the lease expiry against.
	Now time.Time
}

// NodeHeartbeat registers n (inserting it the first time) and sets its
// heartbeat to the store clock's reading when n.HeartbeatAt is zero.
func (s *Store) NodeHeartbeat(ctx context.Context, n Node) error {
	hb := s.now(n.HeartbeatAt)
	started := n.StartedAt
	if started.IsZero() {
		started = hb
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO nodes (id, address, version, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, version = EXCLUDED.version,
		       started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at`,
		n.ID, n.Address, n.Version, started.UTC().Truncate(time.Microsecond), hb)
	if err != nil {
		return fmt.Errorf("pgstore: node heartbeat: %w", err)
	}
	return nil
}

// NodeRemove deletes a node's row (on clean shutdown).
func (s *Store) NodeRemove(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM nodes WHERE id = $1`, id); err != nil {
		return fmt.Errorf("pgstore: remove node: %w", err)
	}
	return nil
}

// NodePrune deletes nodes whose last heartbeat is before t, so the cluster
// view does not keep nodes that are gone for good.
func (s *Store) NodePrune(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM nodes WHERE heartbeat_at < $1`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("pgstore: prune nodes: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// Cluster returns the nodes (ordered by ID), the controller lease and the
// database clock, read in one snapshot.
func (s *Store) Cluster(ctx context.Context) (Cluster, error) {
	var c Cluster
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var now pgtype.Timestamptz
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			return err
		}
		c.Now = fromTS(now)
		rows, err := tx.Query(ctx, `SELECT id, address, version, started_at, heartbeat_at FROM nodes ORDER BY id`)
		if err != nil {
			return err
		}
		c.Nodes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Node, error) {
			var n Node
			var started, hb pgtype.Timestamptz
			err := r.Scan(&n.ID, &n.Address, &n.Version, &started, &hb)
			n.StartedAt, n.HeartbeatAt = fromTS(started), fromTS(hb)
			return n, err
		})
		if err != nil {
			return err
		}
		c.Lease = leader.Lease{Name: s.leaseName}
		var exp pgtype.Timestamptz
		err = tx.QueryRow(ctx, `SELECT holder, term, expires_at FROM leader WHERE name = $1`, s.leaseName).
			Scan(&c.Lease.Holder, &c.Lease.Term, &exp)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		c.Lease.ExpiresAt = fromTS(exp)
		return err
	})
	if err != nil {
		return Cluster{}, fmt.Errorf("pgstore: cluster: %w", err)
	}
	return c, nil
}
