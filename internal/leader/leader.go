// Package leader elects one leader among almanac nodes that share a
// PostgreSQL database, with a lease row and a term number.
//
// The lease is one row per election name:
//
//	leader(name PRIMARY KEY, holder, term, expires_at)
//
// A node acquires or renews it with a single conditional UPDATE that the
// database evaluates against its own clock (now()), so the nodes' clocks
// never decide who leads:
//
//	UPDATE leader SET holder = $me, expires_at = now() + ttl,
//	       term = CASE WHEN holder = $me AND expires_at >= now() THEN term ELSE term + 1 END
//	 WHERE name = $name AND (holder = $me OR expires_at < now())
//	RETURNING term
//
// The term increases every time leadership changes hands (or a holder comes
// back after its own lease lapsed). Every write the leader makes carries the
// term it was elected with, and the store rejects a write whose term is no
// longer the current one: that is the fence that stops a paused old leader
// (a long GC pause, SIGSTOP) from acting after another node took over.
//
// States of one node:
//
//	          acquire ok                 renew ok
//	follower ───────────▶ leader(term) ◀─────────┐
//	   ▲                     │  └────────────────┘
//	   │   renew refused,    │
//	   └─ error, or lease ───┘
//	      expired locally
//
// A leader that cannot renew (database unreachable, row taken) steps down as
// soon as its local estimate of the lease runs out, measured from the moment
// it sent the last successful renewal, so it always steps down no later than
// the database lets another node take over.
package leader

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/migrate"
)

// DB is what the elector needs from a connection pool; *pgxpool.Pool and
// *pgx.Conn provide it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Defaults for Config.
const (
	DefaultTTL           = 5 * time.Second
	DefaultRenewInterval = time.Second
)

// Config configures an Elector.
type Config struct {
	// Name identifies the election; nodes with the same name compete.
	Name string
	// Holder identifies this node (host name plus process id, say).
	Holder string
	// TTL is how long a lease lasts without renewal (default 5 s).
	TTL time.Duration
	// RenewInterval is how often the leader renews and a follower retries
	// (default 1 s). It must be shorter than TTL.
	RenewInterval time.Duration
	// Clock paces the loop and measures the local lease estimate.
	Clock clock.Clock
	// Logger receives leadership changes; nil discards them.
	Logger *slog.Logger
}

// Status is a node's view of its own leadership.
type Status struct {
	Leader bool
	Term   int64
}

// Lease is the lease row as stored.
type Lease struct {
	Name      string
	Holder    string
	Term      int64
	ExpiresAt time.Time
}

// Elector campaigns for one lease. Its methods are safe for concurrent use.
type Elector struct {
	db  DB
	cfg Config
	// sessions, when db can lend a connection of its own (*pgxpool.Pool
	// can), enables fast takeover: see liveness.
	sessions sessionSource

	mu       sync.Mutex
	status   Status
	deadline time.Time // local instant the current lease is assumed to end

	// lock is the session holding the election's advisory lock, nil when
	// this node holds none. Only TryAcquire and Resign touch it, under
	// lockMu.
	lockMu sync.Mutex
	lock   *pgx.Conn
}

