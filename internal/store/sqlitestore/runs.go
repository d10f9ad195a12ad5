package sqlitestore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

const runColumnsNoOutput = `id, job, scheduled_time, attempt, reason, state, node, ready_at, created_at,
	started_at, finished_at, heartbeat_at, cancel_requested, exit_code, error, pgid, proc_start, target`

const runColumns = runColumnsNoOutput + `, output`

func scanRun(r rowScanner, withOutput bool) (store.Run, error) {
	var (
		run                                       store.Run
		scheduled, created                        int64
		reason, state                             string
		ready, started, finished, heartbeat, exit sql.NullInt64
		cancel                                    int
	)
	dest := []any{&run.ID, &run.Job, &scheduled, &run.Attempt, &reason, &state, &run.Node, &ready, &created,
		&started, &finished, &heartbeat, &cancel, &exit, &run.Error, &run.Process.PGID, &run.Process.Start, &run.Target}
	if withOutput {
		dest = append(dest, &run.Output)
	}
	if err := r.Scan(dest...); err != nil {
		return store.Run{}, err
	}
	run.ScheduledTime = time.UnixMicro(scheduled).UTC()
	run.CreatedAt = time.UnixMicro(created).UTC()
	run.Reason = store.Reason(reason)
	run.State = store.RunState(state)
	run.ReadyAt = fromMicro(ready)
	run.StartedAt = fromMicro(started)
	run.FinishedAt = fromMicro(finished)
	run.HeartbeatAt = fromMicro(heartbeat)
	run.CancelRequested = cancel != 0
	if exit.Valid {
		c := int(exit.Int64)
		run.ExitCode = &c
	}
	return run, nil
}

func getRun(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id int64) (store.Run, error) {
	r, err := scanRun(q.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id), true)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Run{}, fmt.Errorf("run %d: %w", id, err)
	}
	return r, nil
}

// RunInsert implements store.Store.
func (s *Store) RunInsert(ctx context.Context, p store.RunInsertParams) (store.Run, error) {
	now := s.now(p.Now)
	r := p.Run
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	if r.State == "" {
		r.State = store.RunPending
	}
	var out store.Run
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var exit any
		if r.ExitCode != nil {
			exit = *r.ExitCode
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, ready_at,
			created_at, started_at, finished_at, heartbeat_at, cancel_requested, exit_code, output, error, target)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
			r.Job, r.ScheduledTime.UnixMicro(), r.Attempt, string(r.Reason), string(r.State), r.Node, micro(r.ReadyAt),
			now.UnixMicro(), micro(r.StartedAt), micro(r.FinishedAt), micro(r.HeartbeatAt), exit, r.Output, r.Error, r.Target)
		switch {
		case isUnique(err):
			return fmt.Errorf("insert run %s@%s%s#%d: %w", r.Job, r.ScheduledTime.Format(time.RFC3339), forTarget(r.Target), r.Attempt, store.ErrDuplicate)
		case isForeignKey(err):
			return fmt.Errorf("insert run: job %q: %w", r.Job, store.ErrNotFound)
		case err != nil:
			return fmt.Errorf("insert run: %w", err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if p.Advance {
			if err := s.advance(ctx, tx, r.Job, r.ScheduledTime); err != nil {
				return err
			}
		}
		if err := s.appendEvents(ctx, tx, now, r.Job, id, p.Events); err != nil {
			return err
		}
		out, err = getRun(ctx, tx, id)
		return err
	})
	return out, err
}

// RunGet implements store.Store.
func (s *Store) RunGet(ctx context.Context, id int64) (store.Run, error) {
	return getRun(ctx, s.r, id)
}

