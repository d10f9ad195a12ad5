package webui_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// TestRunsHistory: /runs lists every job's runs with their node, and
// filters by state (one, active or finished), job, node and scheduled
// time, keeping the filters from page to page.
func TestRunsHistory(t *testing.T) {
	h := newHarness(t, webui.Config{PageSize: 2})
	at := demoNow.Add(-30 * 24 * time.Hour) // older than every demo run
	var ids []int64
	for i, n := range []string{"hist-1", "hist-2", "hist-1"} {
		r := h.back.AddRun(webui.Run{Job: "backup", ScheduledTime: at.Add(time.Duration(i) * time.Hour), State: webui.RunFailed, Node: n,
			StartedAt: at.Add(time.Duration(i) * time.Hour), FinishedAt: at.Add(time.Duration(i)*time.Hour + 24*time.Millisecond)})
		ids = append(ids, r.ID)
	}
	listed := func(body string) []int64 {
		var out []int64
		for _, m := range regexp.MustCompile(`<tr data-run="(\d+)"`).FindAllStringSubmatch(body, -1) {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			out = append(out, id)
		}
		return out
	}

	code, body := h.get("/runs?node=hist-1")
	if code != http.StatusOK {
		t.Fatalf("GET /runs?node=hist-1: %d", code)
	}
	mustContain(t, body, `<a href="/runs" aria-current="page">Runs</a>`, `<th>Node</th>`, `data-node="hist-1"><span class="node">hist-1</span>`, "24ms")
	if got := listed(body); len(got) != 2 || got[0] != ids[2] || got[1] != ids[0] {
		t.Errorf("runs on hist-1: %v, want %d and %d", got, ids[2], ids[0])
	}

	since := at.Add(30 * time.Minute).Format(time.RFC3339)
	until := at.Add(150 * time.Minute).Format(time.RFC3339)
	_, body = h.get("/runs?state=failed&job=backup&since=" + since + "&until=" + until)
	if got := listed(body); len(got) != 2 || got[0] != ids[2] || got[1] != ids[1] {
		t.Errorf("failed backup runs in the span: %v, want %d and %d", got, ids[2], ids[1])
	}

	// Paging keeps the filters.
	_, body = h.get("/runs?state=finished&node=hist-2")
	if got := listed(body); len(got) != 1 || got[0] != ids[1] {
		t.Errorf("finished on hist-2: %v", got)
	}
	_, body = h.get("/runs?state=finished")
	older := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(body)
	if older == nil || !strings.Contains(older[1], "state=finished") || !strings.Contains(older[1], "before=") {
		t.Fatalf("the next page's link does not keep the filter: %v", older)
	}
	_, body = h.get(strings.ReplaceAll(older[1], "&amp;", "&"))
	for _, m := range regexp.MustCompile(`<tr data-run="\d+" data-state="(\w+)"`).FindAllStringSubmatch(body, -1) {
		if m[1] == webui.RunPending || m[1] == webui.RunRunning {
			t.Errorf("the second page of finished runs lists a %s run", m[1])
		}
	}

	_, body = h.get("/runs?state=active")
	mustContain(t, body, "<h1>Active runs</h1>", `<option value="active" selected>`)
	for _, bad := range []string{"/runs?state=done", "/runs?since=yesterday", "/runs?before=x"} {
		if code, _ := h.get(bad); code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", bad, code)
		}
	}
	_, body = h.get("/runs?node=nowhere")
	mustContain(t, body, `id="runs-none"`, "No run matches these filters.")
}

// TestJobPageNodes: a fanned-out job's page shows its max_parallel and its
// window map (selectors by name, default last), and its runs table has a
// node column; a pending fan-out run's page names the node it is for.
func TestJobPageNodes(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/jobs/rotate-logs")
	mustContain(t, body, `<dd id="job-max-parallel"><code>2</code> nodes at once</dd>`,
		`<li data-selector="role=db">nodes matching <code>role=db</code>: waits for window <a href="/windows#w-nightly-reboots">nightly-reboots</a></li><li data-selector="default">any other node: waits for window`,
		`<thead><tr><th>Run</th><th>Node</th>`)
	pending, _, err := h.back.Runs(t.Context(), webui.RunQuery{Job: "rotate-logs", States: []string{webui.RunPending}, Limit: 1})
	if err != nil || len(pending) == 0 || pending[0].Target == "" {
		t.Fatalf("the demo has no pending fanned-out run: %v %v", pending, err)
	}
	_, body = h.get("/runs/" + strconv.FormatInt(pending[0].ID, 10))
	mustContain(t, body, `<span class="node">`+pending[0].Target+`</span> <span class="muted">(not started)</span>`)
	_, body = h.get("/jobs/backup")
	if strings.Contains(body, `id="job-max-parallel"`) || strings.Contains(body, `id="job-window-map"`) {
		t.Error("a job that is not fanned out shows max_parallel or a window map")
	}
}

// TestJobsNaturalSort: /jobs lists names as people count (backup-2 before
// backup-10), the name column sorts the other way round, and paging
// follows the order chosen.
func TestJobsNaturalSort(t *testing.T) {
	back := webuitest.New(clock.NewFake(demoNow))
	for _, n := range []string{"backup-10", "backup-2", "backup-1", "backup-20"} {
		back.AddJob(webui.Job{Name: n, Schedule: "@daily", Zone: "UTC", Command: "true"}, nil)
	}
	h := newHarness(t, webui.Config{Backend: back})
	order := func(body string) string {
		var out []string
		for _, m := range regexp.MustCompile(`<tr id="job-[^"]+" data-job="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	_, body := h.get("/jobs")
	if got := order(body); got != "backup-1 backup-2 backup-10 backup-20" {
		t.Errorf("/jobs order: %s", got)
	}
	mustContain(t, body, `aria-sort="ascending"`, `<a id="sort-name" href="/jobs?sort=-name"`)
	_, body = h.get("/jobs?sort=-name")
	if got := order(body); got != "backup-20 backup-10 backup-2 backup-1" {
		t.Errorf("/jobs?sort=-name order: %s", got)
	}
	_, body = h.get("/jobs?sort=-name&after=backup-10")
	if got := order(body); got != "backup-2 backup-1" {
		t.Errorf("the page after backup-10, descending: %s", got)
	}
	if code, _ := h.get("/jobs?sort=zone"); code != http.StatusBadRequest {
		t.Errorf("?sort=zone: %d, want 400", code)
	}
}
