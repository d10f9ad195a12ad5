package storetest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// HistoryJobs is how many jobs a large history is spread over: jobs
// HistoryJob(0) to HistoryJob(HistoryJobs-1).
const HistoryJobs = 1000

// HistoryStart is the first run's scheduled instant in a large history;
// run i is scheduled i/HistoryJobs minutes after it.
var HistoryStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// HistoryRuns is how many runs a large-history benchmark writes:
// ALMANAC_HISTORY_RUNS, or 1,000,000.
func HistoryRuns() int {
	total := 1_000_000
	if v := os.Getenv("ALMANAC_HISTORY_RUNS"); v != "" {
		fmt.Sscan(v, &total)
	}
	return total
}

// HistoryJob names job j of a large history.
func HistoryJob(j int) string { return fmt.Sprintf("job-%04d", j) }

// BenchHistory measures listing and pruning the runs of a large history.
// fill writes total finished runs into s, run i belonging to job
// HistoryJob(i%HistoryJobs), scheduled as HistoryStart says, and failed
// when (i/HistoryJobs)%10 == 0 (one run in ten of every job); BenchHistory
// creates the jobs first. Only reading and pruning are measured, so each
// store fills its tables in its own fastest way.
func BenchHistory(b *testing.B, s store.Store, fill func(ctx context.Context, total int) error) {
	ctx := context.Background()
	total := HistoryRuns()
	for j := range HistoryJobs {
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: HistoryJob(j), Cron: "* * * * *",
			Command: []string{"true"}}, Source: store.SourceAPI, Now: HistoryStart}); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	if err := fill(ctx, total); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d runs of %d jobs in %v", total, HistoryJobs, time.Since(start).Round(time.Second))

	b.Run("list newest 50 of one job", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: HistoryJob(i % HistoryJobs), Page: store.Page{Limit: 50}})
			if err != nil || len(runs) != 50 {
				b.Fatalf("%d runs, %v", len(runs), err)
			}
		}
	})
	b.Run("list failed runs of one job", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: HistoryJob(i % HistoryJobs), States: []store.RunState{store.RunFailed}, Page: store.Page{Limit: 50}})
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
			if _, err := s.RunPrune(ctx, store.RunPruneParams{Job: HistoryJob(i % HistoryJobs), KeepSucceeded: 3, KeepFailed: 1}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The first prune of a job deletes nearly all its runs (a job whose
	// limits were just lowered); the second finds one run or none beyond
	// the limits, as after every run's end.
	b.Run("prune a job's whole history to the default limits", prune)
	b.Run("prune again, nothing beyond the limits", prune)
}
