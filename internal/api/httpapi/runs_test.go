package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/store"
)

func TestRunsAndLogs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "b", Cron: "* * * * *", Shell: "true"}, Version: 1})
	exit0 := 0
	var ids []int64
	for i := range 5 {
		st := store.RunSucceeded
		if i%2 == 1 {
			st = store.RunFailed
		}
		r := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0.Add(time.Duration(i) * time.Minute), Attempt: 1,
			Reason: store.ReasonSchedule, State: st, StartedAt: t0, FinishedAt: t0.Add(time.Second), ExitCode: &exit0,
			Output: []byte("line " + strconv.Itoa(i) + "\n")})
		ids = append(ids, r.ID)
	}
	running := b.st.AddRun(store.Run{Job: "b", ScheduledTime: t0, Attempt: 1, Reason: store.ReasonManual, State: store.RunRunning, StartedAt: t0, Node: "n1"})

	var page apitype.Page[apitype.Run]
	r := b.do(t, "GET", "/api/v1/runs?job=a&limit=2", "")
	r.decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].ID != ids[4] || page.Items[1].ID != ids[3] || page.NextPage == "" {
		t.Fatalf("first page = %s", r.body)
	}
	r = b.do(t, "GET", "/api/v1/runs?job=a&limit=2&page="+page.NextPage, "")
	page = apitype.Page[apitype.Run]{}
	r.decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].ID != ids[2] {
		t.Fatalf("second page = %s", r.body)
	}
	r = b.do(t, "GET", "/api/v1/runs?state=failed,running", "")
	page = apitype.Page[apitype.Run]{}
	r.decode(t, &page)
	if len(page.Items) != 3 || page.Items[0].ID != running.ID || page.NextPage != "" {
		t.Fatalf("failed+running = %s", r.body)
	}
	if strings.Contains(r.body, "line ") {
		t.Fatalf("list includes output: %s", r.body)
	}

	var run apitype.Run
	r = b.do(t, "GET", "/api/v1/runs/"+strconv.FormatInt(ids[1], 10), "")
	r.decode(t, &run)
	if run.State != "failed" || run.Job != "a" || run.ExitCode == nil || run.StartedAt == nil || !run.Finished() {
		t.Fatalf("run = %s", r.body)
	}
	r = b.do(t, "GET", "/api/v1/runs/"+strconv.FormatInt(ids[1], 10)+"/log", "")
	if r.code != http.StatusOK || r.body != "line 1\n" || r.hdr.Get(httpapi.RunStateHeader) != "failed" ||
		!strings.HasPrefix(r.hdr.Get("Content-Type"), "text/plain") {
		t.Fatalf("log = %d %q %v", r.code, r.body, r.hdr)
	}

	var j apitype.Job
	b.do(t, "GET", "/api/v1/jobs/b", "").decode(t, &j)
	if len(j.Status.Active) != 1 || j.Status.Active[0] != running.ID {
		t.Fatalf("job b active = %v", j.Status.Active)
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i, k := range []store.EventKind{store.EventJobCreated, store.EventRunStarted, store.EventRunFailed, store.EventRunMissed} {
		job := "a"
		if i == 3 {
			job = "gone"
		}
		b.st.AddEvent(store.Event{Time: t0, Kind: k, Job: job, Message: string(k), Data: json.RawMessage(`{"count":7}`)})
	}
	tests := []struct {
		query string
		kinds string
	}{
		{"", "run.missed,run.failed,run.started,job.created"},
		{"?kind=run", "run.missed,run.failed,run.started"},
		{"?kind=job,run.failed", "run.failed,job.created"},
		{"?job=a&kind=run", "run.failed,run.started"},
		{"?job=gone", "run.missed"},
		{"?limit=1&page=3", "run.started"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var page apitype.Page[apitype.Event]
			r := b.do(t, "GET", "/api/v1/events"+tt.query, "")
			if r.code != http.StatusOK {
				t.Fatalf("%d %s", r.code, r.body)
			}
			r.decode(t, &page)
			var kinds []string
			for _, e := range page.Items {
				kinds = append(kinds, e.Kind)
			}
			if got := strings.Join(kinds, ","); got != tt.kinds {
				t.Fatalf("kinds = %s, want %s", got, tt.kinds)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.AddEvent(store.Event{Kind: store.EventRunFailed}) // before priming: not counted
	scrape := func() string {
		t.Helper()
		r := b.do(t, "GET", "/metrics", "")
		if r.code != http.StatusOK {
			t.Fatalf("metrics: %d %s", r.code, r.body)
		}
		return r.body
	}
	if err := b.metrics.Prime(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "s", Cron: "* * * * *", Shell: "true", Suspend: true}, Version: 1})
	run := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, StartedAt: t0.Add(300 * time.Millisecond), Attempt: 1, State: store.RunRunning, Node: "n1"})
	b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, Attempt: 1, State: store.RunPending, Target: "n2"})
	b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, Attempt: 1, State: store.RunPending, Target: "n3", ReadyAt: t0})
	b.st.AddEvent(store.Event{Kind: store.EventRunStarted, Job: "a", RunID: run.ID})
	b.st.AddEvent(store.Event{Kind: store.EventRunSucceeded, Job: "a"})
	b.st.AddEvent(store.Event{Kind: store.EventRunSucceeded, Job: "a"})
	b.st.AddEvent(store.Event{Kind: store.EventRunMissed, Job: "a", Data: json.RawMessage(`{"count":41,"first":"x"}`)})
	b.st.AddEvent(store.Event{Kind: store.EventRunSkipped, Job: "a"})
	b.metrics.SetBuildInfo("0.0.1", "old", "go1.0")
	b.metrics.SetBuildInfo("1.2.3", "abc", "go1.26.0") // replaces the first
	body := scrape()
	if strings.Contains(body, `version="0.0.1"`) {
		t.Error("metrics keep a replaced almanac_build_info")
	}
	for _, want := range []string{
		`almanac_build_info{goversion="go1.26.0",revision="abc",version="1.2.3"} 1`,
		`almanac_runs_total{result="succeeded"} 2`,
		`almanac_runs_total{result="failed"} 0`,
		`almanac_runs_missed_total 41`,
		`almanac_runs_skipped_total 1`,
		`almanac_runs_active 1`,
		`almanac_node_runs_active{node="n1"} 1`,
		`almanac_node_runs_started_total{node="n1"} 1`,
		`almanac_node_runs_waiting{node="n2"} 1`,
		`almanac_jobs{state="scheduled"} 1`,
		`almanac_jobs{state="suspended"} 1`,
		`almanac_run_start_lag_seconds_bucket{le="0.25"} 0`,
		`almanac_run_start_lag_seconds_bucket{le="0.5"} 1`,
		`process_resident_memory_bytes`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want+"\n") && !strings.Contains(body, want+" ") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, `almanac_node_runs_waiting{node="n3"}`) {
		t.Error("a released run counts as waiting")
	}
	// A second scrape counts only what is new.
	b.st.AddEvent(store.Event{Kind: store.EventRunFailed, Job: "a"})
	body = scrape()
	for _, want := range []string{`almanac_runs_total{result="succeeded"} 2`, `almanac_runs_total{result="failed"} 1`, `almanac_runs_missed_total 41`} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("second scrape lacks %q", want)
		}
	}
	if !strings.Contains(body, `almanac_http_requests_total{code="200",route="GET /metrics"}`) &&
		!strings.Contains(body, `almanac_http_requests_total{code="200",route="GET /healthz"}`) {
		// /metrics itself is not instrumented; make one API call and look again.
		b.do(t, "GET", "/healthz", "")
		if body = scrape(); !strings.Contains(body, `almanac_http_requests_total{code="200",route="GET /healthz"} 1`) {
			t.Errorf("request counter missing:\n%s", body)
		}
	}
}

