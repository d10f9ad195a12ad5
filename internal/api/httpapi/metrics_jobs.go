package httpapi

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/almanac-sh/almanac/internal/store"
)

// DefaultMaxJobSeries is how many jobs get series of their own in the
// per-job metrics unless Metrics.MaxJobSeries says otherwise.
const DefaultMaxJobSeries = 1000

// OtherJobs is the job label of the runs of jobs beyond the cap on job
// series. No job can be called so: job names start with a letter or digit.
const OtherJobs = "_other"

// jobMetrics are the per-job series: runs by result, run durations,
// missed instants, and the latest success and failure.
//
// Cardinality: at most max jobs have series of their own, given out in
// the order the jobs are first seen (by name at the first scrape, then as
// they are created) and taken back when a job is deleted. The runs of the
// others are counted under job="_other", which has no timestamps.
type jobMetrics struct {
	max         int
	runs        *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	missed      *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
	lastFailure *prometheus.GaugeVec
	// labelled are the jobs with series of their own; lastFailed holds
	// their latest failure, kept across deletions of the gauge.
	labelled   map[string]bool
	lastFailed map[string]time.Time
}

func newJobMetrics(max int) *jobMetrics {
	if max <= 0 {
		max = DefaultMaxJobSeries
	}
	return &jobMetrics{
		max: max,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "almanac_job_runs_total", Help: "Finished runs by job and result (succeeded, failed, killed, ...); jobs beyond the series cap count as job=\"_other\".",
		}, []string{"job", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "almanac_job_run_duration_seconds", Help: "Duration of finished runs, from start to end, by job.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400},
		}, []string{"job"}),
		missed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "almanac_job_missed_total", Help: "Scheduled instants that never ran because their starting deadline passed, by job.",
		}, []string{"job"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "almanac_job_last_success_timestamp_seconds", Help: "When the job's latest succeeded run finished (Unix time), from the store; absent until one has.",
		}, []string{"job"}),
		lastFailure: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "almanac_job_last_failure_timestamp_seconds", Help: "When the job's latest failed or killed run finished (Unix time), from the event log; absent until one has.",
		}, []string{"job"}),
		labelled:   map[string]bool{},
		lastFailed: map[string]time.Time{},
	}
}

func (j *jobMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{j.runs, j.duration, j.missed, j.lastSuccess, j.lastFailure}
}

// label is the job label for name: its own while there is room,
// OtherJobs beyond the cap.
func (j *jobMetrics) label(name string) string {
	if j.labelled[name] {
		return name
	}
	if len(j.labelled) < j.max {
		j.labelled[name] = true
		return name
	}
	return OtherJobs
}

// finished counts a run that ended with result (the run state, kept as a
// string so new states need no change here) at time at.
func (j *jobMetrics) finished(job, result string, at time.Time, d time.Duration, hasDuration bool) {
	l := j.label(job)
	j.runs.WithLabelValues(l, result).Inc()
	if hasDuration {
		j.duration.WithLabelValues(l).Observe(max(0, d.Seconds()))
	}
	if result != string(store.RunSucceeded) && l != OtherJobs {
		j.failedAt(l, at)
	}
}

// failedAt records a failure of a labelled job at, if it is the latest.
func (j *jobMetrics) failedAt(job string, at time.Time) {
	if at.After(j.lastFailed[job]) {
		j.lastFailed[job] = at
		j.lastFailure.WithLabelValues(job).Set(float64(at.UnixNano()) / 1e9)
	}
}

// sync brings the series in line with the jobs that exist: a job gets
// its label (room permitting) and its latest success from the store; a
// deleted job's series go, which frees its place under the cap.
func (j *jobMetrics) sync(jobs map[string]time.Time, names []string) {
	for name := range j.labelled {
		if _, ok := jobs[name]; !ok {
			delete(j.labelled, name)
			delete(j.lastFailed, name)
			for _, v := range []interface {
				DeletePartialMatch(prometheus.Labels) int
			}{j.runs, j.duration, j.missed, j.lastSuccess, j.lastFailure} {
				v.DeletePartialMatch(prometheus.Labels{"job": name})
			}
		}
	}
	for _, name := range names {
		if j.label(name) == OtherJobs {
			continue
		}
		if t := jobs[name]; !t.IsZero() {
			j.lastSuccess.WithLabelValues(name).Set(float64(t.UnixNano()) / 1e9)
		}
	}
}

// maxFailureScan bounds how many failure events the first scrape reads
// back to restore each job's latest failure after a restart.
const maxFailureScan = 10000

// primeFailures sets each job's latest failure from the newest failure
// events still in the event log, so the gauge survives a restart.
func (m *Metrics) primeFailures(ctx context.Context) error {
	p := store.EventListParams{Kinds: failureEventKinds, Page: store.Page{Limit: 1000}}
	for read := 0; read < maxFailureScan; {
		evs, next, err := m.st.EventList(ctx, p)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Job != "" && !e.Time.IsZero() {
				if l := m.job.label(e.Job); l != OtherJobs {
					m.job.failedAt(l, e.Time)
				}
			}
		}
		read += len(evs)
		if next == 0 || len(evs) == 0 {
			break
		}
		p.Cursor = next
	}
	return nil
}

// failureEventKinds are the events of a run that ended without success.
var failureEventKinds = []store.EventKind{store.EventRunFailed, store.EventRunKilled, store.EventRunLost}

// countJobRun counts a run-finished event e in the per-job metrics; run
// is the run it is about, when it could be read.
func (m *Metrics) countJobRun(e store.Event, run store.Run, haveRun bool) {
	if e.Job == "" {
		return
	}
	result := strings.TrimPrefix(string(e.Kind), "run.")
	at := e.Time
	var d time.Duration
	hasDuration := haveRun && !run.StartedAt.IsZero() && !run.FinishedAt.IsZero()
	if hasDuration {
		d = run.FinishedAt.Sub(run.StartedAt)
		at = run.FinishedAt
	}
	m.job.finished(e.Job, result, at, d, hasDuration)
}
