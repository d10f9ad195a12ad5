package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// The statements the write paths run once per run or per event. SQLite
// parses a statement every time it is prepared, and for statements this
// small parsing costs more than running them: a burst of 100 runs spent
// about a third of its store time in the parser. The store prepares these
// once on its writer connection when it opens, and transactions reuse them
// (Store.stmt).
const (
	sqlAdvance = `UPDATE jobs SET last_schedule_time = MAX(COALESCE(last_schedule_time, ?1), ?1) WHERE name = ?2`
	sqlEvent   = `INSERT INTO events (time, kind, job, resource, run_id, message, data, actor, via, remote) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlRunByID = `SELECT ` + runColumnsNoOutput + ` FROM runs WHERE id = ?`
	sqlFinish  = `UPDATE runs SET state = ?, exit_code = ?, output = ?, error = ?, finished_at = ? WHERE id = ?`
	sqlSucceed = `UPDATE jobs SET succeeded = succeeded + 1,
			last_successful_time = MAX(COALESCE(last_successful_time, ?1), ?1) WHERE name = ?2`
	sqlFail      = `UPDATE jobs SET failed = failed + 1 WHERE name = ?`
	sqlInsertRun = `INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, ready_at,
			created_at, started_at, finished_at, heartbeat_at, cancel_requested, exit_code, output, error, target)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING ` + runColumns
	// A job's creation, once per job of a manifest that declares
	// thousands.
	sqlInsertJob = `INSERT INTO jobs (name, spec, source, version, created_at, updated_at,
			last_schedule_time, last_successful_time, succeeded, failed) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`
	sqlJobByName = `SELECT ` + jobColumns + ` FROM jobs WHERE name = ?`
)

// sqlPrune deletes a job's history beyond its limits, at every run's end
// and in RunPrune: the oldest succeeded runs past ?2 and the oldest other
// finished runs past ?3. The limits count per target node, so a fanned-out
// job keeps as many instants of each node as a plain job keeps of itself,
// and one node's runs never push out another's. It is the store's only
// prune statement.
const sqlPrune = `DELETE FROM runs WHERE id IN (
			SELECT id FROM (SELECT id, state, row_number() OVER (PARTITION BY state = 'succeeded', target
					ORDER BY scheduled_time DESC, id DESC) AS rank
				FROM runs WHERE job = ?1 AND state IN ('succeeded', 'failed', 'killed', 'missed', 'lost'))
			 WHERE rank > CASE WHEN state = 'succeeded' THEN ?2 ELSE ?3 END)`

var hotStatements = []string{sqlAdvance, sqlEvent, sqlRunByID, sqlFinish, sqlSucceed, sqlFail, sqlInsertRun,
	sqlPrune, sqlInsertJob, sqlJobByName}

// prepare prepares the hot statements on the writer connection. It runs
// before any transaction: with one writer connection, preparing on the
// pool inside a transaction would wait for the transaction forever.
func (s *Store) prepare(ctx context.Context) error {
	s.stmts = make(map[string]*sql.Stmt, len(hotStatements))
	for _, q := range hotStatements {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare statements: %w", err)
		}
		s.stmts[q] = st
	}
	return nil
}

// stmt returns hot statement q for use in tx. database/sql reuses the
// statement already prepared on the transaction's connection, or prepares
// it there if the pool has replaced the connection since; the returned
// statement is closed with the transaction.
func (s *Store) stmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	st := s.stmts[q]
	if st == nil {
		panic("sqlitestore: statement not among the prepared ones: " + q)
	}
	return tx.StmtContext(ctx, st)
}
