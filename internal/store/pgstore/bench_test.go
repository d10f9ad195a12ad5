package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/storetest"
)

// seedReady inserts n ready pending runs of one job in a single statement.
func seedReady(b *testing.B, s *Store, n int) {
	b.Helper()
	ctx := context.Background()
	if _, err := s.Pool().Exec(ctx, `TRUNCATE runs`); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `
		INSERT INTO runs (job, scheduled_time, attempt, reason, state, ready_at, created_at)
		SELECT 'j', $1::timestamptz + i * interval '1 second', 1, 'schedule', 'pending', $1, $1
		  FROM generate_series(1, $2) AS i`, t0, n); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `ANALYZE runs`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRunClaim measures claims per second: b.N ready runs are claimed
// by concurrent workers (standing for nodes' executors) in batches, with
// FOR UPDATE SKIP LOCKED; one op is one claimed run.
func BenchmarkRunClaim(b *testing.B) {
	ctx := context.Background()
	s := open(b)
	mustJob(b, s, "j")
	for _, c := range []struct{ workers, batch int }{{4, 1}, {4, 10}, {4, 100}, {8, 100}, {4, 500}} {
		b.Run(fmt.Sprintf("workers=%d/batch=%d", c.workers, c.batch), func(b *testing.B) {
			seedReady(b, s, b.N)
			var claimed atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := 0; w < c.workers; w++ {
				node := fmt.Sprintf("node-%d", w)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						runs, err := s.RunClaim(ctx, store.RunClaimParams{Node: node, Now: t0, Limit: c.batch})
						if err != nil {
							b.Error(err)
							return
						}
						if len(runs) == 0 {
							return
						}
						claimed.Add(int64(len(runs)))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if int(claimed.Load()) != b.N {
				b.Fatalf("claimed %d of %d runs", claimed.Load(), b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "claims/s")
		})
	}
}

// BenchmarkSchedule10kJobs measures the controller's side: one op schedules
// one instant for 10,000 jobs, each a fenced RunInsert that also advances
// the job's last schedule time, from 8 goroutines.
func BenchmarkSchedule10kJobs(b *testing.B) {
	const jobs, workers = 10000, 8
	ctx := context.Background()
	s := open(b)
	if _, err := s.Pool().Exec(ctx, `
		INSERT INTO jobs (name, spec, source, version, created_at, updated_at)
		SELECT 'job-' || i, jsonb_build_object('name', 'job-' || i, 'cron', '* * * * *', 'shell', 'true'), 'api', 1, $1, $1
		  FROM generate_series(1, $2) AS i`, t0, jobs); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `ANALYZE jobs`); err != nil {
		b.Fatal(err)
	}
	// Keep the lease renewed for as long as the benchmark runs.
	if err := leader.Migrate(ctx, s.Pool()); err != nil {
		b.Fatal(err)
	}
	e, err := leader.New(s.Pool(), leader.Config{Name: s.LeaseName(), Holder: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	elected := make(chan leader.Status, 1)
	go e.Run(lctx, func(st leader.Status) {
		if st.Leader {
			elected <- st
		}
	})
	st := <-elected
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		at := t0.Add(time.Duration(i+1) * time.Minute)
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range next {
					_, err := s.RunInsert(ctx, store.RunInsertParams{
						Run:     store.Run{Job: fmt.Sprintf("job-%d", j), ScheduledTime: at, Reason: store.ReasonSchedule, ReadyAt: at},
						Advance: true, Term: st.Term, Now: at,
						Events: []store.Event{{Kind: store.EventRunScheduled, Message: "scheduled"}},
					})
					if err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for j := 1; j <= jobs; j++ {
			next <- j
		}
		close(next)
		wg.Wait()
	}
	b.ReportMetric(float64(b.N*jobs)/time.Since(start).Seconds(), "runs/s")
}

// BenchmarkLargeHistory is sqlitestore's benchmark of the same name on
// PostgreSQL: ALMANAC_HISTORY_RUNS finished runs (default 1,000,000) of
// 1,000 jobs, written by one INSERT ... SELECT and analysed, then listed
// and pruned.
//
//	go test -run '^$' -bench LargeHistory -benchtime 200x ./internal/store/pgstore/
func BenchmarkLargeHistory(b *testing.B) {
	s := open(b)
	storetest.BenchHistory(b, s, func(ctx context.Context, total int) error {
		if _, err := s.Pool().Exec(ctx, `
			INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, created_at, started_at, finished_at, exit_code)
			SELECT 'job-' || lpad((i % $3)::text, 4, '0'), t, 1, 'schedule',
			       CASE WHEN (i / $3) % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 'n1',
			       t, t, t + interval '1 millisecond', CASE WHEN (i / $3) % 10 = 0 THEN 1 ELSE 0 END
			  FROM generate_series(0, $2 - 1) AS i,
			       LATERAL (SELECT $1::timestamptz + (i / $3) * interval '1 minute' AS t) AS at`,
			storetest.HistoryStart, total, storetest.HistoryJobs); err != nil {
			return err
		}
		_, err := s.Pool().Exec(ctx, `ANALYZE runs`)
		return err
	})
}
