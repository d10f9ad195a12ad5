package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/almanac-sh/almanac/internal/store"
)

// runCols lists a run's columns without its output; runColsOutput with it.
const (
	runCols = `id, job, scheduled_time, attempt, reason, state, node, ready_at, created_at,
	started_at, finished_at, heartbeat_at, cancel_requested, exit_code, error, pgid, proc_start, target`
	runColsOutput = runCols + `, output`
)

func scanRun(r pgx.Row, withOutput bool) (store.Run, error) {
	var run store.Run
	var sched, ready, created, started, finished, hb pgtype.Timestamptz
	var reason, state string
	var exit *int32
	var pgid int32
	dest := []any{&run.ID, &run.Job, &sched, &run.Attempt, &reason, &state, &run.Node, &ready, &created,
		&started, &finished, &hb, &run.CancelRequested, &exit, &run.Error, &pgid, &run.Process.Start, &run.Target}
	if withOutput {
		dest = append(dest, &run.Output)
	}
	if err := r.Scan(dest...); err != nil {
		return run, err
	}
	run.ScheduledTime, run.ReadyAt, run.CreatedAt = fromTS(sched), fromTS(ready), fromTS(created)
	run.StartedAt, run.FinishedAt, run.HeartbeatAt = fromTS(started), fromTS(finished), fromTS(hb)
	run.Reason, run.State = store.Reason(reason), store.RunState(state)
	run.Process.PGID = int(pgid)
	if exit != nil {
		c := int(*exit)
		run.ExitCode = &c
	}
	return run, nil
}

func collectRuns(rows pgx.Rows, withOutput bool) ([]store.Run, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Run, error) { return scanRun(r, withOutput) })
}

