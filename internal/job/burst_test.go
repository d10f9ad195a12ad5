package job

import (
	"context"
	"fmt"
	"strings"
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
// inserts every batch before it claims. Claiming in between would make the
// rest of the instant's runs wait until this node had started those
// processes, although other nodes could start them; all the ready runs
// are still started in the same step.
func TestBurstCreatesRunsBeforeDraining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := clock.NewFake(t0)
		const jobs = 2*maxFireBatch + 500
		st := burstStore(t, ctx, clk, jobs)
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
		inserts := 0
		for i, c := range calls {
			if c == "insert" {
				inserts++
				continue
			}
			if inserts < 3 {
				t.Fatalf("call %d: a claim before all runs were inserted; calls: %v", i, calls)
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

// heartbeatLog records claims and the heartbeats of running runs; each
// claim takes slow on the controller's clock, as starting a batch of
// processes does on a loaded machine.
type heartbeatLog struct {
	callLog
	clk   *clock.Fake
	slow  time.Duration
	slowN int // how many claims are slow; later ones take no time
}

func (l *heartbeatLog) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	runs, err := l.callLog.RunClaim(ctx, p)
	l.mu.Lock()
	slow := len(runs) > 0 && l.slowN > 0
	if slow {
		l.slowN--
	}
	l.mu.Unlock()
	if slow {
		l.clk.Set(l.clk.Now().Add(l.slow))
	}
	return runs, err
}

func (l *heartbeatLog) RunHeartbeat(ctx context.Context, p store.RunHeartbeatParams) ([]int64, error) {
	if len(p.IDs) > 0 {
		l.mu.Lock()
		l.calls = append(l.calls, fmt.Sprintf("heartbeat %d", len(p.IDs)))
		l.mu.Unlock()
	}
	return l.callLog.Store.RunHeartbeat(ctx, p)
}

// TestBurstKeepsHeartbeating: while a node drains a burst larger than one
// claim batch and starting processes is slow, the runs it has already
// started keep their heartbeat, so the leader does not presume them dead
// (three missed intervals) before the node is done starting the rest.
func TestBurstKeepsHeartbeating(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := clock.NewFake(t0)
		const jobs = 3*claimBatch + 10
		st := burstStore(t, ctx, clk, jobs)
		log := &heartbeatLog{callLog: callLog{Store: st}, clk: clk, slow: 25 * time.Second, slowN: 4}
		b := &bundle{t: t, ctx: ctx, clk: clk, st: st, ex: &fakeExec{}, gates: map[string]Gate{}}
		// One claim batch takes 25 s, the whole burst longer than three
		// 10 s heartbeat intervals.
		b.cfg = Config{Store: log, Clock: clk, Parse: parseEvery, Executor: b.ex, HeartbeatInterval: 10 * time.Second}
		b.start()
		defer b.stop()
		log.mu.Lock()
		log.calls = nil
		log.mu.Unlock()

		b.advance(time.Minute)

		log.mu.Lock()
		calls := append([]string(nil), log.calls...)
		log.mu.Unlock()
		// The burst drains in one loop of full claims ended by a short
		// one; count the heartbeats inside that loop.
		end, beatsDuring := -1, 0
		for i, c := range calls {
			var n int
			if _, err := fmt.Sscanf(c, "claim %d", &n); err == nil && n < claimBatch {
				end = i
				break
			}
		}
		if end < 0 {
			t.Fatalf("the burst never drained; calls: %v", calls)
		}
		for _, c := range calls[:end] {
			if strings.HasPrefix(c, "heartbeat") {
				beatsDuring++
			}
		}
		if beatsDuring == 0 {
			t.Fatalf("no heartbeat of the started runs while the burst was being claimed; calls: %v", calls)
		}
		if got := len(b.ex.started()); got < jobs {
			t.Fatalf("%d processes started, want at least %d", got, jobs)
		}
	})
}

// burstStore opens a SQLite store holding n jobs due every minute, all at
// the same instants; it is closed when the test ends.
func burstStore(t *testing.T, ctx context.Context, clk *clock.Fake, n int) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := 0; i < n; i++ {
		if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: spec(fmt.Sprintf("j%04d", i), "1m"), Source: store.SourceAPI, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}
