package job

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// callLog is a store that records the order of run inserts and claims.
type callLog struct {
	store.Store
	mu    sync.Mutex
	calls []string
}

func (l *callLog) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	l.mu.Lock()
	l.calls = append(l.calls, "insert")
	l.mu.Unlock()
	return l.Store.RunInsertBatch(ctx, p)
}

func (l *callLog) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	runs, err := l.Store.RunClaim(ctx, p)
	l.mu.Lock()
	l.calls = append(l.calls, fmt.Sprintf("claim %d", len(runs)))
	l.mu.Unlock()
	return runs, err
}

// TestBurstCreatesRunsBeforeDraining: when more jobs fall due together
// than one insert batch holds, the controller (the leader, in a cluster)
// starts at most one claim batch between two insert batches. Draining every
// ready run there would make the rest of the instant's runs wait until
// this node had started all those processes, although other nodes could
// start them; the remaining ready runs are still all started in the step.
func TestBurstCreatesRunsBeforeDraining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := clock.NewFake(t0)
		st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		const jobs = 2*maxFireBatch + 500
		for i := 0; i < jobs; i++ {
			if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: spec(fmt.Sprintf("j%04d", i), "1m"), Source: store.SourceAPI, Now: t0}); err != nil {
				t.Fatal(err)
			}
		}
		log := &callLog{Store: st}
		b := &bundle{t: t, ctx: ctx, clk: clk, st: st, ex: &fakeExec{}, gates: map[string]Gate{}}
		b.cfg = Config{Store: log, Clock: clk, Parse: parseEvery, Executor: b.ex}
		b.start()
		defer b.stop()
		log.mu.Lock()
		log.calls = nil
		log.mu.Unlock()

		b.advance(time.Minute)

		log.mu.Lock()
		calls := append([]string(nil), log.calls...)
		log.mu.Unlock()
		inserts, claimsSinceInsert := 0, 0
		for i, c := range calls {
			if c == "insert" {
				inserts++
				claimsSinceInsert = 0
				continue
			}
			claimsSinceInsert++
			if inserts < 3 && claimsSinceInsert > 1 {
				t.Fatalf("call %d: a second claim before all runs were inserted; calls: %v", i, calls)
			}
		}
		if inserts != 3 {
			t.Fatalf("%d insert batches, want 3; calls: %v", inserts, calls)
		}
		if got := len(b.ex.started()); got != jobs {
			t.Fatalf("%d processes started in the step, want %d", got, jobs)
		}
	})
}
