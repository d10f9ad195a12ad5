// Package agentpg keeps the agent's resource state and apply reports in
// PostgreSQL, so that every almanac node sharing one database (`serve
// --store postgres://...`) sees the same state and reports, and a node that
// takes over the agent's applies carries on where the previous one stopped.
//
// The tables (agent_state, agent_reports) have the same intent as those of
// package agentsql; they are created by embedded SQL migrations applied at
// New under an advisory lock, tracked in a version table of their own
// (agent_schema_version), so they live beside the job store's tables in
// the same schema without interfering with its migrations.
//
// # Fencing
//
// Only the cluster leader applies, and its writes carry its term (see
// agent.WithTerm). A write with a term > 0 commits only if, at commit, the
// term is still the current term of the lease named by WithLeaseName and
// that lease has at least fence.Margin left by the database clock. The
// check and COMMIT are sent as one simple-protocol message (fence.Tx), so
// no client pause can fall between them: a leader paused past its lease
// that wakes up after a takeover has its writes rejected with
// fence.ErrStaleTerm instead of overwriting the new leader's state.
package agentpg

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultLeaseName is the election whose term fences writes by default: the
// job controller's, so the agent applies on the node that leads the
// cluster.
const DefaultLeaseName = "controller"

// Store is an agent.StateStore on PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	lease   string
	ownPool bool
}

var _ agent.StateStore = (*Store)(nil)

// Option adjusts New and Open.
type Option func(*Store)

// WithLeaseName sets the election whose term fences writes (default
// DefaultLeaseName).
func WithLeaseName(name string) Option { return func(s *Store) { s.lease = name } }

// New applies the pending migrations in the schema pool's connections use
// (their search_path) and returns the store. The caller owns pool; Close
// does not close it.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool, lease: DefaultLeaseName}
	for _, o := range opts {
		o(s)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("agentpg: %w", err)
	}
	return s, nil
}

// Open connects to the database at url (a postgres:// URL) with a pool of
// its own and returns the store; Close closes the pool.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("agentpg: connect: %w", err)
	}
	s, err := New(ctx, pool, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownPool = true
	return s, nil
}

// Close closes the pool if Open created it.
func (s *Store) Close() {
	if s.ownPool {
		s.pool.Close()
	}
}

