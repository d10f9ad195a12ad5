package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/migrate"
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
	// Instance identifies the process acting as the node (random per
	// start); Host and PID say where it runs.
	Instance string
	Host     string
	PID      int
	// Labels are the node's --node-label pairs (nil when none).
	Labels map[string]string
}

// ErrNodeInUse: the node's row is held by another live instance.
var ErrNodeInUse = errors.New("node name in use")

// NodeInUseError says which live instance holds a node name.
type NodeInUseError struct {
	// Other is the instance holding the name.
	Other Node
	// Age is how long ago its last heartbeat was.
	Age time.Duration
}

func (e *NodeInUseError) Error() string {
	return fmt.Sprintf("node %q is already running on host %s as pid %d (instance %s, heartbeat %s ago)",
		e.Other.ID, e.Other.Host, e.Other.PID, e.Other.Instance, e.Age.Round(time.Millisecond))
}

// Unwrap makes errors.Is(err, ErrNodeInUse) hold.
func (e *NodeInUseError) Unwrap() error { return ErrNodeInUse }

// NodeRegister claims n.ID for the instance n.Instance: it inserts the
// node's row, or takes it over if its holder is this instance or looks
// dead: no heartbeat within ttl (by the store clock), or dead(holder)
// reports true (the caller may know better, e.g. the holder's pid on this
// host no longer exists; dead may be nil). Otherwise it fails with a
// *NodeInUseError. The row is locked while it is judged, so of two
// processes registering the same name at once exactly one wins.
func (s *Store) NodeRegister(ctx context.Context, n Node, ttl time.Duration, dead func(holder Node) bool) error {
	if n.Instance == "" {
		return errors.New("pgstore: register node: empty instance")
	}
	now := s.now(n.HeartbeatAt)
	started := n.StartedAt
	if started.IsZero() {
		started = now
	}
	labels, err := encodeLabels(n.Labels)
	if err != nil {
		return fmt.Errorf("pgstore: register node %q: %w", n.ID, err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The leader may have contracted the schema since Open checked
		// it: a node that knows too little must not join. The migration
		// lock orders this against Contract, which counts live nodes.
		if err := lockMigrations(ctx, tx); err != nil {
			return err
		}
		var contracted int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version_contracted`).Scan(&contracted); err != nil {
			return err
		}
		if contracted > s.knows {
			return &migrate.TooOldError{Table: "schema_version", Schema: contracted, Contracted: contracted, Binary: s.knows}
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO nodes (id, address, version, started_at, heartbeat_at, instance, host, pid, labels, knows_schema)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
			n.ID, n.Address, n.Version, started.UTC().Truncate(time.Microsecond), now, n.Instance, n.Host, n.PID, labels, s.knows)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		var other Node
		var hb pgtype.Timestamptz
		if err := tx.QueryRow(ctx, `SELECT instance, host, pid, heartbeat_at FROM nodes WHERE id = $1 FOR UPDATE`, n.ID).
			Scan(&other.Instance, &other.Host, &other.PID, &hb); err != nil {
			return err
		}
		other.ID, other.HeartbeatAt = n.ID, fromTS(hb)
		if age := now.Sub(other.HeartbeatAt); other.Instance != n.Instance && age < ttl && (dead == nil || !dead(other)) {
			return &NodeInUseError{Other: other, Age: max(age, 0)}
		}
		_, err = tx.Exec(ctx, `
			UPDATE nodes SET address = $2, version = $3, started_at = $4, heartbeat_at = $5, instance = $6, host = $7, pid = $8, labels = $9,
			       knows_schema = $10
			 WHERE id = $1`,
			n.ID, n.Address, n.Version, started.UTC().Truncate(time.Microsecond), now, n.Instance, n.Host, n.PID, labels, s.knows)
		return err
	})
	var inUse *NodeInUseError
	if errors.As(err, &inUse) {
		return err
	}
	if err != nil {
		return fmt.Errorf("pgstore: register node %q: %w", n.ID, err)
	}
	return nil
}

// Lease is a row of the leader election's lease table (owned by package
// leader), read for the cluster view.
type Lease struct {
	Name      string
	Holder    string
	Term      int64
	ExpiresAt time.Time
}

// Cluster is the state of all nodes and the controller lease, as served by
// GET /api/v1/cluster.
type Cluster struct {
	Nodes []Node
	// Lease is the controller election's lease row (zero if no node has
	// campaigned yet).
	Lease Lease
	// Now is the database clock when the snapshot was taken, to judge
	// heartbeats and the lease expiry against.
	Now time.Time
}

// NodeHeartbeat registers n (inserting it the first time) and sets its
// heartbeat to the store clock's reading when n.HeartbeatAt is zero. It
// fails with ErrNodeInUse if another instance has taken the node's row
// over (this one looked dead to it), and then changes nothing.
func (s *Store) NodeHeartbeat(ctx context.Context, n Node) error {
	hb := s.now(n.HeartbeatAt)
	started := n.StartedAt
	if started.IsZero() {
		started = hb
	}
	labels, err := encodeLabels(n.Labels)
	if err != nil {
		return fmt.Errorf("pgstore: node heartbeat: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO nodes (id, address, version, started_at, heartbeat_at, instance, host, pid, labels, knows_schema)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, version = EXCLUDED.version,
		       started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at,
		       instance = EXCLUDED.instance, host = EXCLUDED.host, pid = EXCLUDED.pid, labels = EXCLUDED.labels,
		       knows_schema = EXCLUDED.knows_schema
		 WHERE nodes.instance = EXCLUDED.instance OR nodes.instance = ''`,
		n.ID, n.Address, n.Version, started.UTC().Truncate(time.Microsecond), hb, n.Instance, n.Host, n.PID, labels, s.knows)
	if err != nil {
		return fmt.Errorf("pgstore: node heartbeat: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: node heartbeat: node %q was taken over by another instance: %w", n.ID, ErrNodeInUse)
	}
	return nil
}

// NodeRemove deletes a node's row (on clean shutdown) if instance still
// holds it.
func (s *Store) NodeRemove(ctx context.Context, id, instance string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM nodes WHERE id = $1 AND instance = $2`, id, instance); err != nil {
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
		rows, err := tx.Query(ctx, `SELECT id, address, version, started_at, heartbeat_at, host, pid, labels FROM nodes ORDER BY id`)
		if err != nil {
			return err
		}
		c.Nodes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Node, error) {
			var n Node
			var started, hb pgtype.Timestamptz
			var labels string
			if err := r.Scan(&n.ID, &n.Address, &n.Version, &started, &hb, &n.Host, &n.PID, &labels); err != nil {
				return n, err
			}
			n.StartedAt, n.HeartbeatAt = fromTS(started), fromTS(hb)
			return n, decodeLabels(labels, &n.Labels)
		})
		if err != nil {
			return err
		}
		c.Lease = Lease{Name: s.leaseName}
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

// encodeLabels renders a node's labels for the labels column.
func encodeLabels(l map[string]string) (string, error) {
	if len(l) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return "", fmt.Errorf("labels: %w", err)
	}
	return string(b), nil
}

// decodeLabels reads the labels column into dst (nil when empty).
func decodeLabels(s string, dst *map[string]string) error {
	var l map[string]string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return fmt.Errorf("labels column %q: %w", s, err)
	}
	if len(l) > 0 {
		*dst = l
	}
	return nil
}
