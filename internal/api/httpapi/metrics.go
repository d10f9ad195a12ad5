package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/almanac-sh/almanac/internal/store"
)

// Metrics serves /metrics in the Prometheus text format. Run metrics are
// derived from the event log when scraped: the store is the single source of
// truth, the controller needs no instrumentation hooks, and an idle daemon
// does no work for metrics between scrapes. Counters start at zero when the
// Metrics is created, as Prometheus counters do at process start.
//
// A Metrics is safe for concurrent use.
type Metrics struct {
	st  Store
	reg *prometheus.Registry

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	runs     *prometheus.CounterVec
	missed   prometheus.Counter
	skipped  prometheus.Counter
	lag      prometheus.Histogram
	active   prometheus.Gauge
	jobs     *prometheus.GaugeVec
	// Per node: runs started, running now, and fanned-out runs waiting
	// for their turn, window or node.
	nodeStarted *prometheus.CounterVec
	nodeActive  *prometheus.GaugeVec
	nodeWaiting *prometheus.GaugeVec
	// job holds the per-job series (see jobMetrics for their bound).
	job *jobMetrics

	mu     sync.Mutex // serializes refresh
	lastID int64      // newest event already counted
	primed bool
}

// metricEventKinds are the events the run metrics are derived from.
var metricEventKinds = []store.EventKind{
	store.EventRunStarted, store.EventRunSucceeded, store.EventRunFailed,
	store.EventRunKilled, store.EventRunMissed, store.EventRunSkipped,
	store.EventRunLost,
}

// NewMetrics returns metrics over st, with Go runtime and process metrics
// (memory, CPU, file descriptors) included.
func NewMetrics(st Store) *Metrics {
	m := &Metrics{st: st, reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "almanac_http_requests_total", Help: "API requests by route pattern and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "almanac_http_request_duration_seconds", Help: "API request latency by route pattern.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
	}, []string{"route"})
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "almanac_runs_total", Help: "Finished runs by result (succeeded, failed, killed, lost).",
	}, []string{"result"})
	for _, r := range []string{"succeeded", "failed", "killed", "lost"} {
		m.runs.WithLabelValues(r)
	}
	m.missed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "almanac_runs_missed_total", Help: "Scheduled instants that never ran because their starting deadline passed.",
	})
	m.skipped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "almanac_runs_skipped_total", Help: "Runs skipped by the Forbid concurrency policy.",
	})
	m.lag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "almanac_run_start_lag_seconds", Help: "Delay from a run's scheduled instant to its start.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600},
	})
	m.active = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "almanac_runs_active", Help: "Runs executing now.",
	})
	m.jobs = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "almanac_jobs", Help: "Jobs by state (scheduled, suspended).",
	}, []string{"state"})
	m.nodeStarted = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "almanac_node_runs_started_total", Help: "Runs started, by the node that started them.",
	}, []string{"node"})
	m.nodeActive = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "almanac_node_runs_active", Help: "Runs executing now, by node.",
	}, []string{"node"})
	m.nodeWaiting = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "almanac_node_runs_waiting", Help: "Runs of fleet-wide jobs waiting for their turn, window or node, by the node they are for.",
	}, []string{"node"})
	m.job = newJobMetrics(DefaultMaxJobSeries)
	m.reg.MustRegister(m.requests, m.latency, m.runs, m.missed, m.skipped, m.lag, m.active, m.jobs,
		m.nodeStarted, m.nodeActive, m.nodeWaiting,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.job.collectors()...)
	return m
}

// LimitJobSeries sets how many jobs get per-job series of their own
// (DefaultMaxJobSeries unless set); the runs of the others are counted
// under job="_other". Call it before the first scrape.
func (m *Metrics) LimitJobSeries(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n > 0 {
		m.job.max = n
	}
}

// Prime marks the current end of the event log as already counted, so
// counters start from zero at daemon start rather than replaying history.
func (m *Metrics) Prime(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prime(ctx)
}

func (m *Metrics) prime(ctx context.Context) error {
	evs, _, err := m.st.EventList(ctx, store.EventListParams{Page: store.Page{Limit: 1}})
	if err != nil {
		return err
	}
	if len(evs) > 0 {
		m.lastID = evs[0].ID
	}
	if err := m.primeFailures(ctx); err != nil {
		return err
	}
	m.primed = true
	return nil
}

// SetBuildInfo adds almanac_build_info, a gauge of 1 labelled with the
// running build, so a dashboard sees which versions a cluster runs.
func (m *Metrics) SetBuildInfo(version, revision, goVersion string) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "almanac_build_info", Help: "The running build: 1, labelled with its version, VCS revision and Go version.",
	}, []string{"version", "revision", "goversion"})
	g.WithLabelValues(version, revision, goVersion).Set(1)
	// A second call replaces the first instead of failing on a duplicate.
	m.reg.Unregister(g)
	m.reg.MustRegister(g)
}

