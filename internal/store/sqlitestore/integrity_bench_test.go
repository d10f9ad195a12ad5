package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// BenchmarkIntegrityCheck runs the full integrity_check on a database of
// about ALMANAC_BENCH_STORE_MB megabytes (default 64): finished runs with
// 4 KiB of output each, over 100 jobs. Building the database is not
// measured. For the figure in docs/performance.md:
//
//	ALMANAC_BENCH_STORE_MB=1024 go test -run '^$' -bench IntegrityCheck -benchtime 3x ./internal/store/sqlitestore/
func BenchmarkIntegrityCheck(b *testing.B) {
	mb := 64
	if v := os.Getenv("ALMANAC_BENCH_STORE_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ALMANAC_BENCH_STORE_MB=%q: want a positive number", v)
		}
		mb = n
	}
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const jobs, outputSize = 100, 4 << 10
	for j := range jobs {
		spec := store.JobSpec{Name: fmt.Sprintf("job-%03d", j), Cron: "* * * * *", Command: []string{"true"}}
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: spec}); err != nil {
			b.Fatal(err)
		}
	}
	output := make([]byte, outputSize)
	for i := range output {
		output[i] = byte('a' + i%26)
	}
	total := mb << 20 / outputSize
	const chunk = 20_000
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for done := 0; done < total; done += chunk {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, `INSERT INTO runs (job, scheduled_time, attempt, reason, state, node, created_at, started_at, finished_at, exit_code, output)
				VALUES (?, ?, 1, 'schedule', 'succeeded', 'n1', ?, ?, ?, 0, ?)`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for i := done; i < min(done+chunk, total); i++ {
				t := at + int64(i)*60e6
				if _, err := stmt.ExecContext(ctx, fmt.Sprintf("job-%03d", i%jobs), t, t, t, t+1000, output); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "MB")
	b.ResetTimer()
	for b.Loop() {
		if err := s.IntegrityCheck(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
