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