// TestRunsByNode: ?node keeps the runs targeted at a node or claimed by
// it, and refuses what cannot be a node name.
func TestRunsByNode(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "fleet", Cron: "* * * * *", Shell: "true", Nodes: "all"}, Version: 1})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "solo", Cron: "* * * * *", Shell: "true"}, Version: 1})
	db1 := b.st.AddRun(store.Run{Job: "fleet", ScheduledTime: t0, Attempt: 1, Target: "db-1", Node: "db-1", State: store.RunSucceeded})
	db2 := b.st.AddRun(store.Run{Job: "fleet", ScheduledTime: t0, Attempt: 1, Target: "db-2", State: store.RunPending})
	solo := b.st.AddRun(store.Run{Job: "solo", ScheduledTime: t0, Attempt: 1, Node: "db-1", State: store.RunRunning})
	b.st.AddRun(store.Run{Job: "solo", ScheduledTime: t0.Add(-time.Minute), Attempt: 1, State: store.RunPending})
	for _, tt := range []struct {
		query string
		want  []int64
	}{
		{"node=db-1", []int64{solo.ID, db1.ID}},
		{"node=db-2", []int64{db2.ID}},
		{"node=db-1&job=fleet", []int64{db1.ID}},
		{"node=db-1&state=running", []int64{solo.ID}},
		{"node=db-3", nil},
	} {
		var page apitype.Page[apitype.Run]
		r := b.do(t, "GET", "/api/v1/runs?"+tt.query, "")
		r.decode(t, &page)
		var got []int64
		for _, run := range page.Items {
			got = append(got, run.ID)
		}
		if r.code != http.StatusOK || !slices.Equal(got, tt.want) {
			t.Errorf("?%s = %d %v, want %v", tt.query, r.code, got, tt.want)
		}
	}
	var page apitype.Page[apitype.Run]
	b.do(t, "GET", "/api/v1/runs?node=db-2", "").decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Target != "db-2" || page.Items[0].Node != "" {
		t.Errorf("a targeted pending run reads back as %+v", page.Items)
	}
	for _, q := range []string{"node=" + strings.Repeat("n", 254), "node=a%1bb"} {
		if r := b.do(t, "GET", "/api/v1/runs?"+q, ""); r.code != http.StatusBadRequest || r.apiErr(t).Field != "?node" {
			t.Errorf("?%.20s = %d %s, want 400 on ?node", q, r.code, r.body)
		}
	}
}