// sessionSource lends a connection for the elector's own session.
type sessionSource interface {
	Acquire(ctx context.Context) (*pgxpool.Conn, error)
}

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate brings the database's lease table and fence function (the
// objects this package owns) up to date, in one transaction under an
// advisory lock, recording the version in leader_schema_version. Nodes
// that elect a leader call it before campaigning; stores whose writes are
// fenced rely on it having run.
func Migrate(ctx context.Context, db interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('almanac.leader.migrate.' || current_schema()))`); err != nil {
			return fmt.Errorf("lock migrations (check search_path): %w", err)
		}
		return migrate.Apply(ctx, migrate.Pgx(tx), migrations, names, "leader_schema_version", "$1")
	})
	if err != nil {
		return fmt.Errorf("leader: migrate: %w", err)
	}
	return nil
}

// New returns an Elector. It does not touch the database until Run or
// TryAcquire is called.
func New(db DB, cfg Config) (*Elector, error) {
	if cfg.Name == "" || cfg.Holder == "" {
		return nil, errors.New("leader: name and holder are required")
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.RenewInterval == 0 {
		cfg.RenewInterval = DefaultRenewInterval
	}
	if cfg.RenewInterval >= cfg.TTL {
		return nil, fmt.Errorf("leader: renew interval %v must be shorter than the lease TTL %v", cfg.RenewInterval, cfg.TTL)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Elector{db: db, cfg: cfg}
	e.sessions, _ = db.(sessionSource)
	return e, nil
}

// Status returns this node's current view. A lease whose local estimate has
// run out is reported as lost even before the loop notices.
func (e *Elector) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.status.Leader && !e.cfg.Clock.Now().Before(e.deadline) {
		return Status{Term: e.status.Term}
	}
	return e.status
}

// TryAcquire makes one attempt to acquire or renew the lease and returns
// the resulting status.
//
// With a pool (fast takeover), the node also takes the election's
// advisory lock on a session of its own when it is free, and holds it for
// as long as it leads; the lease row records whether its holder held the
// lock (locked). A node that takes the lock now, when it did not hold it,
// knows the session of whoever held it has ended (its process died, or its
// connection did): if the lease's holder was that lock's holder, the node
// takes the lease at once with a new term instead of waiting for it to run
// out. A holder that never had the lock (it took the lease while another
// node's session held it, as when nodes start together) is not preempted.
// A node that loses the lease gives the lock up. The fence serialises with such a takeover (it reads the lease row
// FOR SHARE), so a write of the old term either committed before the new
// term or is refused.
func (e *Elector) TryAcquire(ctx context.Context) (Status, error) {
	sent := e.cfg.Clock.Now()
	ttl := fmt.Sprintf("%d microseconds", e.cfg.TTL.Microseconds())
	if _, err := e.db.Exec(ctx,
		`INSERT INTO leader (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, e.cfg.Name); err != nil {
		return e.lose(fmt.Errorf("leader: %w", err))
	}
	takeover, locked := e.takeLock(ctx)
	var term int64
	err := e.db.QueryRow(ctx, `
		UPDATE leader
		   SET term = CASE WHEN holder = $2 AND expires_at >= now() THEN term ELSE term + 1 END,
		       holder = $2,
		       expires_at = now() + $3::interval,
		       locked = $5
		 WHERE name = $1 AND (holder = $2 OR expires_at < now() OR ($4::boolean AND locked))
		RETURNING term`, e.cfg.Name, e.cfg.Holder, ttl, takeover, locked).Scan(&term)
	if errors.Is(err, pgx.ErrNoRows) {
		e.dropLock()
		return e.lose(nil)
	}
	if err != nil {
		return e.lose(fmt.Errorf("leader: acquire: %w", err))
	}
	e.mu.Lock()
	prev := e.status
	e.status = Status{Leader: true, Term: term}
	e.deadline = sent.Add(e.cfg.TTL)
	e.mu.Unlock()
	if !prev.Leader || prev.Term != term {
		e.cfg.Logger.Info("became leader", "election", e.cfg.Name, "holder", e.cfg.Holder, "term", term)
	}
	return Status{Leader: true, Term: term}, nil
}

