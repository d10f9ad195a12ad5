package pgstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/almanac-sh/almanac/internal/store"
)

// finishMany moves every listed run that is still pending or running to
// its terminal state in one statement. The rows are locked in id order
// first, so two batches finishing overlapping runs listed in different
// orders wait for each other instead of deadlocking. The column names of v
// differ from the runs table's so that RETURNING reads the runs row.
const finishMany = `
WITH locked AS (
    SELECT id AS lid FROM runs WHERE id = ANY($1::bigint[]) AND state IN ('pending', 'running') ORDER BY id FOR UPDATE
)
UPDATE runs SET state = v.vstate, exit_code = v.vexit, output = COALESCE(v.vout, runs.output),
       error = v.verr, finished_at = COALESCE(v.vfin, $6)
  FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::bytea[], $5::text[], $7::timestamptz[]) AS v(vid, vstate, vexit, vout, verr, vfin), locked
 WHERE runs.id = v.vid AND locked.lid = v.vid AND runs.state IN ('pending', 'running')
RETURNING ` + runCols

// countMany adds a batch's outcomes to the jobs' status. The rows are
// locked in name order first, as RunInsertBatch's advances lock them, so
// concurrent batches cannot deadlock on them.
const countMany = `
WITH locked AS (
    SELECT name FROM jobs WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE
)
UPDATE jobs SET succeeded = jobs.succeeded + d.ok, failed = jobs.failed + d.bad,
       last_successful_time = CASE WHEN d.ok > 0 THEN GREATEST(jobs.last_successful_time, $4) ELSE jobs.last_successful_time END
  FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS d(dname, ok, bad), locked
 WHERE jobs.name = d.dname AND locked.name = d.dname`

// pruneMany deletes the finished runs of several jobs, each with its own
// limits, beyond those limits: the newest by scheduled time, then ID, are
// kept. The limits count per target node, so a fanned-out job keeps as many
// instants of each node as a plain job keeps of itself, and one node's runs
// never push out another's. It is the store's only prune statement: every
// path that ends a run, and RunPrune, goes through it.
//
// The doomed rows are locked in id order before they are deleted, so two
// batches pruning the same jobs cannot deadlock.
const pruneMany = `
WITH doomed AS (
    SELECT id AS did FROM runs WHERE id IN (
        SELECT id FROM (
            SELECT r.id, r.state, p.ks, p.kf, row_number() OVER (
                       PARTITION BY r.job, r.state = 'succeeded', r.target
                       ORDER BY r.scheduled_time DESC, r.id DESC) AS rank
              FROM runs r JOIN unnest($1::text[], $2::bigint[], $3::bigint[]) AS p(pjob, ks, kf) ON r.job = p.pjob
             WHERE r.state IN ('succeeded', 'failed', 'killed', 'missed', 'lost')) ranked
         WHERE rank > CASE WHEN state = 'succeeded' THEN ks ELSE kf END)
    ORDER BY id FOR UPDATE
)
DELETE FROM runs USING doomed WHERE runs.id = doomed.did`

// appendMany inserts events in the order given.
const appendMany = `
INSERT INTO events (time, kind, job, resource, run_id, message, data, actor, via, remote)
SELECT e.time, e.kind, e.job, e.resource, e.run_id, e.message, e.data::json, e.actor, e.via, e.remote
  FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[],
              $8::text[], $9::text[], $10::text[])
       WITH ORDINALITY AS e(time, kind, job, resource, run_id, message, data, actor, via, remote, n)
 ORDER BY e.n`

