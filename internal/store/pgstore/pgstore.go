// Package pgstore implements store.Store on PostgreSQL (15 or newer) with
// pgx/v5, so that several almanac nodes can share one database: one of them
// leads (package leader) and runs the job controller, every node claims and
// executes runs.
//
// # Guarantees and how they are kept
//
//   - Exactly one run per (job, scheduled time, attempt): a UNIQUE key, and
//     RunInsert uses INSERT ... ON CONFLICT DO NOTHING, so a second insert by
//     any node returns store.ErrDuplicate without aborting anything. The
//     statement names no conflict target, so it holds on either shape of
//     the key during a rolling upgrade (see Contract).
//   - Fencing: a write whose params carry a Term > 0 commits only if, at
//     commit, that term is the current term of the controller election's
//     lease row and the lease has at least fence.Margin left by the database
//     clock; otherwise it is rolled back and fails with store.ErrStaleTerm.
//     The check and COMMIT are sent as one message and run back to back on
//     the server, so no client pause can fall between them, and a takeover
//     needs the lease expired, which the margin rules out meanwhile. The
//     lease row is only read, never locked, so a busy controller never
//     holds up its own renewals. A node paused in the middle of a
//     transaction cannot keep row locks for long either: the pool sets
//     idle_in_transaction_session_timeout, and the server ends the stalled
//     session and discards its writes.
//   - Claims: RunClaim is one statement,
//     UPDATE runs ... WHERE id IN (SELECT id ... FOR UPDATE SKIP LOCKED
//     LIMIT n) RETURNING ..., so concurrent claimers on any node never get
//     the same run and never wait for each other.
//   - Liveness: executing nodes refresh runs.heartbeat_at (RunHeartbeat) and
//     their row in the nodes table (NodeHeartbeat); the leader lists runs
//     whose heartbeat is too old (RunListStale) and fails or retries them.
//   - Wake-ups: triggers NOTIFY a channel per schema when a job changes, a
//     run becomes claimable or a run finishes; Wakeups turns those into
//     channel signals so nodes need not wait for their next poll.
//
// The schema is created and upgraded by embedded SQL migrations applied at
// Open under an advisory lock, so nodes starting together do not race.
// Migrations only add (package migrate); what the previous release reads
// is removed by a contract step the leader runs once no live node of an
// older schema remains (Contract).
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/store"
)

//go:embed migrations/*.sql migrations/contract/*.sql
var migrations embed.FS

// LeaseName is the default name of the controller election whose term
// fences the controller's writes.
const LeaseName = "controller"

// DefaultIdleInTransactionTimeout bounds how long a stalled client (a
// paused process) may keep a transaction, and its lock on the lease row,
// open. It is applied unless the URL sets idle_in_transaction_session_timeout.
const DefaultIdleInTransactionTimeout = 2 * time.Second

