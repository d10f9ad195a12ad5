package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// RunInsertBatch implements store.Store: every item in one write
// transaction, with the insert statement prepared once. A constraint
// failure only undoes its own statement in SQLite, so a duplicate or an
// orphan item is reported and the transaction goes on with the next.
func (s *Store) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	if len(p.Items) == 0 {
		return nil, nil
	}
	now := s.now(p.Now)
	out := make([]store.RunInsertResult, len(p.Items))
	err := s.tx(ctx, func(tx *sql.Tx) error {
		ins := s.stmt(ctx, tx, sqlInsertRun)
		for _, i := range store.BatchOrder(p.Items) {
			it := p.Items[i]
			r := it.Run
			if r.Attempt == 0 {
				r.Attempt = 1
			}
			if r.State == "" {
				r.State = store.RunPending
			}
			var exit any
			if r.ExitCode != nil {
				exit = *r.ExitCode
			}
			run, err := scanRun(ins.QueryRowContext(ctx,
				r.Job, r.ScheduledTime.UnixMicro(), r.Attempt, string(r.Reason), string(r.State), r.Node, micro(r.ReadyAt),
				now.UnixMicro(), micro(r.StartedAt), micro(r.FinishedAt), micro(r.HeartbeatAt), boolInt(r.CancelRequested),
				exit, r.Output, r.Error, r.Target), true)
			switch {
			case isUnique(err):
				out[i].Err = fmt.Errorf("insert run %s@%s%s#%d: %w", r.Job, r.ScheduledTime.Format(time.RFC3339), forTarget(r.Target), r.Attempt, store.ErrDuplicate)
				continue
			case isForeignKey(err):
				out[i].Err = fmt.Errorf("insert run: job %q: %w", r.Job, store.ErrNotFound)
				continue
			case err != nil:
				return fmt.Errorf("insert run %s@%s#%d: %w", r.Job, r.ScheduledTime.Format(time.RFC3339), r.Attempt, err)
			}
			if it.Advance {
				if err := s.advance(ctx, tx, r.Job, r.ScheduledTime); err != nil {
					return err
				}
			}
			if err := s.appendEvents(ctx, tx, now, r.Job, run.ID, it.Events); err != nil {
				return err
			}
			out[i].Run = run
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
