package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// BenchmarkLargeHistory reads one job's runs out of a database holding
// ALMANAC_HISTORY_RUNS finished runs (default 1,000,000) spread over 1,000
// jobs, and prunes one job's history the way a run's end does. The rows
// are written with plain INSERTs in big transactions, since only reading
// them is measured; it takes about a minute.
//
//	go test -run '^$' -bench LargeHistory -benchtime 200x ./internal/store/sqlitestore/
func BenchmarkLargeHistory(b *testing.B) {
	total := 1_000_000
	if v := os.Getenv("ALMANAC_HISTORY_RUNS"); v != "" {
		fmt.Sscan(v, &total)
	}
	const jobs = 1000
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for j := range jobs {
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: fmt.Sprintf("job-%04d", j), Cron: "* * * * *",
			Command: []string{"true"}}, Source: store.SourceAPI, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
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
				at := t0.Add(time.Duration(i/jobs) * time.Minute).UnixMicro()
				state, code := "succeeded", 0
				if i/jobs%10 == 0 { // one run in ten of every job failed
					state, code = "failed", 1
				}
				if _, err := stmt.ExecContext(ctx, fmt.Sprintf("job-%04d", i%jobs), at, state, at, at, at+1000, code); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("wrote %d runs of %d jobs in %v", total, jobs, time.Since(start).Round(time.Second))

	b.Run("list newest 50 of one job", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: fmt.Sprintf("job-%04d", i%jobs), Page: store.Page{Limit: 50}})
			if err != nil || len(runs) != 50 {
				b.Fatalf("%d runs, %v", len(runs), err)
			}
		}
	})
	b.Run("list failed runs of one job", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: fmt.Sprintf("job-%04d", i%jobs), States: []store.RunState{store.RunFailed}, Page: store.Page{Limit: 50}})
			if err != nil || len(runs) == 0 {
				b.Fatalf("%d runs, %v", len(runs), err)
			}
		}
	})
	b.Run("list newest 50 of all jobs", func(b *testing.B) {
		for b.Loop() {
			if runs, _, err := s.RunList(ctx, store.RunListParams{Page: store.Page{Limit: 50}}); err != nil || len(runs) != 50 {
				b.Fatalf("%d runs, %v", len(runs), err)
			}
		}
	})
	prune := func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.RunPrune(ctx, store.RunPruneParams{Job: fmt.Sprintf("job-%04d", i%jobs), KeepSucceeded: 3, KeepFailed: 1}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The first prune of a job deletes nearly all its 1,000 runs (a job
	// whose limits were just lowered); the second finds one run or none
	// beyond the limits, as after every run's end.
	b.Run("prune a job's whole history to the default limits", prune)
	b.Run("prune again, nothing beyond the limits", prune)
}
