package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/almanac-sh/almanac/internal/store"
)

// insertOneOfBatch inserts one item of a batch with its advance and its
// events in a single statement, so a batch of n items is n statements sent
// in one round trip. The insert skips a missing job (instead of tripping the
// foreign key, which would abort the whole transaction) and a duplicate key;
// then it returns no row and nothing else of the item is written.
const insertOneOfBatch = `
WITH r AS (
    INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, ready_at, created_at,
                      started_at, finished_at, heartbeat_at, cancel_requested, exit_code, output, error, target)
    SELECT $1::text, $2::timestamptz, $3::integer, $4::text, $5::text, $6::text, $7::timestamptz, $8::timestamptz,
           $9::timestamptz, $10::timestamptz, $11::timestamptz, $12::boolean, $13::integer, $14::bytea, $15::text, $24::text
     WHERE EXISTS (SELECT 1 FROM jobs WHERE name = $1::text)
    ON CONFLICT DO NOTHING
    RETURNING ` + runColsOutput + `
), adv AS (
    UPDATE jobs SET last_schedule_time = GREATEST(last_schedule_time, $2::timestamptz)
     WHERE $16::boolean AND name = $1::text AND EXISTS (SELECT 1 FROM r)
), ev AS (
    INSERT INTO events (time, kind, job, resource, run_id, message, data, actor, via, remote)
    SELECT e.time, e.kind, CASE WHEN e.job = '' THEN r.job ELSE e.job END, e.resource,
           CASE WHEN e.run_id = 0 THEN r.id ELSE e.run_id END, e.message, e.data::json, e.actor, e.via, e.remote
      FROM r, unnest($17::timestamptz[], $18::text[], $19::text[], $20::text[], $21::bigint[], $22::text[], $23::text[],
                     $25::text[], $26::text[], $27::text[])
           WITH ORDINALITY AS e(time, kind, job, resource, run_id, message, data, actor, via, remote, n)
     ORDER BY e.n
)
SELECT ` + runColsOutput + ` FROM r`

// RunInsertBatch inserts the items in one transaction, fenced by the
// batch's term like any controller write. The statements travel as one
// pipelined batch, so the cost is one round trip plus the server's work,
// not one round trip (or one commit) per run.
func (s *Store) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	if len(p.Items) == 0 {
		return nil, nil
	}
	now := s.now(p.Now)
	out := make([]store.RunInsertResult, len(p.Items))
	err := s.tx(ctx, p.Term, func(tx querier) error {
		b := &pgx.Batch{}
		order := store.BatchOrder(p.Items)
		for _, i := range order {
			it := p.Items[i]
			r := it.Run
			if r.State == "" {
				r.State = store.RunPending
			}
			if r.Attempt == 0 {
				r.Attempt = 1
			}
			var exit any
			if r.ExitCode != nil {
				exit = *r.ExitCode
			}
			n := len(it.Events)
			evTime, evKind, evJob, evRes := make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n)
			evRun, evMsg, evData := make([]int64, n), make([]string, n), make([]*string, n)
			evActor, evVia, evRemote := make([]string, n), make([]string, n), make([]string, n)
			for i, e := range it.Events {
				store.StampActor(ctx, &e)
				evActor[i], evVia[i], evRemote[i] = e.Actor, e.Via, e.Remote
				evTime[i] = now
				if !e.Time.IsZero() {
					evTime[i] = e.Time.UTC().Truncate(time.Microsecond)
				}
				evKind[i], evJob[i], evRes[i], evRun[i], evMsg[i] = string(e.Kind), e.Job, e.Resource, e.RunID, e.Message
				if len(e.Data) > 0 {
					d := string(e.Data)
					evData[i] = &d
				}
			}
			b.Queue(insertOneOfBatch,
				r.Job, r.ScheduledTime.UTC().Truncate(time.Microsecond), r.Attempt, string(r.Reason), string(r.State), r.Node,
				ts(r.ReadyAt), now, ts(r.StartedAt), ts(r.FinishedAt), ts(r.HeartbeatAt), r.CancelRequested,
				exit, r.Output, r.Error, it.Advance,
				evTime, evKind, evJob, evRes, evRun, evMsg, evData, r.Target, evActor, evVia, evRemote)
		}
		br := tx.SendBatch(ctx, b)
		var absent []string
		for _, i := range order {
			it := p.Items[i]
			run, err := scanRun(br.QueryRow(), true)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				out[i].Err = store.ErrDuplicate // refined below
				absent = append(absent, it.Run.Job)
			case err != nil:
				br.Close()
				return fmt.Errorf("pgstore: insert run of %q: %w", it.Run.Job, err)
			default:
				out[i].Run = run
			}
		}
		if err := br.Close(); err != nil {
			return fmt.Errorf("pgstore: insert runs: %w", err)
		}
		if len(absent) == 0 {
			return nil
		}
		// Tell a duplicate key from a job that does not exist.
		rows, err := tx.Query(ctx, `SELECT name FROM jobs WHERE name = ANY($1)`, absent)
		if err != nil {
			return fmt.Errorf("pgstore: insert runs: %w", err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("pgstore: insert runs: %w", err)
		}
		exists := make(map[string]bool, len(names))
		for _, n := range names {
			exists[n] = true
		}
		for i, it := range p.Items {
			if out[i].Err == nil {
				continue
			}
			r := it.Run
			if exists[r.Job] {
				out[i].Err = fmt.Errorf("pgstore: run of %q at %s attempt %d: %w",
					r.Job, r.ScheduledTime.UTC().Format(time.RFC3339Nano), max(r.Attempt, 1), store.ErrDuplicate)
			} else {
				out[i].Err = fmt.Errorf("pgstore: job %q: %w", r.Job, store.ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
