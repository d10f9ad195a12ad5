package job

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// doneExec starts processes that have already exited successfully, so a
// benchmark measures the controller and the store, not fork/exec.
type doneExec struct{}

type doneProc struct{ c chan struct{} }

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (doneExec) Start(context.Context, store.Run, store.JobSpec) (Process, error) {
	return doneProc{closed}, nil
}
func (doneExec) Attach(context.Context, store.Run) (Process, error) { return nil, ErrNotAttachable }
func (p doneProc) Done() <-chan struct{}                            { return p.c }
func (doneProc) Result() Result                                     { return Result{ExitCode: new(int)} }
func (doneProc) Terminate()                                         {}
func (doneProc) Kill()                                              {}

// benchController loads n every-minute jobs into a fresh SQLite store and
// returns a started controller driven by hand (no Run goroutine).
func benchController(b testing.TB, n int) (*Controller, *clock.Fake) {
	b.Helper()
	ctx := context.Background()
	clk := clock.NewFake(t0)
	st, err := sqlitestore.Open(ctx, b.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	for i := 0; i < n; i++ {
		if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{
			Name: fmt.Sprintf("job-%05d", i), Cron: "1m", Command: []string{"true"}, ConcurrencyPolicy: store.Allow,
		}, Source: store.SourceAPI, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
	c, err := NewController(Config{Store: st, Clock: clk, Parse: parseEvery, Executor: doneExec{}})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.start(ctx); err != nil {
		b.Fatal(err)
	}
	c.step(ctx)
	return c, clk
}

// BenchmarkTick10000Jobs measures one controller tick in which all 10,000
// jobs are due: per job a run is inserted with its schedule time, released,
// claimed, started, finished and its history pruned.
func BenchmarkTick10000Jobs(b *testing.B) {
	const n = 10000
	c, clk := benchController(b, n)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clk.Advance(time.Minute)
		c.step(ctx)
		for len(c.active) > 0 {
			c.finish(ctx, c.drain(<-c.results))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/job")
	runs, _, _ := c.st.RunList(ctx, store.RunListParams{Job: "job-00000"})
	if len(runs) == 0 {
		b.Fatal("no run was created")
	}
}

// BenchmarkTickIdle10000Jobs measures a wake-up with 10,000 jobs loaded and
// none due: the heap makes it independent of the number of jobs.
func BenchmarkTickIdle10000Jobs(b *testing.B) {
	c, _ := benchController(b, 10000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.step(ctx)
		_ = c.nextWake()
	}
}

// BenchmarkStart10000Jobs measures loading 10,000 jobs at start-up.
func BenchmarkStart10000Jobs(b *testing.B) {
	c, _ := benchController(b, 10000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c2, _ := NewController(c.cfg)
		if err := c2.start(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