// RunFinishBatch finishes the items in one fenced transaction: one
// statement moves every run, then the job counts, the events and the
// history pruning of all the jobs travel as one pipelined batch. A batch
// of n runs costs three round trips and one commit, not n transactions.
func (s *Store) RunFinishBatch(ctx context.Context, p store.RunFinishBatchParams) ([]store.RunFinishResult, error) {
	if len(p.Items) == 0 {
		return nil, nil
	}
	now := s.now(p.Now)
	n := len(p.Items)
	out := make([]store.RunFinishResult, n)
	ids, states, errs := make([]int64, 0, n), make([]string, 0, n), make([]string, 0, n)
	exits, outputs := make([]*int32, 0, n), make([][]byte, 0, n)
	fins := make([]*time.Time, 0, n)
	seen := make(map[int64]bool, n)
	for i, it := range p.Items {
		if !it.State.Terminal() {
			return nil, fmt.Errorf("pgstore: finish run %d: %q is not a final state", it.ID, it.State)
		}
		if seen[it.ID] {
			out[i].Err = fmt.Errorf("pgstore: finish run %d: an earlier item of the batch finishes it: %w", it.ID, store.ErrConflict)
			continue
		}
		seen[it.ID] = true
		var exit *int32
		if it.ExitCode != nil {
			c := int32(*it.ExitCode)
			exit = &c
		}
		ids, states, errs = append(ids, it.ID), append(states, string(it.State)), append(errs, it.Error)
		exits, outputs = append(exits, exit), append(outputs, it.Output)
		var fin *time.Time
		if !it.FinishedAt.IsZero() {
			t := it.FinishedAt.UTC().Truncate(time.Microsecond)
			fin = &t
		}
		fins = append(fins, fin)
	}
	err := s.tx(ctx, p.Term, func(tx querier) error {
		rows, err := tx.Query(ctx, finishMany, ids, states, exits, outputs, errs, now, fins)
		if err != nil {
			return fmt.Errorf("pgstore: finish runs: %w", err)
		}
		done, err := collectRuns(rows, false)
		if err != nil {
			return fmt.Errorf("pgstore: finish runs: %w", err)
		}
		byID := make(map[int64]store.Run, len(done))
		for _, r := range done {
			byID[r.ID] = r
		}
		type tally struct{ ok, bad int64 }
		counts := map[string]*tally{}
		prunes := map[string]store.HistoryLimits{}
		var ev eventArrays
		var missing []int64
		for i, it := range p.Items {
			if out[i].Err != nil {
				continue
			}
			r, ok := byID[it.ID]
			if !ok {
				missing = append(missing, it.ID)
				continue
			}
			out[i].Run = r
			t := counts[r.Job]
			if t == nil {
				t = &tally{}
				counts[r.Job] = t
			}
			switch it.State {
			case store.RunSucceeded:
				t.ok++
			case store.RunFailed, store.RunKilled, store.RunLost:
				t.bad++
			}
			if it.Prune != nil {
				prunes[r.Job] = *it.Prune
			}
			ev.add(ctx, now, r.Job, r.ID, it.Events)
		}
		b := &pgx.Batch{}
		// The lookup of the runs not finished comes first, before the
		// pruning can delete one of them.
		if len(missing) > 0 {
			b.Queue(`SELECT id, state FROM runs WHERE id = ANY($1)`, missing)
		}
		if len(counts) > 0 {
			names := make([]string, 0, len(counts))
			for name := range counts {
				names = append(names, name)
			}
			slices.Sort(names)
			oks, bads := make([]int64, len(names)), make([]int64, len(names))
			for i, name := range names {
				oks[i], bads[i] = counts[name].ok, counts[name].bad
			}
			b.Queue(countMany, names, oks, bads, now)
		}
		if len(ev.kind) > 0 {
			b.Queue(appendMany, ev.time, ev.kind, ev.job, ev.resource, ev.run, ev.message, ev.data, ev.actor, ev.via, ev.remote)
		}
		if len(prunes) > 0 {
			jobs, ks, kf := make([]string, 0, len(prunes)), make([]int64, 0, len(prunes)), make([]int64, 0, len(prunes))
			for job, l := range prunes {
				jobs, ks, kf = append(jobs, job), append(ks, int64(max(l.KeepSucceeded, 0))), append(kf, int64(max(l.KeepFailed, 0)))
			}
			b.Queue(pruneMany, jobs, ks, kf)
		}
		if b.Len() == 0 {
			return nil
		}
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		execs := b.Len()
		if len(missing) > 0 {
			execs--
			rows, err := br.Query()
			if err != nil {
				return fmt.Errorf("pgstore: finish runs: %w", err)
			}
			state := map[int64]string{}
			var id int64
			var st string
			if _, err := pgx.ForEachRow(rows, []any{&id, &st}, func() error { state[id] = st; return nil }); err != nil {
				return fmt.Errorf("pgstore: finish runs: %w", err)
			}
			for i, it := range p.Items {
				if out[i].Err != nil || out[i].Run.ID != 0 {
					continue
				}
				if st, ok := state[it.ID]; ok {
					out[i].Err = fmt.Errorf("pgstore: finish run %d: it is %s: %w", it.ID, st, store.ErrConflict)
				} else {
					out[i].Err = fmt.Errorf("pgstore: run %d: %w", it.ID, store.ErrNotFound)
				}
			}
		}
		for ; execs > 0; execs-- {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("pgstore: finish runs: %w", err)
			}
		}
		return br.Close()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eventArrays is a list of events as the column arrays appendMany takes.
type eventArrays struct {
	time                         []time.Time
	kind, job, resource, message []string
	run                          []int64
	data                         []*string
	actor, via, remote           []string
}

// add appends events about run of job, filling in what the caller left
// empty as appendEvents does.
func (a *eventArrays) add(ctx context.Context, now time.Time, job string, run int64, events []store.Event) {
	for _, e := range events {
		store.StampActor(ctx, &e)
		a.actor, a.via, a.remote = append(a.actor, e.Actor), append(a.via, e.Via), append(a.remote, e.Remote)
		t := now
		if !e.Time.IsZero() {
			t = e.Time.UTC().Truncate(time.Microsecond)
		}
		if e.Job == "" {
			e.Job = job
		}
		if e.RunID == 0 {
			e.RunID = run
		}
		var d *string
		if len(e.Data) > 0 {
			s := string(e.Data)
			d = &s
		}
		a.time, a.kind, a.job, a.resource = append(a.time, t), append(a.kind, string(e.Kind)), append(a.job, e.Job), append(a.resource, e.Resource)
		a.run, a.message, a.data = append(a.run, e.RunID), append(a.message, e.Message), append(a.data, d)
	}
}
