package job

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// fullDisk is a store whose writes of run ends and heartbeats fail, as on a
// full disk, while failing is set.
type fullDisk struct {
	store.Store
	failing atomic.Bool
}

func (f *fullDisk) err() error {
	if f.failing.Load() {
		return fmt.Errorf("write: %w", syscall.ENOSPC)
	}
	return nil
}

func (f *fullDisk) RunFinishBatch(ctx context.Context, p store.RunFinishBatchParams) ([]store.RunFinishResult, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.Store.RunFinishBatch(ctx, p)
}

func (f *fullDisk) RunHeartbeat(ctx context.Context, p store.RunHeartbeatParams) ([]int64, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.Store.RunHeartbeat(ctx, p)
}

// TestRunEndSurvivesStoreOutage checks that a run whose process ends while
// the store refuses writes is recorded with its real outcome once the store
// recovers, is not taken for an orphan meanwhile, and that the controller
// reports the failing writes.
func TestRunEndSurvivesStoreOutage(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.stop()
		disk := &fullDisk{Store: b.st}
		b.cfg.Store = disk
		b.start()

		b.put(spec("backup", "1h", func(s *store.JobSpec) { s.BackoffLimit = 1 }))
		b.advance(time.Hour)
		procs := b.procs("backup")
		if len(procs) != 1 {
			t.Fatalf("started %d processes, want 1", len(procs))
		}
		if _, err := b.ctl.StoreHealth(); err != nil {
			t.Fatalf("StoreHealth before the outage: %v", err)
		}

		disk.failing.Store(true)
		b.exitAll("backup", 0)
		since, err := b.ctl.StoreHealth()
		if err == nil || since.IsZero() {
			t.Fatal("StoreHealth reports no failure while writes fail")
		}
		// Long enough for the run's heartbeat to go stale three times over.
		for range 6 {
			b.advance(10 * time.Second)
		}
		if runs := b.runs("backup"); len(runs) != 1 || runs[0].State != store.RunRunning {
			t.Fatalf("during the outage: %v, want the one run still running", states(runs))
		}

		disk.failing.Store(false)
		b.advance(10 * time.Second)
		runs := b.runs("backup")
		if len(runs) != 1 || runs[0].State != store.RunSucceeded || string(runs[0].Output) != "exit 0\n" {
			t.Fatalf("after the outage: %v, want one succeeded run with its output", states(runs))
		}
		if len(b.procs("backup")) != 1 {
			t.Errorf("the command ran %d times", len(b.procs("backup")))
		}
		if _, err := b.ctl.StoreHealth(); err != nil {
			t.Errorf("StoreHealth after recovery: %v", err)
		}
		synctest.Wait()
	})
}

// refusedInserts is a store that refuses every run insert, as a
// PostgreSQL schema whose unique key does not match the insert's ON
// CONFLICT target does (SQLSTATE 42P10).
type refusedInserts struct{ store.Store }

var errNoConstraint = fmt.Errorf("ERROR: there is no unique or exclusion constraint matching the ON CONFLICT specification (SQLSTATE 42P10)")

func (refusedInserts) RunInsert(context.Context, store.RunInsertParams) (store.Run, error) {
	return store.Run{}, errNoConstraint
}

func (refusedInserts) RunInsertBatch(context.Context, store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	return nil, errNoConstraint
}

// TestRefusedInsertsShowInHealth: a controller whose every run insert
// is refused reports it as a store failure (which /healthz answers 503
// for), whether the run would start at once (a batch) or wait (one
// insert), rather than missing every instant quietly.
func TestRefusedInsertsShowInHealth(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(*store.JobSpec)
	}{
		{"ready runs, inserted in a batch", func(*store.JobSpec) {}},
		{"held runs, inserted one by one", func(s *store.JobSpec) { s.Requires = []string{"other"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run(t, func(t *testing.T, b *bundle) {
				b.stop()
				b.cfg.Store = refusedInserts{b.st}
				b.start()
				b.put(spec("tick", "1m", tt.mod))
				b.advance(time.Minute)
				if _, err := b.ctl.StoreHealth(); err == nil {
					t.Fatal("StoreHealth reports no failure while every run insert is refused")
				}
				synctest.Wait()
			})
		})
	}
}