// migrate applies the embedded migrations newer than agent_schema_version,
// in one transaction under an advisory lock. The lease table and the fence
// function its fenced writes call are package leader's (leader.Migrate).
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('almanac.agent.migrate.' || current_schema()))`); err != nil {
			return fmt.Errorf("lock migrations (check search_path): %w", err)
		}
		return migrate.Apply(ctx, migrate.Pgx(tx), migrations, names, "agent_schema_version", "$1")
	})
}

// querier is what a write does inside its transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// tx runs fn in a transaction and commits it, fenced by the term in ctx
// (agent.TermOf) when there is one (fence.Tx). what names the operation in
// errors.
func (s *Store) tx(ctx context.Context, what string, fn func(q querier) error) error {
	err := fence.Tx(ctx, s.pool, s.lease, agent.TermOf(ctx), func(conn *pgxpool.Conn) error { return fn(conn) })
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ts converts a time to a timestamptz argument; the zero time is NULL.
func ts(t time.Time) pgtype.Timestamptz {
	if t.IsZero() {
		return pgtype.Timestamptz{}
	}
	return pgtype.Timestamptz{Time: t.UTC().Truncate(time.Microsecond), Valid: true}
}

// fromTS converts a scanned timestamptz back; NULL is the zero time.
func fromTS(v pgtype.Timestamptz) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return v.Time.UTC()
}

// LoadState reads every resource's state.
func (s *Store) LoadState(ctx context.Context) (agent.State, error) {
	rows, err := s.pool.Query(ctx, `SELECT ref, checked, synced FROM agent_state`)
	if err != nil {
		return nil, fmt.Errorf("load agent state: %w", err)
	}
	defer rows.Close()
	st := agent.State{}
	for rows.Next() {
		var ref string
		var checked, synced pgtype.Timestamptz
		if err := rows.Scan(&ref, &checked, &synced); err != nil {
			return nil, fmt.Errorf("load agent state: %w", err)
		}
		st[ref] = agent.ResourceState{Checked: fromTS(checked), Synced: fromTS(synced)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load agent state: %w", err)
	}
	return st, nil
}

// SaveState replaces the state in one transaction.
func (s *Store) SaveState(ctx context.Context, st agent.State) error {
	refs := make([]string, 0, len(st))
	checked := make([]pgtype.Timestamptz, 0, len(st))
	synced := make([]pgtype.Timestamptz, 0, len(st))
	for ref, e := range st {
		refs = append(refs, ref)
		checked = append(checked, ts(e.Checked))
		synced = append(synced, ts(e.Synced))
	}
	return s.tx(ctx, "save agent state", func(q querier) error {
		if _, err := q.Exec(ctx, `DELETE FROM agent_state`); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `INSERT INTO agent_state (ref, checked, synced)
			SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[])`, refs, checked, synced)
		return err
	})
}

// AddReport inserts r and sets r.ID.
func (s *Store) AddReport(ctx context.Context, r *agent.Report) (int64, error) {
	head, b, err := agent.EncodeReport(r)
	if err != nil {
		return 0, fmt.Errorf("store apply report: %w", err)
	}
	var id int64
	err = s.tx(ctx, "store apply report", func(q querier) error {
		return q.QueryRow(ctx, `INSERT INTO agent_reports (host, started, ended, status, trigger_kind, head, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			r.Host, r.Start.UTC(), r.End.UTC(), r.Status, string(r.Trigger.Kind), string(head), string(b)).Scan(&id)
	})
	if err != nil {
		return 0, err
	}
	r.ID = id
	return id, nil
}

// ListReports returns report heads newest first.
func (s *Store) ListReports(ctx context.Context, f agent.ReportFilter) ([]*agent.Report, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = agent.DefaultListLimit
	}
	rows, err := s.pool.Query(ctx, `SELECT id, head FROM agent_reports
		WHERE $1::bigint = 0 OR id < $1 ORDER BY id DESC LIMIT $2`, f.Before, limit)
	if err != nil {
		return nil, fmt.Errorf("list apply reports: %w", err)
	}
	defer rows.Close()
	var out []*agent.Report
	for rows.Next() {
		var id int64
		var head []byte
		if err := rows.Scan(&id, &head); err != nil {
			return nil, fmt.Errorf("list apply reports: %w", err)
		}
		r, err := agent.DecodeReportHead(id, head)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list apply reports: %w", err)
	}
	return out, nil
}

// GetReport returns the full report id.
func (s *Store) GetReport(ctx context.Context, id int64) (*agent.Report, error) {
	var head, b []byte
	err := s.pool.QueryRow(ctx, `SELECT head, body FROM agent_reports WHERE id = $1`, id).Scan(&head, &b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("apply report %d: %w", id, agent.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("apply report %d: %w", id, err)
	}
	return agent.DecodeReport(id, head, b)
}

// PruneReports deletes the reports outside the retention.
func (s *Store) PruneReports(ctx context.Context, keep agent.Retention, now time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, "prune apply reports", func(q querier) error {
		if keep.Keep > 0 {
			tag, err := q.Exec(ctx, `DELETE FROM agent_reports WHERE id IN
				(SELECT id FROM agent_reports ORDER BY id DESC OFFSET $1)`, keep.Keep)
			if err != nil {
				return err
			}
			n += tag.RowsAffected()
		}
		if keep.MaxAge > 0 {
			tag, err := q.Exec(ctx, `DELETE FROM agent_reports WHERE ended < $1`, now.Add(-keep.MaxAge).UTC())
			if err != nil {
				return err
			}
			n += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(n), nil
}
