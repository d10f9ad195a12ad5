package sqlitestore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// BenchmarkBurst100 measures the two writes that stand between 100 jobs'
// shared instant and their first process: inserting the 100 ready runs
// (each advancing its job and logging its "scheduled" event) and claiming
// them (each logging "started"). One op is one instant.
//
//	go test -run '^$' -bench Burst100 ./internal/store/sqlitestore/
func BenchmarkBurst100(b *testing.B) {
	const n = 100
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for j := range n {
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: fmt.Sprintf("job-%03d", j), Cron: "* * * * * *",
			Command: []string{"true"}}, Source: store.SourceAPI, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
	var insert, claim time.Duration
	for i := 0; b.Loop(); i++ {
		at := t0.Add(time.Duration(i+1) * time.Second)
		items := make([]store.RunInsertParams, n)
		for j := range items {
			items[j] = store.RunInsertParams{
				Run:     store.Run{Job: fmt.Sprintf("job-%03d", j), ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: at},
				Advance: true,
				Events:  []store.Event{{Time: at, Kind: store.EventRunScheduled, Message: "scheduled schedule run for " + at.Format(time.RFC3339)}},
			}
		}
		began := time.Now()
		if _, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{Items: items, Now: at}); err != nil {
			b.Fatal(err)
		}
		inserted := time.Now()
		runs, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: at, Limit: 256})
		if err != nil || len(runs) != n {
			b.Fatalf("claimed %d runs: %v", len(runs), err)
		}
		insert += inserted.Sub(began)
		claim += time.Since(inserted)
		// Finish them so the next instant's claim finds only its own.
		ends := make([]store.RunFinishParams, n)
		for j, r := range runs {
			ends[j] = store.RunFinishParams{ID: r.ID, State: store.RunSucceeded, ExitCode: new(int)}
		}
		if _, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: ends, Now: at}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(insert.Microseconds())/float64(b.N), "insert-µs")
	b.ReportMetric(float64(claim.Microseconds())/float64(b.N), "claim-µs")
}