// Store is a PostgreSQL-backed store.Store. It is safe for concurrent use.
type Store struct {
	pool      *pgxpool.Pool
	clock     clock.Clock
	leaseName string
	schema    string
	channel   string
	hub       *hub
	log       *slog.Logger
	// knows is the highest schema version this binary knows.
	knows int
	// fanOut is set once the run key includes the target (fanout.go).
	fanOut atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Option adjusts Open.
type Option func(*Store)

// WithClock sets the clock used for times the caller leaves zero (default
// clock.Real).
func WithClock(c clock.Clock) Option { return func(s *Store) { s.clock = c } }

// WithLogger sets where migrations and contractions are logged (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithLeaseName sets the election whose lease row fences writes with a
// term (default LeaseName).
func WithLeaseName(name string) Option { return func(s *Store) { s.leaseName = name } }

// Open connects to the database at url (a postgres:// URL or key=value
// connection string, with pgxpool's pool_* parameters), applies pending
// migrations and returns the store.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: parse connection URL: %w", err)
	}
	rp := cfg.ConnConfig.RuntimeParams
	if _, ok := rp["idle_in_transaction_session_timeout"]; !ok {
		rp["idle_in_transaction_session_timeout"] = strconv.FormatInt(DefaultIdleInTransactionTimeout.Milliseconds(), 10)
	}
	if _, ok := rp["application_name"]; !ok {
		rp["application_name"] = "almanac"
	}
	if !strings.Contains(url, "pool_max_conns") && cfg.MaxConns < 10 {
		cfg.MaxConns = 10
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	s := &Store{pool: pool, clock: clock.Real{}, leaseName: LeaseName, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s.channel = channelName(s.schema)
	s.hub = newHub(s)
	return s, nil
}

// Close stops the wake-up listener and closes the pool.
func (s *Store) Close() error {
	s.hub.close()
	s.pool.Close()
	return nil
}

// Pool returns the connection pool, for the leader elector
// (package leader) and diagnostics.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema returns the schema the store's tables live in.
func (s *Store) Schema() string { return s.schema }

// LeaseName returns the election whose term fences writes.
func (s *Store) LeaseName() string { return s.leaseName }

// channelName is the NOTIFY channel of a schema: channel names share one
// namespace per database, so each schema (a deployment, a test) gets its own.
// It must match the almanac_notify trigger function.
func channelName(schema string) string {
	if len(schema) > 54 {
		schema = schema[:54]
	}
	return "almanac." + schema
}

// migrate applies the embedded migrations newer than schema_version, all in
// one transaction under an advisory lock.
func (s *Store) migrate(ctx context.Context) error {
	names, contracts, err := migrationNames()
	if err != nil {
		return err
	}
	s.knows = migrate.Latest(names)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&s.schema); err != nil {
			return fmt.Errorf("no schema to create tables in (check search_path): %w", err)
		}
		if err := lockMigrations(ctx, tx); err != nil {
			return err
		}
		_, err := migrate.Run(ctx, migrate.Pgx(tx), migrations, names, "schema_version", "$1",
			migrate.Options{Contract: contracts, Log: s.log, Clock: s.clock})
		return err
	})
}

// migrationNames lists the embedded expand migrations and contract steps.
func migrationNames() (expand, contract []string, err error) {
	if expand, err = fs.Glob(migrations, "migrations/*.sql"); err != nil {
		return nil, nil, err
	}
	if contract, err = fs.Glob(migrations, "migrations/contract/*.sql"); err != nil {
		return nil, nil, err
	}
	sort.Strings(expand)
	sort.Strings(contract)
	return expand, contract, nil
}

// lockMigrations takes the schema's migration lock for the transaction.
func lockMigrations(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('almanac.migrate.' || current_schema()))`); err != nil {
		return fmt.Errorf("lock migrations: %w", err)
	}
	return nil
}

// querier is what a write does inside its transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// tx runs fn in a transaction on one pooled connection and commits it,
// fenced by term (when > 0) with the controller election's lease: see
// fence.Tx. A stale term fails with store.ErrStaleTerm.
func (s *Store) tx(ctx context.Context, term int64, fn func(q querier) error) error {
	var fnErr error
	err := fence.Tx(ctx, s.pool, s.leaseName, term, func(conn *pgxpool.Conn) error {
		fnErr = fn(conn)
		return fnErr
	})
	if err != nil && err != fnErr {
		return fmt.Errorf("pgstore: %w", err)
	}
	return err
}

// now returns t in UTC truncated to microseconds, or the clock's reading if
// t is zero.
func (s *Store) now(t time.Time) time.Time {
	if t.IsZero() {
		t = s.clock.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// ts converts a time to a query argument: NULL for the zero time.
func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond)
}

// fromTS converts a scanned timestamptz back; NULL is the zero time.
func fromTS(v pgtype.Timestamptz) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return v.Time.UTC()
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// SQLSTATE codes mapped to store errors.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)