// missing tells a write that matched no row apart: ErrNotFound if the run
// does not exist, otherwise ErrConflict with what state it is in.
func missing(ctx context.Context, tx querier, id int64, what string) error {
	var state string
	err := tx.QueryRow(ctx, `SELECT state FROM runs WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("pgstore: run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("pgstore: %s run %d: %w", what, id, err)
	}
	return fmt.Errorf("pgstore: %s run %d: it is %s: %w", what, id, state, store.ErrConflict)
}

// RunInsert inserts a run; ErrDuplicate on the (job, scheduled time,
// attempt) key, ErrNotFound if the job does not exist.
func (s *Store) RunInsert(ctx context.Context, p store.RunInsertParams) (store.Run, error) {
	r := p.Run
	if r.State == "" {
		r.State = store.RunPending
	}
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	now := s.now(p.Now)
	var exit any
	if r.ExitCode != nil {
		exit = *r.ExitCode
	}
	var run store.Run
	err := s.tx(ctx, p.Term, func(tx querier) error {
		var err error
		run, err = scanRun(tx.QueryRow(ctx, `
			INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, ready_at, created_at,
			                  started_at, finished_at, heartbeat_at, cancel_requested, exit_code, output, error, target)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
			ON CONFLICT DO NOTHING
			RETURNING `+runColsOutput,
			r.Job, r.ScheduledTime.UTC().Truncate(time.Microsecond), r.Attempt, string(r.Reason), string(r.State), r.Node,
			ts(r.ReadyAt), now, ts(r.StartedAt), ts(r.FinishedAt), ts(r.HeartbeatAt), r.CancelRequested,
			exit, r.Output, r.Error, r.Target), true)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("pgstore: run of %q at %s for %q attempt %d: %w",
				r.Job, r.ScheduledTime.UTC().Format(time.RFC3339Nano), r.Target, r.Attempt, store.ErrDuplicate)
		}
		if pgCode(err) == codeForeignKeyViolation {
			return fmt.Errorf("pgstore: job %q: %w", r.Job, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("pgstore: insert run of %q: %w", r.Job, err)
		}
		if p.Advance {
			if _, err := tx.Exec(ctx, `
				UPDATE jobs SET last_schedule_time = GREATEST(last_schedule_time, $2) WHERE name = $1`,
				r.Job, run.ScheduledTime); err != nil {
				return fmt.Errorf("pgstore: advance job %q: %w", r.Job, err)
			}
		}
		return appendEvents(ctx, tx, now, run.Job, run.ID, p.Events)
	})
	return run, err
}

// RunGet returns one run with its output.
func (s *Store) RunGet(ctx context.Context, id int64) (store.Run, error) {
	run, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColsOutput+` FROM runs WHERE id = $1`, id), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return run, fmt.Errorf("pgstore: run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return run, fmt.Errorf("pgstore: get run %d: %w", id, err)
	}
	return run, nil
}

// RunList returns runs newest first and the cursor of the next page.
func (s *Store) RunList(ctx context.Context, p store.RunListParams) ([]store.Run, int64, error) {
	limit := p.Size()
	states := make([]string, len(p.States))
	for i, st := range p.States {
		states[i] = string(st)
	}
	cols := runCols
	if p.WithOutput {
		cols = runColsOutput
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+cols+` FROM runs
		 WHERE ($1 = '' OR job = $1)
		   AND (cardinality($2::text[]) = 0 OR state = ANY($2))
		   AND ($3 = 0 OR id < $3)
		   AND ($5::timestamptz IS NULL OR scheduled_time = $5)
		   AND ($6 = '' OR target = $6 OR node = $6)
		   AND ($7::timestamptz IS NULL OR scheduled_time >= $7)
		   AND ($8::timestamptz IS NULL OR scheduled_time < $8)
		   AND ($9 = '' OR left(job, length($9)) = $9)
		 ORDER BY id DESC
		 LIMIT $4`, p.Job, states, p.Cursor, limit+1, ts(p.ScheduledTime), p.Node, ts(p.Since), ts(p.Until), p.JobPrefix)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list runs: %w", err)
	}
	runs, err := collectRuns(rows, p.WithOutput)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list runs: %w", err)
	}
	var next int64
	if len(runs) > limit {
		runs = runs[:limit]
		next = runs[limit-1].ID
	}
	return runs, next, nil
}

// RunRelease makes a held pending run claimable from ReadyAt on (at once if
// ReadyAt is zero).
func (s *Store) RunRelease(ctx context.Context, p store.RunReleaseParams) (store.Run, error) {
	ready := s.now(p.ReadyAt)
	var run store.Run
	err := s.tx(ctx, p.Term, func(tx querier) error {
		var err error
		run, err = scanRun(tx.QueryRow(ctx, `
			UPDATE runs SET ready_at = $2 WHERE id = $1 AND state = 'pending'
			RETURNING `+runColsOutput, p.ID, ready), true)
		if errors.Is(err, pgx.ErrNoRows) {
			return missing(ctx, tx, p.ID, "release")
		}
		if err != nil {
			return fmt.Errorf("pgstore: release run %d: %w", p.ID, err)
		}
		return appendEvents(ctx, tx, ready, run.Job, run.ID, p.Events)
	})
	return run, err
}

// RunClaim claims up to Limit ready pending runs meant for any node or for
// p.Node, oldest ReadyAt first, in one statement; rows another claimer has locked are skipped, not waited for.
func (s *Store) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	if p.Node == "" {
		return nil, errors.New("pgstore: claim runs: empty node")
	}
	now := s.now(p.Now)
	limit := max(p.Limit, 1)
	skip := p.Skip
	if skip == nil {
		skip = []int64{}
	}
	// One statement claims the runs and logs a run.started event for each,
	// so it commits atomically without a round trip in between.
	rows, err := s.pool.Query(ctx, `
		WITH claimed AS (
		    UPDATE runs SET state = 'running', node = $1, started_at = $2, heartbeat_at = $2
		     WHERE id IN (
		           SELECT id FROM runs
		            WHERE state = 'pending' AND ready_at <= $2 AND (target = $1 OR (target = '' AND NOT $5::boolean))
		              AND NOT (id = ANY($6::bigint[]))
		            ORDER BY ready_at, id
		            LIMIT $3
		              FOR UPDATE SKIP LOCKED)
		    RETURNING `+runCols+`
		), started AS (
		    INSERT INTO events (time, kind, job, run_id, message)
		    SELECT $2, $4, job, id, format('run %s started on %s (attempt %s, %s run for %s)', id, $1, attempt, reason,
		           to_char(scheduled_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
		      FROM claimed
		)
		SELECT `+runCols+` FROM claimed`, p.Node, now, limit, string(store.EventRunStarted), p.TargetedOnly, skip)
	if err != nil {
		return nil, fmt.Errorf("pgstore: claim runs: %w", err)
	}
	runs, err := collectRuns(rows, false)
	if err != nil {
		return nil, fmt.Errorf("pgstore: claim runs: %w", err)
	}
	slices.SortFunc(runs, func(a, b store.Run) int {
		return cmp.Or(a.ReadyAt.Compare(b.ReadyAt), cmp.Compare(a.ID, b.ID))
	})
	return runs, nil
}

// RunHeartbeat refreshes the node's running runs among IDs and returns those
// whose cancellation was requested.
func (s *Store) RunHeartbeat(ctx context.Context, p store.RunHeartbeatParams) ([]int64, error) {
	if len(p.IDs) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `
		UPDATE runs SET heartbeat_at = $3
		 WHERE id = ANY($2) AND node = $1 AND state = 'running'
		RETURNING id, cancel_requested`, p.Node, p.IDs, s.now(p.Now))
	if err != nil {
		return nil, fmt.Errorf("pgstore: heartbeat: %w", err)
	}
	var cancel []int64
	var id int64
	var requested bool
	_, err = pgx.ForEachRow(rows, []any{&id, &requested}, func() error {
		if requested {
			cancel = append(cancel, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: heartbeat: %w", err)
	}
	slices.Sort(cancel)
	return cancel, nil
}

// finishedAt is when p's run ended: p.FinishedAt if set, else now.
func finishedAt(p store.RunFinishParams, now time.Time) time.Time {
	if p.FinishedAt.IsZero() {
		return now
	}
	return p.FinishedAt.UTC().Truncate(time.Microsecond)
}

// RunFinish records a terminal state and counts it in the job's status.
func (s *Store) RunFinish(ctx context.Context, p store.RunFinishParams) (store.Run, error) {
	if !p.State.Terminal() {
		return store.Run{}, fmt.Errorf("pgstore: finish run %d: %q is not a final state", p.ID, p.State)
	}
	now := s.now(p.Now)
	var exit any
	if p.ExitCode != nil {
		exit = *p.ExitCode
	}
	var run store.Run
	err := s.tx(ctx, p.Term, func(tx querier) error {
		var err error
		run, err = scanRun(tx.QueryRow(ctx, `
			UPDATE runs SET state = $2, exit_code = $3, output = COALESCE($4, output), error = $5, finished_at = $6
			 WHERE id = $1 AND state IN ('pending', 'running')
			RETURNING `+runColsOutput, p.ID, string(p.State), exit, p.Output, p.Error, finishedAt(p, now)), true)
		if errors.Is(err, pgx.ErrNoRows) {
			return missing(ctx, tx, p.ID, "finish")
		}
		if err != nil {
			return fmt.Errorf("pgstore: finish run %d: %w", p.ID, err)
		}
		switch p.State {
		case store.RunSucceeded:
			_, err = tx.Exec(ctx, `UPDATE jobs SET succeeded = succeeded + 1,
				last_successful_time = GREATEST(last_successful_time, $2) WHERE name = $1`, run.Job, now)
		case store.RunFailed, store.RunKilled, store.RunLost:
			_, err = tx.Exec(ctx, `UPDATE jobs SET failed = failed + 1 WHERE name = $1`, run.Job)
		}
		if err != nil {
			return fmt.Errorf("pgstore: finish run %d: job status: %w", p.ID, err)
		}
		if p.Prune != nil {
			if _, err := prune(ctx, tx, run.Job, *p.Prune); err != nil {
				return err
			}
		}
		return appendEvents(ctx, tx, now, run.Job, run.ID, p.Events)
	})
	return run, err
}

// RunSetProcess records the process groups of a node's running runs in one
// statement.
func (s *Store) RunSetProcess(ctx context.Context, p store.RunSetProcessParams) error {
	if len(p.Items) == 0 {
		return nil
	}
	ids, pgids, starts := make([]int64, len(p.Items)), make([]int32, len(p.Items)), make([]int64, len(p.Items))
	for i, it := range p.Items {
		ids[i], pgids[i], starts[i] = it.ID, int32(it.PGID), it.Start
	}
	_, err := s.pool.Exec(ctx, `
		UPDATE runs SET pgid = v.vpgid, proc_start = v.vstart
		  FROM unnest($1::bigint[], $2::integer[], $3::bigint[]) AS v(vid, vpgid, vstart)
		 WHERE runs.id = v.vid AND runs.node = $4 AND runs.state = 'running'`, ids, pgids, starts, p.Node)
	if err != nil {
		return fmt.Errorf("pgstore: record run processes: %w", err)
	}
	return nil
}

// RunCancel requests that a non-terminal run be killed.
func (s *Store) RunCancel(ctx context.Context, p store.RunCancelParams) (store.Run, error) {
	now := s.now(time.Time{})
	var run store.Run
	err := s.tx(ctx, p.Term, func(tx querier) error {
		var err error
		run, err = scanRun(tx.QueryRow(ctx, `
			UPDATE runs SET cancel_requested = true
			 WHERE id = $1 AND state IN ('pending', 'running')
			RETURNING `+runColsOutput, p.ID), true)
		if errors.Is(err, pgx.ErrNoRows) {
			return missing(ctx, tx, p.ID, "cancel")
		}
		if err != nil {
			return fmt.Errorf("pgstore: cancel run %d: %w", p.ID, err)
		}
		return appendEvents(ctx, tx, now, run.Job, run.ID, p.Events)
	})
	return run, err
}

// RunListStale returns running runs presumed dead: those whose heartbeat is
// older than HeartbeatBefore, or all running runs of Node when it is set.
func (s *Store) RunListStale(ctx context.Context, p store.RunListStaleParams) ([]store.Run, error) {
	var limit any
	if p.Limit > 0 {
		limit = p.Limit
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+runCols+` FROM runs
		 WHERE state = 'running'
		   AND CASE WHEN $1 <> '' THEN node = $1 ELSE heartbeat_at < $2 END
		 ORDER BY heartbeat_at, id
		 LIMIT $3`, p.Node, ts(p.HeartbeatBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: list stale runs: %w", err)
	}
	runs, err := collectRuns(rows, false)
	if err != nil {
		return nil, fmt.Errorf("pgstore: list stale runs: %w", err)
	}
	return runs, nil
}

// RunPrune deletes a job's oldest finished runs beyond the history limits.
func (s *Store) RunPrune(ctx context.Context, p store.RunPruneParams) (int, error) {
	var n int
	err := s.tx(ctx, p.Term, func(tx querier) error {
		var err error
		n, err = prune(ctx, tx, p.Job, store.HistoryLimits{KeepSucceeded: p.KeepSucceeded, KeepFailed: p.KeepFailed})
		return err
	})
	return n, err
}

// prune deletes a job's finished runs beyond the limits, with the one
// prune statement (pruneMany).
func prune(ctx context.Context, tx querier, job string, l store.HistoryLimits) (int, error) {
	tag, err := tx.Exec(ctx, pruneMany, []string{job}, []int64{int64(max(l.KeepSucceeded, 0))}, []int64{int64(max(l.KeepFailed, 0))})
	if err != nil {
		return 0, fmt.Errorf("pgstore: prune runs of %q: %w", job, err)
	}
	return int(tag.RowsAffected()), nil
}
