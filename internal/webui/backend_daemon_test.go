package webui_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// hourly is a test schedule: every full hour.
type hourly struct{}

func (hourly) Next(t time.Time) time.Time { return t.Truncate(time.Hour).Add(time.Hour) }

// daily is a test schedule: every midnight UTC.
type daily struct{}

func (daily) Next(t time.Time) time.Time { return t.Truncate(24 * time.Hour).Add(24 * time.Hour) }

func parseHourly(_, expr string, _ *time.Location) (job.Schedule, error) {
	switch expr {
	case "@hourly":
		return hourly{}, nil
	case "@daily":
		return daily{}, nil
	}
	return nil, errors.New("only @hourly and @daily in this test")
}

// openStore opens a real SQLite store on clk in a temporary directory,
// closed when the test ends.
func openStore(t testing.TB, clk clock.Clock) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newController is the job controller over st on clk, compiling cron
// expressions with parse.
func newController(t testing.TB, st store.Store, clk clock.Clock, parse job.ParseFunc) *job.Controller {
	t.Helper()
	ctrl, err := job.NewController(job.Config{Store: st, Clock: clk, Parse: parse})
	if err != nil {
		t.Fatal(err)
	}
	return ctrl
}

// jobController adapts *job.Controller as the daemon does for the API.
type jobController struct{ *job.Controller }

func (c jobController) JobStatuses(ctx context.Context, jobs []store.Job) (map[string]job.Status, error) {
	sts, err := c.Statuses(ctx, jobs)
	out := make(map[string]job.Status, len(sts))
	for name, s := range sts {
		out[name] = job.Status{Active: s.Active, NextScheduleTime: s.NextScheduleTime}
	}
	return out, err
}

func (c jobController) JobStatus(ctx context.Context, j store.Job) (job.Status, error) {
	s, err := c.StatusOf(ctx, j)
	return job.Status{Active: s.Active, NextScheduleTime: s.NextScheduleTime}, err
}

// daemonHarness is the UI over the real SQLite store and job controller.
type daemonHarness struct {
	*harness
	st   store.Store
	ctrl *job.Controller
}