// TestRunWaiting: a held run's waiting reason is in its JSON, in the list
// and alone, with until when known; a released or finished run has
// "waiting": null.
func TestRunWaiting(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1})
	held := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, Attempt: 1, Reason: store.ReasonSchedule, State: store.RunPending})
	down := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0.Add(time.Minute), Attempt: 1, Reason: store.ReasonSchedule,
		State: store.RunPending, Target: "n2"})
	ready := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0.Add(2 * time.Minute), Attempt: 1, Reason: store.ReasonSchedule,
		State: store.RunPending, ReadyAt: t0})
	opens := t0.Add(time.Hour)
	b.st.SetWaiting(held.ID, store.Waiting{Kind: store.WaitGate, Detail: `schedule gate "w" is closed`, Until: opens})
	b.st.SetWaiting(down.ID, store.Waiting{Kind: store.WaitNodeDown, Detail: "node n2 is down"})
	b.st.SetWaiting(ready.ID, store.Waiting{Kind: store.WaitGate, Detail: "stale"}) // released since: not waiting

	var run apitype.Run
	b.do(t, "GET", "/api/v1/runs/"+strconv.FormatInt(held.ID, 10), "").decode(t, &run)
	if w := run.Waiting; w == nil || w.Kind != apitype.WaitGate || w.Detail != `schedule gate "w" is closed` || w.Until == nil || !w.Until.Equal(opens) {
		t.Errorf("held run waiting = %+v", w)
	}
	var page apitype.Page[apitype.Run]
	r := b.do(t, "GET", "/api/v1/runs?job=a", "")
	r.decode(t, &page)
	got := map[int64]*apitype.Waiting{}
	for _, x := range page.Items {
		got[x.ID] = x.Waiting
	}
	if w := got[down.ID]; w == nil || w.Kind != apitype.WaitNodeDown || w.Until != nil {
		t.Errorf("down run waiting = %+v", w)
	}
	if got[ready.ID] != nil || !strings.Contains(r.body, `"waiting":null`) {
		t.Errorf("a released run is shown waiting (%+v) or without \"waiting\": null: %s", got[ready.ID], r.body)
	}
}