// RunList implements store.Store.
func (s *Store) RunList(ctx context.Context, p store.RunListParams) ([]store.Run, int64, error) {
	cols := runColumnsNoOutput
	if p.WithOutput {
		cols = runColumns
	}
	q := `SELECT ` + cols + ` FROM runs WHERE 1=1`
	var args []any
	if p.Job != "" {
		q += ` AND job = ?`
		args = append(args, p.Job)
	}
	if p.JobPrefix != "" {
		q += ` AND substr(job, 1, length(?)) = ?`
		args = append(args, p.JobPrefix, p.JobPrefix)
	}
	if len(p.States) > 0 {
		q += ` AND state IN (` + placeholders(len(p.States)) + `)`
		for _, st := range p.States {
			args = append(args, string(st))
		}
	}
	if !p.ScheduledTime.IsZero() {
		q += ` AND scheduled_time = ?`
		args = append(args, p.ScheduledTime.UnixMicro())
	}
	if p.Node != "" {
		q += ` AND (target = ? OR node = ?)`
		args = append(args, p.Node, p.Node)
	}
	if !p.Since.IsZero() {
		q += ` AND scheduled_time >= ?`
		args = append(args, p.Since.UnixMicro())
	}
	if !p.Until.IsZero() {
		q += ` AND scheduled_time < ?`
		args = append(args, p.Until.UnixMicro())
	}
	if p.Cursor > 0 {
		q += ` AND id < ?`
		args = append(args, p.Cursor)
	}
	size := p.Size()
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, size+1)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var runs []store.Run
	for rows.Next() {
		r, err := scanRun(rows, p.WithOutput)
		if err != nil {
			return nil, 0, fmt.Errorf("list runs: %w", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list runs: %w", err)
	}
	var next int64
	if len(runs) > size {
		runs = runs[:size]
		next = runs[size-1].ID
	}
	return runs, next, nil
}

// RunRelease implements store.Store.
func (s *Store) RunRelease(ctx context.Context, p store.RunReleaseParams) (store.Run, error) {
	now := s.now(time.Time{})
	var out store.Run
	err := s.tx(ctx, func(tx *sql.Tx) error {
		r, err := getRun(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		if r.State != store.RunPending {
			return fmt.Errorf("release run %d: state %s: %w", p.ID, r.State, store.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET ready_at = ? WHERE id = ?`, s.now(p.ReadyAt).UnixMicro(), p.ID); err != nil {
			return fmt.Errorf("release run %d: %w", p.ID, err)
		}
		if err := s.appendEvents(ctx, tx, now, r.Job, r.ID, p.Events); err != nil {
			return err
		}
		out, err = getRun(ctx, tx, p.ID)
		return err
	})
	return out, err
}

// RunClaim implements store.Store.
func (s *Store) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	if p.Limit <= 0 {
		p.Limit = 1
	}
	now := s.now(p.Now)
	var runs []store.Run
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE runs SET state = 'running', node = ?1, started_at = ?2, heartbeat_at = ?2
			WHERE id IN (SELECT id FROM runs WHERE state = 'pending' AND ready_at IS NOT NULL AND ready_at <= ?2 AND (target = ?1 OR (target = '' AND NOT ?4))
				AND id NOT IN (SELECT value FROM json_each(?5))
				ORDER BY ready_at, id LIMIT ?3)
			RETURNING `+runColumnsNoOutput, p.Node, now.UnixMicro(), p.Limit, p.TargetedOnly, skipJSON(p.Skip))
		if err != nil {
			return fmt.Errorf("claim runs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRun(rows, false)
			if err != nil {
				rows.Close()
				return fmt.Errorf("claim runs: %w", err)
			}
			runs = append(runs, r)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("claim runs: %w", err)
		}
		// RETURNING order is unspecified; keep the claim order.
		sortRuns(runs)
		for _, r := range runs {
			if err := s.appendEvents(ctx, tx, now, r.Job, r.ID, []store.Event{{Kind: store.EventRunStarted,
				Message: fmt.Sprintf("run %d started on %s (attempt %d, %s run for %s)", r.ID, p.Node, r.Attempt, r.Reason,
					r.ScheduledTime.Format(time.RFC3339))}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return runs, nil
}

func sortRuns(runs []store.Run) {
	slices.SortFunc(runs, func(a, b store.Run) int {
		return cmp.Or(a.ReadyAt.Compare(b.ReadyAt), cmp.Compare(a.ID, b.ID))
	})
}

// RunHeartbeat implements store.Store.
func (s *Store) RunHeartbeat(ctx context.Context, p store.RunHeartbeatParams) ([]int64, error) {
	if len(p.IDs) == 0 {
		return nil, nil
	}
	now := s.now(p.Now)
	var cancel []int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		args := []any{now.UnixMicro(), p.Node}
		for _, id := range p.IDs {
			args = append(args, id)
		}
		rows, err := tx.QueryContext(ctx, `UPDATE runs SET heartbeat_at = ? WHERE state = 'running' AND node = ?
			AND id IN (`+placeholders(len(p.IDs))+`) RETURNING id, cancel_requested`, args...)
		if err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var c int
			if err := rows.Scan(&id, &c); err != nil {
				return err
			}
			if c != 0 {
				cancel = append(cancel, id)
			}
		}
		return rows.Err()
	})
	return cancel, err
}

// RunFinish implements store.Store.
func (s *Store) RunFinish(ctx context.Context, p store.RunFinishParams) (store.Run, error) {
	if !p.State.Terminal() {
		return store.Run{}, fmt.Errorf("finish run %d: %q is not a final state", p.ID, p.State)
	}
	now := s.now(p.Now)
	var out store.Run
	err := s.tx(ctx, func(tx *sql.Tx) error {
		r, err := s.finish(ctx, tx, p, now)
		if err != nil {
			return err
		}
		if p.Prune != nil {
			if _, err := s.prune(ctx, tx, r.Job, *p.Prune); err != nil {
				return err
			}
		}
		out, err = getRun(ctx, tx, p.ID)
		return err
	})
	return out, err
}

// RunFinishBatch implements store.Store: every item in one write
// transaction, then one prune per job. An item that cannot be finished is
// checked before anything of it is written, so it is simply skipped.
func (s *Store) RunFinishBatch(ctx context.Context, p store.RunFinishBatchParams) ([]store.RunFinishResult, error) {
	if len(p.Items) == 0 {
		return nil, nil
	}
	for _, it := range p.Items {
		if !it.State.Terminal() {
			return nil, fmt.Errorf("finish run %d: %q is not a final state", it.ID, it.State)
		}
	}
	now := s.now(p.Now)
	out := make([]store.RunFinishResult, len(p.Items))
	err := s.tx(ctx, func(tx *sql.Tx) error {
		prunes := map[string]store.HistoryLimits{}
		var jobs []string
		for i, it := range p.Items {
			r, err := s.finish(ctx, tx, it, now)
			if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConflict) {
				out[i].Err = err
				continue
			}
			if err != nil {
				return err
			}
			if it.Prune != nil {
				if _, ok := prunes[r.Job]; !ok {
					jobs = append(jobs, r.Job)
				}
				prunes[r.Job] = *it.Prune
			}
			r.State, r.ExitCode, r.Error, r.FinishedAt = it.State, it.ExitCode, it.Error, finishedAt(it, now)
			r.Output = nil
			out[i].Run = r
		}
		for _, job := range jobs {
			if _, err := s.prune(ctx, tx, job, prunes[job]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// finishedAt is when p's run ended: p.FinishedAt if set, else now.
func finishedAt(p store.RunFinishParams, now time.Time) time.Time {
	if p.FinishedAt.IsZero() {
		return now
	}
	return p.FinishedAt.UTC().Truncate(time.Microsecond)
}

// finish moves one run to a terminal state in tx, counts it in its job's
// status and appends its events. It returns the run as it was before.
func (s *Store) finish(ctx context.Context, tx *sql.Tx, p store.RunFinishParams, now time.Time) (store.Run, error) {
	r, err := scanRun(s.stmt(ctx, tx, sqlRunByID).QueryRowContext(ctx, p.ID), false)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %d: %w", p.ID, store.ErrNotFound)
	}
	if err != nil {
		return store.Run{}, fmt.Errorf("run %d: %w", p.ID, err)
	}
	if r.State.Terminal() {
		return store.Run{}, fmt.Errorf("finish run %d: already %s: %w", p.ID, r.State, store.ErrConflict)
	}
	var exit any
	if p.ExitCode != nil {
		exit = *p.ExitCode
	}
	if _, err := s.stmt(ctx, tx, sqlFinish).ExecContext(ctx,
		string(p.State), exit, p.Output, p.Error, finishedAt(p, now).UnixMicro(), p.ID); err != nil {
		return store.Run{}, fmt.Errorf("finish run %d: %w", p.ID, err)
	}
	switch p.State {
	case store.RunSucceeded:
		_, err = s.stmt(ctx, tx, sqlSucceed).ExecContext(ctx, now.UnixMicro(), r.Job)
	case store.RunFailed, store.RunKilled, store.RunLost:
		_, err = s.stmt(ctx, tx, sqlFail).ExecContext(ctx, r.Job)
	}
	if err != nil {
		return store.Run{}, fmt.Errorf("finish run %d: update job status: %w", p.ID, err)
	}
	if err := s.appendEvents(ctx, tx, now, r.Job, r.ID, p.Events); err != nil {
		return store.Run{}, err
	}
	return r, nil
}

// RunSetProcess implements store.Store.
func (s *Store) RunSetProcess(ctx context.Context, p store.RunSetProcessParams) error {
	if len(p.Items) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		up, err := tx.PrepareContext(ctx, `UPDATE runs SET pgid = ?, proc_start = ? WHERE id = ? AND node = ? AND state = 'running'`)
		if err != nil {
			return fmt.Errorf("record run processes: %w", err)
		}
		defer up.Close()
		for _, it := range p.Items {
			if _, err := up.ExecContext(ctx, it.PGID, it.Start, it.ID, p.Node); err != nil {
				return fmt.Errorf("record process of run %d: %w", it.ID, err)
			}
		}
		return nil
	})
}

// RunCancel implements store.Store.
func (s *Store) RunCancel(ctx context.Context, p store.RunCancelParams) (store.Run, error) {
	now := s.now(time.Time{})
	var out store.Run
	err := s.tx(ctx, func(tx *sql.Tx) error {
		r, err := getRun(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		if r.State.Terminal() {
			return fmt.Errorf("cancel run %d: already %s: %w", p.ID, r.State, store.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET cancel_requested = 1 WHERE id = ?`, p.ID); err != nil {
			return fmt.Errorf("cancel run %d: %w", p.ID, err)
		}
		if err := s.appendEvents(ctx, tx, now, r.Job, r.ID, p.Events); err != nil {
			return err
		}
		out, err = getRun(ctx, tx, p.ID)
		return err
	})
	return out, err
}

// RunListStale implements store.Store.
func (s *Store) RunListStale(ctx context.Context, p store.RunListStaleParams) ([]store.Run, error) {
	q := `SELECT ` + runColumnsNoOutput + ` FROM runs WHERE state = 'running' AND (heartbeat_at < ? OR node = ?) ORDER BY id`
	args := []any{p.HeartbeatBefore.UnixMicro(), p.Node}
	if p.HeartbeatBefore.IsZero() {
		args[0] = int64(-1 << 62)
	}
	if p.Node == "" {
		args[1] = "\x00" // matches no node
	}
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list stale runs: %w", err)
	}
	defer rows.Close()
	var runs []store.Run
	for rows.Next() {
		r, err := scanRun(rows, false)
		if err != nil {
			return nil, fmt.Errorf("list stale runs: %w", err)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// RunPrune implements store.Store.
func (s *Store) RunPrune(ctx context.Context, p store.RunPruneParams) (int, error) {
	var n int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = s.prune(ctx, tx, p.Job, store.HistoryLimits{KeepSucceeded: p.KeepSucceeded, KeepFailed: p.KeepFailed})
		return err
	})
	return n, err
}

// prune deletes a job's finished runs beyond the limits, newest kept, with
// the one prune statement (sqlPrune).
func (s *Store) prune(ctx context.Context, tx *sql.Tx, job string, l store.HistoryLimits) (int, error) {
	res, err := s.stmt(ctx, tx, sqlPrune).ExecContext(ctx, job, max(l.KeepSucceeded, 0), max(l.KeepFailed, 0))
	if err != nil {
		return 0, fmt.Errorf("prune runs of %q: %w", job, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// forTarget names a run's target node in a message; empty for any node.
func forTarget(target string) string {
	if target == "" {
		return ""
	}
	return " for " + target
}

// skipJSON renders a claim's Skip list as the JSON array json_each reads.
func skipJSON(ids []int64) string {
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}
