package webui_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// jobRow returns the jobs list's row of job.
func jobRow(t *testing.T, list, job string) string {
	t.Helper()
	i := strings.Index(list, `data-job="`+job+`"`)
	if i < 0 {
		t.Fatalf("no row for %s", job)
	}
	row := list[i:]
	return row[:strings.Index(row, "</tr>")]
}

// TestPendingIsNotRunning: a run waiting for its gate is counted as
// waiting on the jobs list, in the waiting colour, never as running.
func TestPendingIsNotRunning(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, list := h.get("/jobs")
	backup := jobRow(t, list, "backup")
	mustContain(t, backup, `<span class="badge pending"`, `1 waiting</span>`, `class="cell pending"`)
	if strings.Contains(backup, "running") {
		t.Errorf("backup, whose only active run is pending, reads as running: %s", backup)
	}
	mustContain(t, jobRow(t, list, "report"), `<span class="badge running">1 running</span>`)
	mustContain(t, list, `id="run-legend"`, `<span class="dot pending"></span>waiting to start`)
}

// TestJobsListFiltersAndPages: the jobs list counts its matches, filters
// by state and pages back as well as forward.
func TestJobsListFiltersAndPages(t *testing.T) {
	h := newHarness(t, webui.Config{})
	for i := range 250 {
		h.back.AddJob(webui.Job{Name: fmt.Sprintf("bulk-%03d", i), Schedule: "0 * * * *", Zone: "UTC", Command: "true"}, nil)
	}
	_, first := h.get("/jobs")
	// backup, bulk-000 ... bulk-249, cleanup, report, rotate-logs, sync-inventory.
	mustContain(t, first, "1–100 of 255 jobs", `rel="next" href="/jobs?after=bulk-098"`)
	if strings.Contains(first, "Previous page") {
		t.Error("the first page offers a previous page")
	}
	_, second := h.get("/jobs?after=bulk-098")
	mustContain(t, second, "101–200 of 255 jobs", `rel="prev" href="/jobs"`, `data-job="bulk-099"`)
	_, third := h.get("/jobs?after=bulk-198")
	mustContain(t, third, "201–255 of 255 jobs", `rel="prev" href="/jobs?after=bulk-098"`)

	_, filtered := h.get("/jobs?q=bulk-2&after=bulk-209")
	mustContain(t, filtered, "11–50 of 50 jobs matching", `rel="prev" href="/jobs?q=bulk-2"`)
	if strings.Contains(filtered, `rel="next"`) {
		t.Error("the last filtered page offers a next page")
	}
	_, stated := h.get("/jobs?q=bulk&state=suspended")
	mustContain(t, stated, "0 jobs matching", "No job whose name contains “bulk” is suspended.")

	for state, want := range map[string][]string{
		"suspended": {"cleanup"},
		"running":   {"report", webuitest.DemoFanOutJob},
		"waiting":   {"backup"},
		"failing":   {},
	} {
		_, body := h.get("/jobs?state=" + state)
		got := strings.Count(body, `<tr id="job-`)
		if got != len(want) {
			t.Errorf("state=%s: %d jobs, want %v", state, got, want)
		}
		for _, j := range want {
			mustContain(t, body, `data-job="`+j+`"`)
		}
		mustContain(t, body, `<option value="`+state+`" selected>`)
	}
	if code, _ := h.get("/jobs?state=sleeping"); code != http.StatusBadRequest {
		t.Errorf("unknown state: %d, want 400", code)
	}
}

// TestOverviewTells: the overview's active runs card lists the active
// runs, failed runs link to the run only while it is kept, and jobs whose
// alerts fail to go out are named on the overview and their page.
func TestOverviewTells(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/")
	mustContain(t, body, `<a class="card" href="/runs?state=active" id="count-active">`)
	_, runs := h.get("/runs?state=active")
	mustContain(t, runs, `id="runs"`, `data-state="pending"`, `data-state="running"`)
	// The report's and the backup's runs, and three of the fanned-out job's.
	if n := strings.Count(runs, `<tr data-run=`); n != 5 {
		t.Errorf("/runs lists %d runs, want the demo's 5 active ones", n)
	}

	failing := body[strings.Index(body, `id="failing"`):]
	failing = failing[:strings.Index(failing, "</section>")]
	mustContain(t, failing, `class="run-link"`, `/events?job=report&amp;kind=run.failed`)

	// The report's failed run is pruned: the overview stops linking to it.
	h.back.AddEvent(webui.Event{Time: demoNow.Add(-time.Minute), Kind: "run.failed", Job: "report", RunID: 999999, Message: "exit status 9"})
	_, body = h.get("/")
	failing = body[strings.Index(body, `id="failing"`):]
	failing = failing[:strings.Index(failing, "</section>")]
	if strings.Contains(failing, `href="/runs/999999"`) {
		t.Error("the overview links to a run that is not kept")
	}
	mustContain(t, failing, "run #999999, no longer kept", `/events?job=report&amp;kind=run.failed`)

	undelivered := body[strings.Index(body, `id="undelivered"`):]
	mustContain(t, undelivered, `data-job="report"`, "502 Bad Gateway", `/events?job=report&amp;kind=notify.failed`)
	_, job := h.get("/jobs/report")
	mustContain(t, job, `id="job-undelivered"`, "Alerts are not being delivered")

	// A delivery after the failure means the alerts go out again.
	h.back.AddEvent(webui.Event{Time: demoNow, Kind: "notify.sent", Job: "report", Message: "webhook: 200"})
	_, body = h.get("/")
	if strings.Contains(body, `id="undelivered"`) {
		t.Error("the overview still says report's alerts fail after one was delivered")
	}
	_, job = h.get("/jobs/report")
	if strings.Contains(job, `id="job-undelivered"`) {
		t.Error("the job page still says its alerts fail after one was delivered")
	}
}

// TestForbidOverlapSkips: while a Forbid job's run is running, the fires
// it is expected to overlap read "skipped if still running".
func TestForbidOverlapSkips(t *testing.T) {
	h := newHarness(t, webui.Config{})
	h.back.AddJob(webui.Job{Name: "slow", Schedule: "* * * * *", Zone: "UTC", Command: "sleep 90", ConcurrencyPolicy: "Forbid"},
		everyMinute{})
	code := 0
	at := demoNow.Add(-10 * time.Minute)
	h.back.AddRun(webui.Run{Job: "slow", ScheduledTime: at, Reason: "schedule", State: webui.RunSucceeded,
		StartedAt: at, FinishedAt: at.Add(150 * time.Second), ExitCode: &code})
	h.back.AddRun(webui.Run{Job: "slow", ScheduledTime: demoNow.Truncate(time.Minute), Reason: "schedule", State: webui.RunRunning,
		StartedAt: demoNow.Truncate(time.Minute)})
	_, body := h.get("/jobs/slow")
	fires := body[strings.Index(body, `id="job-fires"`):]
	fires = fires[:strings.Index(fires, "</ol>")]
	items := strings.Split(fires, "<li ")[1:]
	// The run started at the minute and is expected to take 2m30s: the
	// next two fires fall inside it, the third after.
	for i, li := range items[:3] {
		skips := strings.Contains(li, "skipped if still running")
		if want := i < 2; skips != want {
			t.Errorf("fire %d: skipped-if-running %v, want %v: %s", i, skips, want, li)
		}
	}
}

// everyMinute fires at every minute.
type everyMinute struct{}

func (everyMinute) Next(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }
