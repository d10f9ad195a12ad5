package webui_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/webui"
)

// countingStore counts the store calls a page makes.
type countingStore struct {
	store.Store
	calls atomic.Int64
}

func (c *countingStore) JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error) {
	c.calls.Add(1)
	return c.Store.JobList(ctx, p)
}

func (c *countingStore) JobGet(ctx context.Context, name string) (store.Job, error) {
	c.calls.Add(1)
	return c.Store.JobGet(ctx, name)
}

func (c *countingStore) RunList(ctx context.Context, p store.RunListParams) ([]store.Run, int64, error) {
	c.calls.Add(1)
	return c.Store.RunList(ctx, p)
}

func (c *countingStore) JobCounts(ctx context.Context) (store.JobCounts, error) {
	c.calls.Add(1)
	return c.Store.JobCounts(ctx)
}

func parseCron(name, expr string, loc *time.Location) (job.Schedule, error) {
	return cron.Parse(expr, cron.WithLocation(loc), cron.WithHashKey(name))
}

// scaleUI serves the UI over a real SQLite store holding n jobs (as
// scripts/load-jobs creates them) and a real job controller.
func scaleUI(tb testing.TB, n int) (http.Handler, *countingStore, *clock.Fake) {
	tb.Helper()
	ctx := context.Background()
	clk := clock.NewFake(demoNow)
	sq, err := sqlitestore.Open(ctx, tb.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sq.Close() })
	for i := range n {
		spec := store.JobSpec{Name: fmt.Sprintf("load-%05d", i), Cron: fmt.Sprintf("%d %d 29 2 *", i%60, i/60%24), Command: []string{"true"}}
		if i%10 == 0 {
			spec.Cron = fmt.Sprintf("%d * * * *", i%60)
		}
		if _, err := sq.JobCreate(ctx, store.JobCreateParams{Spec: spec}); err != nil {
			tb.Fatal(err)
		}
	}
	st := &countingStore{Store: sq}
	ctrl, err := job.NewController(job.Config{Store: st, Clock: clk, Parse: parseCron})
	if err != nil {
		tb.Fatal(err)
	}
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobController{ctrl}, Clock: clk})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := webui.New(webui.Config{Backend: back, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	return h, st, clk
}

func get(tb testing.TB, h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "localhost"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		tb.Fatalf("GET %s = %d", path, w.Code)
	}
	return w
}

// TestPagesStayBoundedWith10kJobs guards the structure that keeps the UI
// fast with many jobs: the jobs list is one bounded page, and the overview
// makes a fixed number of store calls whatever the number of jobs.
func TestPagesStayBoundedWith10kJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 10,000 jobs")
	}
	h, st, _ := scaleUI(t, 10000)
	w := get(t, h, "/jobs")
	if n := w.Body.Len(); n > 300<<10 {
		t.Errorf("/jobs is %d KB with 10,000 jobs, want at most 300 KB", n>>10)
	}
	for _, path := range []string{"/", "/"} { // cold, then with the fire cache
		before := st.calls.Load()
		get(t, h, path)
		if calls := st.calls.Load() - before; calls > 10 {
			t.Errorf("GET %s made %d store calls with 10,000 jobs", path, calls)
		}
	}
	next := get(t, h, "/jobs?after=load-00099")
	if body := next.Body.String(); !strings.Contains(body, `data-job="load-00100"`) || strings.Contains(body, `data-job="load-00099"`) {
		t.Error("the second page does not start after the first")
	}
	filtered := get(t, h, "/jobs?q=load-0999").Body.String()
	if n := strings.Count(filtered, "<tr id=\"job-"); n != 10 {
		t.Errorf("filter load-0999 shows %d jobs, want 10", n)
	}
	if !strings.Contains(filtered, "1–10 of 10 jobs matching") {
		t.Error("the filtered list does not count its matches")
	}
	back := get(t, h, "/jobs?after=load-00199").Body.String()
	if !strings.Contains(back, "201–300 of 10000 jobs") || !strings.Contains(back, `rel="prev" href="/jobs?after=load-00099"`) {
		t.Error("the third page does not count its place or link back to the second")
	}
	// A state filter reads the job index once, then only its page.
	get(t, h, "/jobs?state=suspended")
	before := st.calls.Load()
	if body := get(t, h, "/jobs?state=running").Body.String(); !strings.Contains(body, "0 jobs matching") {
		t.Error("state=running over 10,000 idle jobs is not empty")
	}
	if calls := st.calls.Load() - before; calls > 10 {
		t.Errorf("GET /jobs?state=running made %d store calls with 10,000 jobs", calls)
	}
}

