package httpapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestJobMetrics checks the per-job series: runs by result, durations,
// missed instants, the latest success (from the store, so it survives a
// restart) and failure (read back from the event log at the first scrape),
// the cap on job series with its "_other" overflow, and that a deleted
// job's series go and free their place.
func TestJobMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.metrics.LimitJobSeries(2)
	success := t0.Add(-time.Hour)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1,
		Status: store.JobStatus{LastSuccessfulTime: success}})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "b", Cron: "* * * * *", Shell: "true"}, Version: 1})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "c", Cron: "* * * * *", Shell: "true"}, Version: 1})
	// A failure before the daemon started: in the gauge, not the counters.
	earlier := t0.Add(-2 * time.Hour)
	b.st.AddEvent(store.Event{Kind: store.EventRunFailed, Job: "b", Time: earlier})
	if err := b.metrics.Prime(t.Context()); err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		t.Helper()
		r := b.do(t, "GET", "/metrics", "")
		if r.code != http.StatusOK {
			t.Fatalf("metrics: %d %s", r.code, r.body)
		}
		return r.body
	}
	finish := func(job string, state store.RunState, took time.Duration) {
		r := b.st.AddRun(store.Run{Job: job, ScheduledTime: t0, Attempt: 1, State: state, StartedAt: t0, FinishedAt: t0.Add(took)})
		b.st.AddEvent(store.Event{Kind: store.EventRunFinished(state), Job: job, RunID: r.ID, Time: t0.Add(took)})
	}
	body := scrape()
	want(t, body, true,
		`almanac_job_last_success_timestamp_seconds{job="a"} `+ts(success),
		`almanac_job_last_failure_timestamp_seconds{job="b"} `+ts(earlier),
	)
	want(t, body, false, `almanac_job_last_success_timestamp_seconds{job="b"}`, `job="c"`, `almanac_job_runs_total{job="b",result="failed"}`)

	finish("a", store.RunSucceeded, 90*time.Second)
	finish("b", store.RunFailed, 2*time.Second)
	finish("b", store.RunKilled, time.Second)
	finish("c", store.RunSucceeded, time.Second) // beyond the cap of 2
	finish("c", store.RunFailed, time.Second)
	b.st.AddEvent(store.Event{Kind: store.EventRunMissed, Job: "a", Data: json.RawMessage(`{"count":3}`)})
	b.st.AddEvent(store.Event{Kind: store.EventRunMissed, Job: "c"})
	body = scrape()
	want(t, body, true,
		`almanac_job_runs_total{job="a",result="succeeded"} 1`,
		`almanac_job_runs_total{job="b",result="failed"} 1`,
		`almanac_job_runs_total{job="b",result="killed"} 1`,
		`almanac_job_runs_total{job="_other",result="succeeded"} 1`,
		`almanac_job_runs_total{job="_other",result="failed"} 1`,
		`almanac_job_run_duration_seconds_bucket{job="a",le="60"} 0`,
		`almanac_job_run_duration_seconds_bucket{job="a",le="300"} 1`,
		`almanac_job_run_duration_seconds_sum{job="a"} 90`,
		`almanac_job_run_duration_seconds_count{job="b"} 2`,
		`almanac_job_missed_total{job="a"} 3`,
		`almanac_job_missed_total{job="_other"} 1`,
		`almanac_job_last_failure_timestamp_seconds{job="b"} `+ts(t0.Add(2*time.Second)),
	)
	want(t, body, false, `job="c"`, `almanac_job_last_failure_timestamp_seconds{job="_other"}`, `almanac_job_last_success_timestamp_seconds{job="_other"}`)
	if n := len(regexp.MustCompile(`(?m)^almanac_job_runs_total\{job="([^"]+)"`).FindAllString(body, -1)); n != 5 {
		t.Errorf("%d almanac_job_runs_total series, want 5", n)
	}

	// Deleting b frees its place; c gets series of its own from then on.
	if err := b.st.JobDelete(t.Context(), store.JobDeleteParams{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	body = scrape()
	want(t, body, false, `job="b"`)
	finish("c", store.RunSucceeded, time.Second)
	body = scrape()
	want(t, body, true, `almanac_job_runs_total{job="c",result="succeeded"} 1`, `almanac_job_runs_total{job="_other",result="succeeded"} 1`)
}

// ts renders t as the metrics do.
func ts(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'g', -1, 64)
}

// want checks that each line (a series and its value, or a fragment
// when present is false) is in body or not.
func want(t *testing.T, body string, present bool, lines ...string) {
	t.Helper()
	for _, l := range lines {
		has := strings.Contains(body, l+"\n") || (!present && strings.Contains(body, l))
		if has != present {
			t.Errorf("metrics: %q present=%v, want %v", l, has, present)
		}
	}
}