func newDaemonHarness(t *testing.T) *daemonHarness {
	t.Helper()
	ctx := t.Context()
	c := clock.NewFake(demoNow)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(c))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cal := weekly.NewCalendar(berlin, weekly.Window{Days: []time.Weekday{time.Wednesday}, Start: 14 * 60, Length: 120})
	gates := func(name string) (job.Gate, bool) { return cal, name == "wednesday" }
	ctrl, err := job.NewController(job.Config{Store: st, Clock: c, Parse: parseHourly, Gates: gates})
	if err != nil {
		t.Fatal(err)
	}
	at := demoNow.Add(50 * time.Hour)
	deadline := int64(600)
	for _, spec := range []store.JobSpec{
		{Name: "alpha", Cron: "@hourly", TimeZone: "europe-berlin", Shell: "echo alpha", StartingDeadlineSeconds: &deadline},
		{Name: "beta", At: &at, Command: []string{"/bin/echo", "two words"}},
		{Name: "gamma", Cron: "@hourly", Command: []string{"true"}, Suspend: true},
		// Daily at midnight UTC, gated by Wednesday afternoons in Berlin:
		// delta waits a week, epsilon's deadline passes first.
		{Name: "delta", Cron: "@daily", Command: []string{"true"}, Gate: "wednesday"},
		{Name: "epsilon", Cron: "@daily", Command: []string{"true"}, Gate: "wednesday", StartingDeadlineSeconds: &deadline},
	} {
		if _, err := ctrl.CreateJob(ctx, spec, store.SourceAPI); err != nil {
			t.Fatal(err)
		}
	}
	code := 4
	r, err := st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "alpha", ScheduledTime: demoNow.Add(-time.Hour).Truncate(time.Hour),
		Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: demoNow.Add(-time.Hour)}, Now: demoNow.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunFailed, ExitCode: &code,
		Output: []byte("alpha broke\n"), Error: "exit status 4", Now: demoNow.Add(-59 * time.Minute),
		Events: []store.Event{{Kind: store.EventRunFailed, Message: "exit status 4"}}}); err != nil {
		t.Fatal(err)
	}
	var evs []store.Event
	for i := range 7 {
		evs = append(evs, store.Event{Time: demoNow.Add(-time.Duration(10-i) * time.Minute), Kind: "state-changed", Resource: "res-1", Message: "stopped outside almanac"})
		evs = append(evs, store.Event{Time: demoNow.Add(-time.Duration(10-i) * time.Minute), Kind: "state-changed", Resource: "res-2", Message: "started outside almanac"})
	}
	if err := st.EventAppend(ctx, evs...); err != nil {
		t.Fatal(err)
	}

	src := fleet.NewDemo()
	fs, err := fleet.New(fleet.Config{Source: src, Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	fs.Step(ctx, true)
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{
		Store: st, Jobs: jobController{ctrl}, Resources: fs, Waves: ctrl,
		Windows: func(_ context.Context, now time.Time) ([]webui.Window, error) {
			return []webui.Window{webui.WeeklyWindow("wednesday", "window", cal, now)}, nil
		},
		Describe: func(cron, zone string) string { return "every hour (" + zone + ")" },
		Agent:    newFakeAgent(t),
		Cluster:  fixedCluster{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &daemonHarness{harness: newHarness(t, webui.Config{Backend: back}), st: st, ctrl: ctrl}
}

func TestDaemonBackendPages(t *testing.T) {
	h := newDaemonHarness(t)
	tests := []struct {
		path  string
		wants []string
	}{
		{"/", []string{`id="count-jobs"><span class="n">5</span> jobs<small>1 suspended</small>`, `<span class="n">1</span> failures`,
			`data-window="wednesday" data-open="true"`}},
		{"/jobs", []string{`data-job="alpha" data-suspended="false"`, "every hour (Europe/Berlin)", `<a class="badge failed" href="/runs/1">failed</a>`,
			`data-job="gamma" data-suspended="true"`, "at 2025-03-14T16:07:00Z", "once, at Fri 14 Mar 2025 16:07 UTC"}},
		{"/jobs/alpha", []string{`datetime="2025-03-12T15:00:00Z"`, "Starting deadline</dt><dd>10m 0s", "exit status 4"}},
		{"/jobs/beta", []string{`<code>/bin/echo &#34;two words&#34;</code>`, `datetime="2025-03-14T16:07:00Z"`}},
		{"/runs/1", []string{"alpha broke", `<dd id="run-exit">4</dd>`}},
		{"/resources", []string{`data-resource="demo-web-1"`, "hour 25 out of range"}},
		{"/windows", []string{`id="w-wednesday"`, "Europe/Berlin"}},
		{"/applies", []string{`data-apply="3" data-status="failed"`, `data-apply="1" data-status="changed"`, "every 30m 0s"}},
		{"/applies/2", []string{`data-ref="Exec[vacuum]" data-status="skipped"`, "not scheduled"}},
		{"/cluster", []string{"One node, <strong>solo</strong>"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d:\n%s", tt.path, code, body)
			}
			mustContain(t, body, tt.wants...)
		})
	}
	_, body := h.get("/")
	fires := body[strings.Index(body, `id="next-fires"`):]
	fires = fires[:strings.Index(fires, "</table>")]
	// alpha every hour from 15:00; gamma is suspended; beta is two days away.
	if n, a := strings.Count(fires, "<tr data-outlook="), strings.Count(fires, ">alpha</a>"); n != 10 || a != 10 {
		t.Errorf("next fires: %d rows, %d of alpha; want 10 and 10", n, a)
	}
	for _, p := range []string{"/jobs/nope", "/runs/99"} {
		if code, _ := h.get(p); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
}

func TestDaemonBackendActions(t *testing.T) {
	h := newDaemonHarness(t)
	token := h.csrf("/jobs")
	resp := h.post("/jobs/alpha/suspend", url.Values{"csrf": {token}, "return": {"/jobs"}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("suspend: %d", resp.StatusCode)
	}
	j, err := h.st.JobGet(t.Context(), "alpha")
	if err != nil || !j.Spec.Suspend {
		t.Fatalf("alpha not suspended in the store: %v", err)
	}
	_, body := h.get("/events?job=alpha&kind=job.suspended")
	mustContain(t, body, "job alpha suspended")

	resp = h.post("/jobs/alpha/trigger", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if !regexp.MustCompile(`^/runs/\d+$`).MatchString(loc) {
		t.Fatalf("trigger redirected to %q", loc)
	}
	_, body = h.get(loc)
	mustContain(t, body, `data-state="pending"`, "manual", `hx-trigger="every 2s"`)

	resp = h.post("/jobs/nope/resume", url.Values{"csrf": {token}}, nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("resume of an unknown job: %d %s", resp.StatusCode, b)
	}
}

func TestDaemonBackendResourceEvents(t *testing.T) {
	h := newDaemonHarness(t)
	h.harness = newHarness(t, webui.Config{Backend: mustBackend(t, h.st), PageSize: 3})
	_, body := h.get("/events?resource=res-1")
	rows := regexp.MustCompile(`<tr data-event="(\d+)">`).FindAllStringSubmatch(body, -1)
	if len(rows) != 3 || strings.Contains(body, "res-2") {
		t.Fatalf("first page: %d rows (want 3 of res-1 only)", len(rows))
	}
	seen := len(rows)
	for range 3 {
		older := regexp.MustCompile(`href="(/events\?before=\d+&amp;resource=res-1)">Older`).FindStringSubmatch(body)
		if older == nil {
			break
		}
		_, body = h.get(strings.ReplaceAll(older[1], "&amp;", "&"))
		if strings.Contains(body, "res-2") {
			t.Error("an older page shows another resource")
		}
		seen += strings.Count(body, `<tr data-event=`)
	}
	if seen != 7 {
		t.Errorf("paged through %d events of res-1, want 7", seen)
	}
}

func mustBackend(t *testing.T, st store.Store) webui.Backend {
	t.Helper()
	ctrl, err := job.NewController(job.Config{Store: st, Clock: clock.NewFake(demoNow), Parse: parseHourly})
	if err != nil {
		t.Fatal(err)
	}
	b, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobController{ctrl}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWeeklyWindow(t *testing.T) {
	sunNight := weekly.Window{Days: []time.Weekday{time.Sunday}, Start: 22 * 60, Length: 240}
	cal := weekly.NewCalendar(time.UTC, sunNight, weekly.Window{Days: []time.Weekday{time.Wednesday}, Start: 600, Length: 60})
	tests := []struct {
		now   time.Time
		open  bool
		until time.Time
	}{
		{time.Date(2025, 3, 16, 23, 0, 0, 0, time.UTC), true, time.Date(2025, 3, 17, 2, 0, 0, 0, time.UTC)},
		{time.Date(2025, 3, 12, 9, 0, 0, 0, time.UTC), false, time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		w := webui.WeeklyWindow("w", "window", cal, tt.now)
		want := []webui.Interval{{Start: 2*1440 + 600, End: 2*1440 + 660}, {Start: 6*1440 + 22*60, End: 10080 + 120}}
		if len(w.Intervals) != 2 || w.Intervals[0] != want[0] || w.Intervals[1] != want[1] {
			t.Errorf("intervals %v, want %v (the Sunday night as one block)", w.Intervals, want)
		}
		if w.Open != tt.open || !w.Until.Equal(tt.until) || w.Zone != "UTC" || w.WeeklyMinutes() != 300 {
			t.Errorf("at %v: open %v until %v (%s, %d min)", tt.now, w.Open, w.Until, w.Zone, w.WeeklyMinutes())
		}
	}
	if _, err := webui.NewDaemonBackend(webui.DaemonConfig{}); err == nil {
		t.Error("NewDaemonBackend without a store succeeded")
	}
}

// TestOverviewCountsFailuresFromTheEventLog: the runs are pruned to the
// history limit, but the failure count and the failing jobs come from the
// event log, which keeps them all.
func TestGateAwareFires(t *testing.T) {
	h := newDaemonHarness(t)
	tests := []struct {
		path string
		want []string
	}{
		{"/", []string{`<tr data-outlook="on-time">`, `>alpha</a></td><td><span class="outlook on-time">at its time</span>`}},
		{"/jobs/alpha", []string{`<li data-outlook="on-time">`}},
		// The gate next opens on Wednesday 19 March at 14:00 in Berlin.
		{"/jobs/delta", []string{`<li data-outlook="waits">`, `<span class="outlook waits">waits until <time datetime="2025-03-19T13:00:00Z">`,
			`schedule gate &#34;wednesday&#34; is closed`, `class="fire waits"`}},
		{"/jobs/epsilon", []string{`<li data-outlook="will-miss">`, `<span class="outlook will-miss">will be missed</span>`,
			`does not open before the starting deadline`, `class="fire will-miss"`}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", tt.path, code)
			}
			mustContain(t, body, tt.want...)
		})
	}
}

// TestWindowsPage: each window's calendar carries readable HTML labels
// (day names with this week's dates, hours every three) and the window
// names the jobs it gates.
func TestWindowsPage(t *testing.T) {
	h := newDaemonHarness(t)
	code, body := h.get("/windows")
	if code != http.StatusOK {
		t.Fatalf("GET /windows = %d", code)
	}
	// demoNow is Wednesday 12 March 2025, in the week of Monday 10 March.
	mustContain(t, body,
		`<span class="wk-day">Mon<small>10 Mar</small></span>`,
		`<span class="wk-day today">Wed<small>12 Mar</small></span>`,
		`<span class="wk-day weekend">Sun<small>16 Mar</small></span>`,
		`<span class="h12">12:00</span>`,
		`<line class="hour major"`,
		`<p class="gates" data-gated="2">Gates 2 jobs: <a href="/jobs/delta">delta</a>, <a href="/jobs/epsilon">epsilon</a></p>`)
	if strings.Contains(body, "<text") {
		t.Error("calendar still draws its labels as SVG text, which shrinks with the picture")
	}
}

func TestOverviewCountsFailuresFromTheEventLog(t *testing.T) {
	h := newDaemonHarness(t)
	ctx := context.Background()
	var evs []store.Event
	for i := range 15 {
		evs = append(evs, store.Event{Time: demoNow.Add(-time.Duration(15-i) * time.Hour), Kind: store.EventRunFailed, Job: "flaky",
			RunID: int64(1000 + i), Message: fmt.Sprintf("run %d failed (exit 3): disk %d full", 1000+i, i)})
	}
	evs = append(evs, store.Event{Time: demoNow.Add(-30 * time.Hour), Kind: store.EventRunFailed, Job: "old", Message: "too old to count"})
	if err := h.st.EventAppend(ctx, evs...); err != nil {
		t.Fatal(err)
	}
	_, body := h.get("/")
	m := regexp.MustCompile(`id="count-failures"><span class="n">(\d+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no failure count on the overview")
	}
	if n, _ := strconv.Atoi(m[1]); n < 15 {
		t.Errorf("overview counts %d failures, want at least the 15 in the event log", n)
	}
	mustContain(t, body, `id="failing"`, `<li data-job="flaky">`, "15 failed runs", "disk 14 full")
	if strings.Contains(body, `data-job="old"`) {
		t.Error("a failure older than 24 h is listed")
	}
}

// TestPrunedRunPage: a run pruned by its job's history limit gets a page
// that says so, not a bare "not found".
func TestPrunedRunPage(t *testing.T) {
	h := newDaemonHarness(t)
	ctx := context.Background()
	var ids []int64
	for i := range 3 {
		r, err := h.st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "alpha", ScheduledTime: demoNow.Add(time.Duration(i-10) * time.Hour), Attempt: 1,
			Reason: store.ReasonSchedule, ReadyAt: demoNow}, Now: demoNow})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	for _, id := range ids {
		if _, err := h.st.RunFinish(ctx, store.RunFinishParams{ID: id, State: store.RunSucceeded, Now: demoNow,
			Prune: &store.HistoryLimits{KeepSucceeded: 1, KeepFailed: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := h.get(fmt.Sprintf("/runs/%d", ids[0]))
	if code != http.StatusNotFound || !strings.Contains(body, "is no longer kept") || !strings.Contains(body, "history limits") {
		t.Errorf("pruned run page: %d\n%s", code, body)
	}
	if code, body := h.get("/runs/99999999"); code != http.StatusNotFound || strings.Contains(body, "no longer kept") {
		t.Errorf("a run that never existed: %d", code)
	}
}

// TestDaemonBackendNaturalOrder: over the real store, which lists names
// by byte order, the jobs list pages in natural order, both ways.
func TestDaemonBackendNaturalOrder(t *testing.T) {
	ctx := t.Context()
	clk := clock.NewFake(demoNow)
	st := openStore(t, clk)
	for _, n := range []string{"backup-10", "backup-2", "backup-1", "backup-20", "archive"} {
		if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: n, Cron: "@hourly", Command: []string{"true"}}, Source: store.SourceAPI, Now: demoNow}); err != nil {
			t.Fatal(err)
		}
	}
	ctrl := newController(t, st, clk, parseHourly)
	b, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobController{ctrl}, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	names := func(q webui.JobQuery) string {
		p, err := b.Jobs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range p.Jobs {
			out = append(out, j.Name)
		}
		return strings.Join(out, " ") + " | next " + p.Next
	}
	for _, tt := range []struct {
		q    webui.JobQuery
		want string
	}{
		{webui.JobQuery{Limit: 3}, "archive backup-1 backup-2 | next backup-2"},
		{webui.JobQuery{Limit: 3, After: "backup-2"}, "backup-10 backup-20 | next "},
		{webui.JobQuery{Limit: 2, Sort: webui.JobSort{Desc: true}}, "backup-20 backup-10 | next backup-10"},
		{webui.JobQuery{Limit: 2, Sort: webui.JobSort{Desc: true}, After: "backup-10"}, "backup-2 backup-1 | next backup-1"},
		{webui.JobQuery{Filter: "backup-2"}, "backup-2 backup-20 | next "},
	} {
		if got := names(tt.q); got != tt.want {
			t.Errorf("Jobs(%+v) = %s, want %s", tt.q, got, tt.want)
		}
	}
	// A job created behind the UI's back (the API, a manifest: with its
	// event) is listed at once, though the clock has not moved past the
	// index's lifetime.
	if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "backup-3", Cron: "@hourly", Command: []string{"true"}}, Source: store.SourceAPI, Now: demoNow,
		Events: []store.Event{{Kind: store.EventJobCreated, Job: "backup-3", Message: "created"}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := names(webui.JobQuery{Filter: "backup-"}), "backup-1 backup-2 backup-3 backup-10 backup-20 | next "; got != want {
		t.Errorf("after a create elsewhere: Jobs = %s, want %s", got, want)
	}
	// One written without its event is listed once the job counts are
	// checked again, 5 s later.
	if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "backup-4", Cron: "@hourly", Command: []string{"true"}}, Source: store.SourceAPI, Now: demoNow}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	if got, want := names(webui.JobQuery{Filter: "backup-"}), "backup-1 backup-2 backup-3 backup-4 backup-10 backup-20 | next "; got != want {
		t.Errorf("after a create without an event: Jobs = %s, want %s", got, want)
	}
}

// TestDaemonBackendMissingFilter: over the real store, the jobs list's
// missing filter keeps the jobs whose recent runs were all missed, found
// from the run.missed events.
func TestDaemonBackendMissingFilter(t *testing.T) {
	ctx := t.Context()
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clock.NewFake(demoNow)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, n := range []string{"gated", "runs"} {
		if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: n, Cron: "@hourly", Command: []string{"true"}}, Source: store.SourceAPI, Now: demoNow}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range []struct {
		job   string
		state store.RunState
	}{{"gated", store.RunMissed}, {"gated", store.RunMissed}, {"runs", store.RunMissed}, {"runs", store.RunSucceeded}} {
		at := demoNow.Add(-time.Duration(4-i) * time.Hour)
		run, err := st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: r.job, ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: at}, Now: at})
		if err != nil {
			t.Fatal(err)
		}
		ev := []store.Event{{Kind: store.EventRunSucceeded, Message: "exit 0"}}
		if r.state == store.RunMissed {
			ev = []store.Event{{Kind: store.EventRunMissed, Message: "missed: the gate stayed closed"}}
		}
		if _, err := st.RunFinish(ctx, store.RunFinishParams{ID: run.ID, State: r.state, Now: at.Add(time.Minute), Events: ev}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := mustBackend(t, st).Jobs(ctx, webui.JobQuery{State: webui.JobStateMissing})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != 1 || p.Jobs[0].Name != "gated" || p.Total != 1 || p.Jobs[0].Health() != "missing" {
		t.Errorf("missing jobs: %+v (total %d)", p.Jobs, p.Total)
	}
}