// Registry returns the registry, for extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) observeRequest(route string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

func (m *Metrics) handler() http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		err := m.refresh(ctx)
		cancel()
		if err != nil {
			writeError(w, apiError(err))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refresh counts the run events appended since the last scrape and
// recomputes the gauges.
func (m *Metrics) refresh(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.primed {
		if err := m.prime(ctx); err != nil {
			return err
		}
	}
	newest := m.lastID
	p := store.EventListParams{Kinds: metricEventKinds, Page: store.Page{Limit: 1000}}
pages:
	for {
		evs, next, err := m.st.EventList(ctx, p)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.ID <= m.lastID {
				break pages
			}
			newest = max(newest, e.ID)
			m.count(ctx, e)
		}
		if next == 0 {
			break
		}
		p.Cursor = next
	}
	m.lastID = newest

	if err := m.countActive(ctx); err != nil {
		return err
	}
	var scheduled, suspended int
	succeeded := map[string]time.Time{}
	var names []string
	after := ""
	for {
		jobs, err := m.st.JobList(ctx, store.JobListParams{After: after, Limit: 1000})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			succeeded[j.Spec.Name] = j.Status.LastSuccessfulTime
			names = append(names, j.Spec.Name)
			if j.Spec.Suspend {
				suspended++
			} else {
				scheduled++
			}
		}
		if len(jobs) < 1000 {
			break
		}
		after = jobs[len(jobs)-1].Spec.Name
	}
	m.job.sync(succeeded, names)
	m.jobs.WithLabelValues("scheduled").Set(float64(scheduled))
	m.jobs.WithLabelValues("suspended").Set(float64(suspended))
	return nil
}

func (m *Metrics) count(ctx context.Context, e store.Event) {
	switch e.Kind {
	case store.EventRunSucceeded, store.EventRunFailed, store.EventRunKilled, store.EventRunLost:
		m.runs.WithLabelValues(strings.TrimPrefix(string(e.Kind), "run.")).Inc()
		var run store.Run
		var err error = errNoRun
		if e.RunID != 0 {
			run, err = m.st.RunGet(ctx, e.RunID)
		}
		m.countJobRun(e, run, err == nil)
	case store.EventRunSkipped:
		m.skipped.Inc()
	case store.EventRunMissed:
		n := float64(missedCount(e.Data))
		m.missed.Add(n)
		if e.Job != "" {
			m.job.missed.WithLabelValues(m.job.label(e.Job)).Add(n)
		}
	case store.EventRunStarted:
		if e.RunID == 0 {
			return
		}
		run, err := m.st.RunGet(ctx, e.RunID)
		if err == nil && run.Node != "" {
			m.nodeStarted.WithLabelValues(run.Node).Inc()
		}
		if err != nil || run.StartedAt.IsZero() || run.Attempt > 1 {
			return // pruned already, or a retry whose delay is by design
		}
		m.lag.Observe(max(0, run.StartedAt.Sub(run.ScheduledTime).Seconds()))
	}
}

// errNoRun stands for the run of an event that names none.
var errNoRun = errors.New("the event names no run")

// missedCount reads how many instants one missed event stands for: the
// "count" field of its data, or 1.
func missedCount(data json.RawMessage) int64 {
	var d struct {
		Count int64 `json:"count"`
	}
	if len(data) > 0 && json.Unmarshal(data, &d) == nil && d.Count > 0 {
		return d.Count
	}
	return 1
}

// countActive sets the gauges of running and waiting runs, in total and
// per node, from one listing of the non-terminal runs.
func (m *Metrics) countActive(ctx context.Context) error {
	running := 0
	active, waiting := map[string]int{}, map[string]int{}
	p := store.RunListParams{States: []store.RunState{store.RunRunning, store.RunPending}, Page: store.Page{Limit: 1000}}
	for {
		runs, next, err := m.st.RunList(ctx, p)
		if err != nil {
			return err
		}
		for _, r := range runs {
			switch {
			case r.State == store.RunRunning:
				running++
				active[r.Node]++
			case r.Target != "" && r.ReadyAt.IsZero():
				waiting[r.Target]++
			}
		}
		if next == 0 {
			break
		}
		p.Cursor = next
	}
	m.active.Set(float64(running))
	m.nodeActive.Reset()
	for n, c := range active {
		m.nodeActive.WithLabelValues(n).Set(float64(c))
	}
	m.nodeWaiting.Reset()
	for n, c := range waiting {
		m.nodeWaiting.WithLabelValues(n).Set(float64(c))
	}
	return nil
}
