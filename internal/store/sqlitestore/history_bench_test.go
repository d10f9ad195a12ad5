package sqlitestore

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store/storetest"
)

// BenchmarkLargeHistory reads one job's runs out of a database holding
// ALMANAC_HISTORY_RUNS finished runs (default 1,000,000) spread over 1,000
// jobs, and prunes one job's history the way a run's end does. The rows
// are written with plain INSERTs in big transactions, since only reading
// them is measured; it takes about a minute.
//
//	go test -run '^$' -bench LargeHistory -benchtime 200x ./internal/store/sqlitestore/
func BenchmarkLargeHistory(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchHistory(b, s, func(ctx context.Context, total int) error {
		const chunk = 50_000
		for done := 0; done < total; done += chunk {
			err := s.tx(ctx, func(tx *sql.Tx) error {
				stmt, err := tx.PrepareContext(ctx, `INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, created_at, started_at, finished_at, exit_code)
					VALUES (?, ?, 1, 'schedule', ?, 'n1', ?, ?, ?, ?)`)
				if err != nil {
					return err
				}
				defer stmt.Close()
				for i := done; i < min(done+chunk, total); i++ {
					at := storetest.HistoryStart.Add(time.Duration(i/storetest.HistoryJobs) * time.Minute).UnixMicro()
					state, code := "succeeded", 0
					if i/storetest.HistoryJobs%10 == 0 {
						state, code = "failed", 1
					}
					if _, err := stmt.ExecContext(ctx, storetest.HistoryJob(i%storetest.HistoryJobs), at, state, at, at, at+1000, code); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
