package job

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// sharedInstant fires once, at an instant set after the jobs are created,
// so that every job of the benchmark is due at the same moment however
// long loading them took.
type sharedInstant struct{ at *atomic.Int64 }

func (s sharedInstant) Next(t time.Time) time.Time {
	ns := s.at.Load()
	if ns == 0 || !t.Before(time.Unix(0, ns)) {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// stampExec wraps an executor, recording when each process was started
// relative to its run's scheduled instant.
type stampExec struct {
	Executor
	mu   sync.Mutex
	lat  []time.Duration
	want int
	all  chan struct{}
}

func (s *stampExec) Start(ctx context.Context, r store.Run, spec store.JobSpec) (Process, error) {
	p, err := s.Executor.Start(ctx, r, spec)
	started := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat = append(s.lat, started.Sub(r.ScheduledTime))
	if len(s.lat) == s.want {
		close(s.all)
	}
	return p, err
}

// BenchmarkFireToStart1000 loads 1,000 jobs (command `true`) due at the
// same instant, runs the controller with the real clock, and reports the
// fire-to-start latency of the runs (from the scheduled instant to the
// process having been started) as percentiles, plus the time until every
// run's end was recorded. The exec sub-benchmarks use the real executor;
// the noop ones an executor whose processes have already exited, which
// isolates the controller and the store from the cost of fork and exec.
// BenchmarkSpawn1000 measures that cost alone. Run with -benchtime 1x.
func BenchmarkFireToStart1000(b *testing.B) { fireToStart(b, 1000, true) }

// BenchmarkFireToStart100 is the burst of scripts/jitter: 100 jobs due at
// the same instant, on SQLite. Besides the percentiles it reports when,
// after the instant, the runs' insert and their claim returned and the
// first process had been started, which says where a burst's time goes
// before spawning. Run with -benchtime 20x or more.
func BenchmarkFireToStart100(b *testing.B) { fireToStart(b, 100, false) }

func fireToStart(b *testing.B, n int, postgres bool) {
	for _, x := range []struct {
		name string
		exec func() Executor
	}{{"exec", func() Executor { return &Exec{} }}, {"noop", func() Executor { return doneExec{} }}} {
		b.Run("sqlite/"+x.name, func(b *testing.B) { benchSQLite(b, n, x.exec) })
		if postgres {
			b.Run("postgres/"+x.name, func(b *testing.B) { benchPostgres(b, n, x.exec) })
		}
	}
}

// BenchmarkSpawn1000 starts 1,000 `true` processes with the real executor,
// as many at a time as the controller does, without controller or store:
// the floor under the exec rows of BenchmarkFireToStart1000.
func BenchmarkSpawn1000(b *testing.B) { spawn(b, 1000) }

// BenchmarkSpawn100 is the floor under BenchmarkFireToStart100/sqlite/exec.
func BenchmarkSpawn100(b *testing.B) { spawn(b, 100) }

func spawn(b *testing.B, n int) {
	var all []time.Duration
	for i := 0; i < b.N; i++ {
		x := &stampExec{Executor: &Exec{}, want: n, all: make(chan struct{})}
		begin := time.Now()
		runs := make([]starting, n)
		for j := range runs {
			runs[j] = starting{run: store.Run{ID: int64(j + 1), Job: "spawn", ScheduledTime: begin}, spec: store.JobSpec{Command: []string{"true"}}}
		}
		startAll(context.Background(), x, runs)
		for _, s := range runs {
			if s.err != nil {
				b.Fatal(s.err)
			}
			<-s.proc.Done()
		}
		all = append(all, x.lat...)
	}
	reportLatency(b, all)
}

func benchSQLite(b *testing.B, n int, exec func() Executor) {
	benchFireToStart(b, n, exec, func(b *testing.B) (store.Store, func() int64) {
		st, err := sqlitestore.Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st, nil
	})
}

func benchPostgres(b *testing.B, n int, exec func() Executor) {
	benchFireToStart(b, n, exec, func(b *testing.B) (store.Store, func() int64) {
		ctx, cancel := context.WithCancel(context.Background())
		st, err := pgstore.Open(ctx, pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		// Lead for real, so every scheduling write is fenced.
		if err := leader.Migrate(ctx, st.Pool()); err != nil {
			b.Fatal(err)
		}
		e, err := leader.New(st.Pool(), leader.Config{Name: st.LeaseName(), Holder: "bench", Clock: clock.Real{}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(e.Close)
		lead := make(chan struct{})
		var once sync.Once
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.Run(ctx, func(s leader.Status) {
				if s.Leader {
					once.Do(func() { close(lead) })
				}
			})
		}()
		b.Cleanup(func() { cancel(); <-done; st.Close() })
		select {
		case <-lead:
		case <-time.After(10 * time.Second):
			b.Fatal("did not become leader")
		}
		return st, func() int64 { return e.Status().Term }
	})
}

// stagedStore records when the first run insert and the first claim after
// the instant returned.
type stagedStore struct {
	store.Store
	inserted, claimed atomic.Int64 // UnixNano, 0 until it happened
}

func (s *stagedStore) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	res, err := s.Store.RunInsertBatch(ctx, p)
	s.inserted.CompareAndSwap(0, time.Now().UnixNano())
	return res, err
}

func (s *stagedStore) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	runs, err := s.Store.RunClaim(ctx, p)
	if len(runs) > 0 {
		s.claimed.CompareAndSwap(0, time.Now().UnixNano())
	}
	return runs, err
}

func benchFireToStart(b *testing.B, n int, exec func() Executor, open func(*testing.B) (store.Store, func() int64)) {
	var all []time.Duration
	var doneAfter, inserted, claimed, first time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ctx, cancel := context.WithCancel(context.Background())
		raw, term := open(b)
		st := &stagedStore{Store: raw}
		at := new(atomic.Int64)
		parse := func(_, _ string, _ *time.Location) (Schedule, error) { return sharedInstant{at}, nil }
		for j := 0; j < n; j++ {
			if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{
				Name: fmt.Sprintf("job-%04d", j), Cron: "shared", Command: []string{"true"},
			}, Source: store.SourceAPI}); err != nil {
				b.Fatal(err)
			}
		}
		x := &stampExec{Executor: exec(), want: n, all: make(chan struct{})}
		c, err := NewController(Config{Store: st, Clock: clock.Real{}, Parse: parse, Executor: x, Term: term})
		if err != nil {
			b.Fatal(err)
		}
		instant := time.Now().Truncate(time.Second).Add(2 * time.Second)
		at.Store(instant.UnixNano())
		ran := make(chan error, 1)
		go func() { ran <- c.Run(ctx) }()
		b.StartTimer()
		select {
		case <-x.all:
		case <-time.After(time.Until(instant) + time.Minute):
			b.Fatalf("only %d of %d runs started a minute after their instant", len(x.lat), n)
		}
		// Wait (polling, with a deadline) until every run's end is recorded.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			runs, _, err := st.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunSucceeded}, Page: store.Page{Limit: 1000}})
			if err != nil {
				b.Fatal(err)
			}
			if len(runs) >= n {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d runs recorded as succeeded a minute later", len(runs), n)
			}
		}
		doneAfter = max(doneAfter, time.Since(instant))
		b.StopTimer()
		cancel()
		if err := <-ran; err != nil {
			b.Fatal(err)
		}
		x.mu.Lock()
		inserted += time.Unix(0, st.inserted.Load()).Sub(instant)
		claimed += time.Unix(0, st.claimed.Load()).Sub(instant)
		first += slices.Min(x.lat)
		all = append(all, x.lat...)
		x.mu.Unlock()
	}
	reportLatency(b, all)
	b.ReportMetric(doneAfter.Seconds(), "all-recorded-s")
	ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / float64(time.Millisecond) }
	b.ReportMetric(ms(inserted), "inserted-ms")
	b.ReportMetric(ms(claimed), "claimed-ms")
	b.ReportMetric(ms(first), "first-start-ms")
}

