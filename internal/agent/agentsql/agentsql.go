// Package agentsql keeps the agent's resource state and apply reports in
// SQLite tables of their own (agent_state, agent_reports) in the file the
// daemon's embedded store already uses, so an embedded daemon has one
// file and the reports survive restarts. Its schema is numbered
// migrations (migrations/*.sql, version in agent_schema_version) applied
// by package migrate; on PostgreSQL the agent uses package agentpg.
package agentsql

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver OpenSQLite uses

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an agent.StateStore over a *sql.DB. It is safe for concurrent
// use (as the DB is).
type Store struct {
	db *sql.DB
}

var _ agent.StateStore = (*Store)(nil)

// New applies the agent's migrations to db (a SQLite database) and
// returns the store. The caller owns db and closes it.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("agent tables: begin: %w", err)
	}
	defer tx.Rollback()
	if err := migrate.Apply(ctx, migrate.SQL(tx), migrations, names, "agent_schema_version", "?"); err != nil {
		return nil, fmt.Errorf("agent tables: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("agent tables: commit: %w", err)
	}
	return &Store{db: db}, nil
}

// OpenSQLite opens the SQLite database file at path (the daemon store's
// file: WAL journal, a busy timeout so the two connection pools wait for
// each other's writes) and creates the agent's tables in it. Close the
// returned DB when done.
func OpenSQLite(ctx context.Context, path string) (*Store, *sql.DB, error) {
	dsn := "file:" + path + "?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer: no lock contention inside this pool
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}

func micro(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicro(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v).UTC()
}

// LoadState reads every resource's state.
func (s *Store) LoadState(ctx context.Context) (agent.State, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT ref, checked, synced FROM agent_state`)
	if err != nil {
		return nil, fmt.Errorf("load agent state: %w", err)
	}
	defer rows.Close()
	st := agent.State{}
	for rows.Next() {
		var ref string
		var checked, synced int64
		if err := rows.Scan(&ref, &checked, &synced); err != nil {
			return nil, fmt.Errorf("load agent state: %w", err)
		}
		st[ref] = agent.ResourceState{Checked: fromMicro(checked), Synced: fromMicro(synced)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load agent state: %w", err)
	}
	return st, nil
}

// SaveState replaces the state in one transaction.
func (s *Store) SaveState(ctx context.Context, st agent.State) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_state`); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO agent_state (ref, checked, synced) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for ref, e := range st {
			if _, err := ins.ExecContext(ctx, ref, micro(e.Checked), micro(e.Synced)); err != nil {
				return err
			}
		}
		return nil
	}, "save agent state")
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error, what string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// AddReport inserts r and sets r.ID.
func (s *Store) AddReport(ctx context.Context, r *agent.Report) (int64, error) {
	head, b, err := agent.EncodeReport(r)
	if err != nil {
		return 0, fmt.Errorf("store apply report: %w", err)
	}
	var id int64
	err = s.db.QueryRowContext(ctx,
		`INSERT INTO agent_reports (started, ended, status, trigger_kind, head, body) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		micro(r.Start), micro(r.End), r.Status, string(r.Trigger.Kind), string(head), string(b)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store apply report: %w", err)
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
	q := `SELECT id, head FROM agent_reports`
	args := []any{}
	if f.Before != 0 {
		q += ` WHERE id < ?`
		args = append(args, f.Before)
	}
	q += ` ORDER BY id DESC LIMIT ` + strconv.Itoa(limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list apply reports: %w", err)
	}
	defer rows.Close()
	var out []*agent.Report
	for rows.Next() {
		var id int64
		var head string
		if err := rows.Scan(&id, &head); err != nil {
			return nil, fmt.Errorf("list apply reports: %w", err)
		}
		r, err := agent.DecodeReportHead(id, []byte(head))
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
	var head, b string
	err := s.db.QueryRowContext(ctx, `SELECT head, body FROM agent_reports WHERE id = ?`, id).Scan(&head, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("apply report %d: %w", id, agent.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("apply report %d: %w", id, err)
	}
	return agent.DecodeReport(id, []byte(head), []byte(b))
}

// PruneReports deletes the reports outside the retention.
func (s *Store) PruneReports(ctx context.Context, keep agent.Retention, now time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if keep.Keep > 0 {
			res, err := tx.ExecContext(ctx, `DELETE FROM agent_reports WHERE id NOT IN
				(SELECT id FROM agent_reports ORDER BY id DESC LIMIT ?)`, keep.Keep)
			if err != nil {
				return err
			}
			d, _ := res.RowsAffected()
			n += d
		}
		if keep.MaxAge > 0 {
			res, err := tx.ExecContext(ctx, `DELETE FROM agent_reports WHERE ended < ?`, micro(now.Add(-keep.MaxAge)))
			if err != nil {
				return err
			}
			d, _ := res.RowsAffected()
			n += d
		}
		return nil
	}, "prune apply reports")
	return int(n), err
}