// takeLock makes sure this node holds the election's advisory lock on its
// own session. It reports whether the node holds it (held) and whether it
// took it just now (fresh): then whoever held it before is gone. Both are
// false when another session holds the lock, and without a pool (the
// lease's expiry alone decides then).
func (e *Elector) takeLock(ctx context.Context) (fresh, held bool) {
	if e.sessions == nil {
		return false, false
	}
	e.lockMu.Lock()
	defer e.lockMu.Unlock()
	if e.lock != nil {
		if _, err := e.lock.Exec(ctx, `SELECT 1`); err == nil {
			return false, true
		}
		// The session broke: the lock went with it.
		e.lock.Close(context.WithoutCancel(ctx))
		e.lock = nil
	}
	pc, err := e.sessions.Acquire(ctx)
	if err != nil {
		return false, false
	}
	var got bool
	if err := pc.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext('almanac.leader.' || current_schema() || '.' || $1))`, e.cfg.Name).Scan(&got); err != nil || !got {
		pc.Release()
		return false, false
	}
	// Keep the session out of the pool: the lock must never be lent.
	e.lock = pc.Hijack()
	return true, true
}

// Close ends the elector's own session, if it holds one (the advisory lock
// of a leader), without touching the lease. Run and Resign release it
// themselves; Close is for an elector used without Run.
func (e *Elector) Close() { e.dropLock() }

// dropLock releases the advisory lock and ends the session that held it.
// The lock is released by a statement first: closing the session alone
// frees it only once the server's backend has exited, a moment later, and
// the node that should take it next would find it still held.
func (e *Elector) dropLock() {
	e.lockMu.Lock()
	defer e.lockMu.Unlock()
	if e.lock != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, _ = e.lock.Exec(ctx, `SELECT pg_advisory_unlock_all()`) // a broken session has let it go already
		e.lock.Close(ctx)
		cancel()
		e.lock = nil
	}
}

// lose records that this node does not lead (keeping the last term for
// reference) and returns err.
func (e *Elector) lose(err error) (Status, error) {
	e.mu.Lock()
	prev := e.status
	still := prev.Leader && e.cfg.Clock.Now().Before(e.deadline) && err != nil
	if !still {
		e.status.Leader = false
	}
	st := e.status
	e.mu.Unlock()
	if prev.Leader && !st.Leader {
		e.cfg.Logger.Warn("lost leadership", "election", e.cfg.Name, "holder", e.cfg.Holder, "term", prev.Term, "err", err)
	}
	return st, err
}

// Run campaigns until ctx ends: a follower retries and a leader renews
// every RenewInterval. onChange, if not nil, is called from Run's goroutine
// whenever Status changes. When ctx ends a leader releases its lease so
// another node can take over at once.
func (e *Elector) Run(ctx context.Context, onChange func(Status)) error {
	last := Status{}
	timer := e.cfg.Clock.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			if e.Status().Leader {
				rctx, cancel := context.WithTimeout(context.Background(), e.cfg.TTL)
				err := e.Resign(rctx)
				cancel()
				if err != nil {
					e.cfg.Logger.Warn("could not release lease", "err", err)
				}
			}
			if onChange != nil && last.Leader {
				onChange(Status{Term: last.Term})
			}
			return ctx.Err()
		case <-timer.C():
		}
		actx, cancel := context.WithTimeout(ctx, e.cfg.RenewInterval)
		if _, err := e.TryAcquire(actx); err != nil && ctx.Err() == nil {
			e.cfg.Logger.Debug("lease attempt failed", "err", err)
		}
		cancel()
		st := e.Status()
		if onChange != nil && st != last {
			onChange(st)
		}
		last = st
		timer.Reset(e.cfg.RenewInterval)
	}
}

// Resign gives the lease up if this node holds it, so another node can
// take over without waiting for the TTL.
func (e *Elector) Resign(ctx context.Context) error {
	e.mu.Lock()
	term := e.status.Term
	e.status.Leader = false
	e.mu.Unlock()
	defer e.dropLock()
	_, err := e.db.Exec(ctx,
		`UPDATE leader SET expires_at = 'epoch' WHERE name = $1 AND holder = $2 AND term = $3`,
		e.cfg.Name, e.cfg.Holder, term)
	if err != nil {
		return fmt.Errorf("leader: resign: %w", err)
	}
	return nil
}

// Current reads the lease row for name. It returns a zero Lease when no node
// has campaigned yet.
func Current(ctx context.Context, db DB, name string) (Lease, error) {
	l := Lease{Name: name}
	err := db.QueryRow(ctx, `SELECT holder, term, expires_at FROM leader WHERE name = $1`, name).
		Scan(&l.Holder, &l.Term, &l.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Lease{Name: name}, nil
	}
	if err != nil {
		return Lease{}, fmt.Errorf("leader: read lease: %w", err)
	}
	return l, nil
}

// CheckTerm reports whether term is the current term of the named lease
// and is still held (not expired by the database clock). Stores call it
// inside the transaction of a fenced write; fence.ErrStaleTerm means the write
// must be rejected.
func CheckTerm(ctx context.Context, db DB, name string, term int64) error {
	var ok bool
	err := db.QueryRow(ctx,
		`SELECT term = $2 AND expires_at >= now() FROM leader WHERE name = $1`, name, term).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !ok) {
		return fmt.Errorf("%w: term %d for %q", fence.ErrStaleTerm, term, name)
	}
	if err != nil {
		return fmt.Errorf("leader: check term: %w", err)
	}
	return nil
}