// reportLatency reports percentiles of latencies in milliseconds.
func reportLatency(b *testing.B, all []time.Duration) {
	slices.Sort(all)
	pct := func(p float64) float64 {
		i := int(p * float64(len(all)-1))
		return float64(all[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.90), "p90-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// TestSharedSchedules: jobs with the same cron expression and zone hold one
// compiled schedule, released when the last of them goes.
func TestSharedSchedules(t *testing.T) {
	st, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// H stands for a name-dependent expression: parsed per job.
	parse := func(name, expr string, loc *time.Location) (Schedule, error) {
		if e, ok := strings.CutSuffix(expr, "H"); ok {
			s, err := parseEvery(name, e, loc)
			if err != nil {
				return nil, err
			}
			ev := s.(every)
			return &ev, nil // a fresh value per job, as a hashed cron spec is
		}
		return parseEvery(name, expr, loc)
	}
	c, err := NewController(Config{Store: st, Clock: clock.NewFake(t0), Parse: parse})
	if err != nil {
		t.Fatal(err)
	}
	job := func(name, cron, zone string) store.Job {
		return store.Job{Spec: store.JobSpec{Name: name, Cron: cron, TimeZone: zone, Command: []string{"true"}}}
	}
	for _, j := range []store.Job{job("a", "1m", ""), job("b", "1m", ""), job("c", "1m", "Europe/Berlin"), job("d", "2m", ""),
		job("h1", "1mH", ""), job("h2", "1mH", "")} {
		c.setJob(j, t0)
	}
	if len(c.scheds) != 5 {
		t.Errorf("%d shared schedules, want 5 (1m UTC, 1m Berlin, 2m, 1mH for h1 and for h2)", len(c.scheds))
	}
	if c.jobs["h1"].c.sched == c.jobs["h2"].c.sched {
		t.Error("h1 and h2 share a schedule with H fields, which depends on the job's name")
	}
	c.removeJob("h1")
	c.removeJob("h2")
	if c.jobs["a"].c.sched != c.jobs["b"].c.sched {
		t.Error("a and b do not share their schedule")
	}
	c.setJob(job("b", "3m", ""), t0) // b changes expression
	c.removeJob("d")
	got := map[schedKey]int{}
	for k, sh := range c.scheds {
		got[k] = sh.refs
	}
	want := map[schedKey]int{{expr: "1m"}: 1, {expr: "1m", zone: "Europe/Berlin"}: 1, {expr: "3m"}: 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("shared schedules = %v, want %v", got, want)
	}
	for _, name := range []string{"a", "b", "c"} {
		c.removeJob(name)
	}
	if len(c.scheds) != 0 {
		t.Errorf("%d shared schedules left after removing every job", len(c.scheds))
	}
}

// TestStatuses: the batch status of many jobs equals their one-by-one
// status, active runs and next schedule times included.
func TestStatuses(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		at := t0.Add(90 * time.Second)
		b.put(store.JobSpec{Name: "busy", Cron: "1m", Command: []string{"sleep"}})
		b.put(store.JobSpec{Name: "busy2", Cron: "1m", Command: []string{"sleep"}})
		b.put(store.JobSpec{Name: "idle", Cron: "5m", TimeZone: "Europe/Berlin", Command: []string{"true"}})
		b.put(store.JobSpec{Name: "off", Cron: "1m", Suspend: true, Command: []string{"true"}})
		b.put(store.JobSpec{Name: "once", At: &at, Command: []string{"true"}})
		b.advance(time.Minute) // busy and busy2 start and keep running
		b.advance(time.Minute) // and again: two active runs each
		jobs, err := b.st.JobList(b.ctx, store.JobListParams{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.ctl.Statuses(b.ctx, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(jobs) {
			t.Errorf("Statuses returned %d statuses for %d jobs", len(got), len(jobs))
		}
		for _, j := range jobs {
			want, err := b.ctl.Status(b.ctx, j.Spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got[j.Spec.Name]) != fmt.Sprint(want) {
				t.Errorf("%s: Statuses %+v, Status %+v", j.Spec.Name, got[j.Spec.Name], want)
			}
		}
		if n := len(got["busy"].Active); n != 2 {
			t.Errorf("busy has %d active runs, want 2", n)
		}
	})
}