// benchScale measures one page over 10,000 jobs.
func benchScale(b *testing.B, path string) {
	h, _, _ := scaleUI(b, 10000)
	get(b, h, path) // warm the caches
	b.ReportAllocs()
	var size int
	for b.Loop() {
		size = get(b, h, path).Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}

func BenchmarkOverview10k(b *testing.B) { benchScale(b, "/") }

// BenchmarkOverviewCold10k moves the clock past the fire cache's lifetime
// before each request, so every one merges the fires of all jobs again.
func BenchmarkOverviewCold10k(b *testing.B) {
	h, _, clk := scaleUI(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		clk.Advance(time.Minute)
		get(b, h, "/")
	}
}
func BenchmarkJobsPage10k(b *testing.B) { benchScale(b, "/jobs") }

// BenchmarkJobsPageNext10k is the first page by next fire.
func BenchmarkJobsPageNext10k(b *testing.B) { benchScale(b, "/jobs?sort=next") }

// BenchmarkJobsIndexRead10k reads the job index in full (the first
// request, and the background read once a minute) and serves the page.
func BenchmarkJobsIndexRead10k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		h, _, _ := scaleUI(b, 10000)
		b.StartTimer()
		get(b, h, "/jobs?sort=status")
	}
}

// BenchmarkJobsPageLast10k is the last page of the list, with its count
// and the way back.
func BenchmarkJobsPageLast10k(b *testing.B) { benchScale(b, "/jobs?after=load-09899") }

// BenchmarkJobsSuspended10k filters the list by state.
func BenchmarkJobsSuspended10k(b *testing.B) { benchScale(b, "/jobs?state=suspended") }
func BenchmarkJobPage10k(b *testing.B)       { benchScale(b, "/jobs/load-00042") }

// BenchmarkConcurrentUI10k has 20 clients load the overview, the jobs list
// and a job page in turn, and reports requests per second and the heap.
func BenchmarkConcurrentUI10k(b *testing.B) {
	h, _, _ := scaleUI(b, 10000)
	paths := []string{"/", "/jobs", "/jobs/load-00042"}
	for _, p := range paths {
		get(b, h, p)
	}
	const clients = 20
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				get(b, h, paths[i%int64(len(paths))])
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MiB")
}

// BenchmarkOverviewLatency10k serves `/` over 10,000 jobs with 50 ms of
// real time between requests and reports the latency percentiles of the
// requests. In "moving" the fake clock advances 250 ms a request, so the
// fire cache expires every 20 requests and its fires pass as they would:
// the cost of recomputing the next fires shows in p99 and max. In "still"
// the clock stands, nothing is recomputed, and the figures are the floor
// the machine's load sets.
func BenchmarkOverviewLatency10k(b *testing.B) {
	for _, c := range []struct {
		name string
		step time.Duration
	}{{"moving", 250 * time.Millisecond}, {"still", 0}} {
		b.Run(c.name, func(b *testing.B) {
			h, _, clk := scaleUI(b, 10000)
			latency(b, h, "/", func() { clk.Advance(c.step) })
		})
	}
}

// BenchmarkJobsLatency10k serves the jobs list over 10,000 jobs in each
// order, as BenchmarkOverviewLatency10k serves `/`: 50 ms of real time
// between requests, the fake clock advancing 250 ms a request (so the
// hourly jobs' fires pass, about one every 4 s, and the job index is
// read in full again in the background once a minute), and, in
// "churning", a run of some job ending every fourth request, failed or
// succeeded in turn, with its event, as the controller records an end:
// the index reads that job again. "still" is the floor the machine sets.
func BenchmarkJobsLatency10k(b *testing.B) {
	for _, sort := range []string{"name", "next", "status"} {
		path := "/jobs?sort=" + sort
		for _, mode := range []string{"moving", "churning", "still"} {
			b.Run("sort="+sort+"/"+mode, func(b *testing.B) {
				h, st, clk := scaleUI(b, 10000)
				ctx := context.Background()
				n := 0
				latency(b, h, path, func() {
					if mode == "still" {
						return
					}
					clk.Advance(250 * time.Millisecond)
					if n++; mode != "churning" || n%4 != 0 {
						return
					}
					name := fmt.Sprintf("load-%05d", (n*37)%10000)
					now := clk.Now()
					r, err := st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: name, ScheduledTime: now, Attempt: 1,
						Reason: store.ReasonSchedule, ReadyAt: now}, Now: now, Events: []store.Event{{Kind: store.EventRunScheduled, Message: "scheduled"}}})
					if err != nil {
						b.Fatal(err)
					}
					state := store.RunFailed
					if n%8 == 0 {
						state = store.RunSucceeded
					}
					if _, err := st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: state, Now: now,
						Events: []store.Event{{Kind: store.EventRunFinished(state), Message: string(state)}}}); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// latency serves path once (the first request fills the caches while it
// waits), then once per loop after calling step, with 50 ms of real time
// between requests, and reports the requests' latency percentiles.
func latency(b *testing.B, h http.Handler, path string, step func()) {
	get(b, h, path)
	var took []time.Duration
	for b.Loop() {
		step()
		start := time.Now()
		get(b, h, path)
		took = append(took, time.Since(start))
		// A client's think time: the background refresh gets the
		// CPU a real daemon's idle moments would give it.
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(took)
	at := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}
