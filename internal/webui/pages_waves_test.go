package webui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// matrixCells returns the matrix's cells as instant -> node -> state
// class, read from the page.
func matrixCells(t *testing.T, body string) (nodes []string, cells map[string]map[string]string, order []string) {
	t.Helper()
	i := strings.Index(body, `<table class="matrix" id="matrix">`)
	if i < 0 {
		t.Fatal("no node matrix on the page")
	}
	table := body[i : i+strings.Index(body[i:], "</table>")]
	head := table[:strings.Index(table, "</thead>")]
	for _, m := range regexp.MustCompile(`<th scope="col" data-col="([^"]*)">`).FindAllStringSubmatch(head, -1) {
		nodes = append(nodes, m[1])
	}
	cells = map[string]map[string]string{}
	for _, row := range strings.Split(table, "<tr data-instant=")[1:] {
		instant := row[1 : strings.Index(row[1:], `"`)+1]
		order = append(order, instant)
		cells[instant] = map[string]string{}
		for _, m := range regexp.MustCompile(`<td class="([a-z]+)" data-col="([^"]*)" data-state="([a-z]+)">`).FindAllStringSubmatch(row, -1) {
			if m[1] != m[3] {
				t.Errorf("%s %s: class %q but data-state %q", instant, m[2], m[1], m[3])
			}
			cells[instant][m[2]] = m[1]
		}
	}
	return nodes, cells, order
}

func TestNodeMatrix(t *testing.T) {
	h := newHarness(t, webui.Config{})
	code, body := h.get("/jobs/" + webuitest.DemoFanOutJob)
	if code != http.StatusOK {
		t.Fatalf("GET = %d", code)
	}
	nodes, cells, order := matrixCells(t, body)
	if strings.Join(nodes, " ") != strings.Join(webuitest.DemoFanOutNodes, " ") {
		t.Errorf("columns %v, want %v", nodes, webuitest.DemoFanOutNodes)
	}
	if len(order) != webuitest.DemoFanOutInstants {
		t.Fatalf("%d rows, want %d", len(order), webuitest.DemoFanOutInstants)
	}
	for i := 1; i < len(order); i++ {
		if order[i] >= order[i-1] {
			t.Errorf("rows not newest first: %s after %s", order[i], order[i-1])
		}
	}
	cur := demoNow.Truncate(time.Hour)
	at := func(hoursAgo int) string { return cur.Add(-time.Duration(hoursAgo) * time.Hour).Format(time.RFC3339) }
	for i, n := range webuitest.DemoFanOutNodes {
		if got := cells[at(0)][n]; got != webuitest.DemoFanOutWave[i] {
			t.Errorf("current instant, %s: %q, want %q", n, got, webuitest.DemoFanOutWave[i])
		}
	}
	for _, c := range []struct {
		hoursAgo   int
		node, want string
	}{
		{3, "node-e", "succeeded"}, // its retry succeeded: the latest attempt counts
		{5, "node-c", "failed"},
		{7, "node-d", "killed"},
		{9, "node-b", "missed"},
		{10, "node-d", "skipped"},
		{10, "node-a", "succeeded"},
	} {
		if got := cells[at(c.hoursAgo)][c.node]; got != c.want {
			t.Errorf("%dh ago, %s: %q, want %q", c.hoursAgo, c.node, got, c.want)
		}
	}
	// A retried cell says which attempt it shows; the tooltip tells the
	// state, the attempt and the error; every cell says its state in
	// words, not by colour alone.
	mustContain(t, body, `title="node-c: run #`, `failed, attempt 2 — exit status 1"`, `<span class="sr">failed</span><sup>2</sup>`,
		`title="node-d: run #`, `killed, attempt 1 — timed out after 10m0s"`)
	if n, words := strings.Count(body, `<td class="`), strings.Count(body, `<span class="sr">`); words < n {
		t.Errorf("%d cells but %d state words", n, words)
	}
	// The wave above it.
	mustContain(t, body, `<div class="wave" id="wave" data-state="running">`, `class="badge wave-running">▶ running</span>`,
		`<li data-count="done"><span class="dot succeeded"></span><strong>2</strong> done</li>`,
		`<li data-count="running"><span class="dot running"></span><strong>2</strong> running</li>`,
		`<li data-count="waiting"><span class="dot pending"></span><strong>1</strong> waiting</li>`,
		"max_parallel: 2 at once", "max_failures: 2", `action="/jobs/rotate-logs/wave/pause"`, `href="/jobs/rotate-logs/wave/abort"`,
		`<dd id="job-nodes">every node matching <code>all</code>; stops after 2 failed</dd>`, `<dd id="job-max-parallel"><code>2</code> nodes at once</dd>`, `data-refresh="15"`)

	// A job on any one node has neither.
	_, plain := h.get("/jobs/backup")
	if strings.Contains(plain, `id="matrix"`) || strings.Contains(plain, `id="wave"`) || strings.Contains(plain, "/wave/") {
		t.Error("a job that does not fan out shows a wave or a matrix")
	}
	// The jobs list marks the fanned-out job with its selector.
	_, list := h.get("/jobs")
	mustContain(t, jobRow(t, list, webuitest.DemoFanOutJob), `<div class="reading fanout"`, `on nodes <code>all</code>`)
	if strings.Contains(jobRow(t, list, "backup"), "fanout") {
		t.Error("the jobs list marks a job that does not fan out")
	}
}

// TestNodeMatrixBounds: the matrix shows the latest twenty instants of a
// job with more, runs for no node in their own column, and a fanned-out
// job without targeted runs says so.
func TestNodeMatrixBounds(t *testing.T) {
	back := webuitest.New(clock.NewFake(demoNow))
	back.AddJob(webui.Job{Name: "sweep", Schedule: "* * * * *", Zone: "UTC", Command: "true", Nodes: "role=web"}, nil)
	h := newHarness(t, webui.Config{Backend: back})
	_, body := h.get("/jobs/sweep")
	mustContain(t, body, `id="wave-none"`, `action="/jobs/sweep/wave/pause"`)
	if strings.Contains(body, `id="matrix"`) || strings.Contains(body, "/wave/abort") || strings.Contains(body, "data-refresh") {
		t.Error("a fanned-out job without runs shows a matrix, an abort button or refreshes")
	}
	base := demoNow.Truncate(time.Minute)
	for k := 30; k >= 1; k-- {
		at := base.Add(-time.Duration(k) * time.Minute)
		for _, n := range []string{"web-2", "web-1"} {
			back.AddRun(webui.Run{Job: "sweep", ScheduledTime: at, Reason: "schedule", State: webui.RunSucceeded, Target: n, Node: n})
		}
	}
	// Before the job fanned out: a run claimed by a node, and one nobody
	// has claimed yet.
	back.AddRun(webui.Run{Job: "sweep", ScheduledTime: base, Reason: "manual", State: webui.RunRunning, Node: "web-3", StartedAt: demoNow})
	back.AddRun(webui.Run{Job: "sweep", ScheduledTime: base, Reason: "manual", State: webui.RunPending})
	_, body = h.get("/jobs/sweep")
	nodes, cells, order := matrixCells(t, body)
	if want := []string{"web-1", "web-2", "web-3", ""}; strings.Join(nodes, ",") != strings.Join(want, ",") {
		t.Errorf("columns %q, want %q", nodes, want)
	}
	if len(order) != 20 || order[0] != base.Format(time.RFC3339) || order[19] != base.Add(-19*time.Minute).Format(time.RFC3339) {
		t.Errorf("rows %v, want the 20 latest instants", order)
	}
	if c := cells[order[0]]; c["web-3"] != "running" || c[""] != "pending" || c["web-1"] != "none" {
		t.Errorf("latest row %v", c)
	}
	mustContain(t, body, "older instants are in the runs below", `<span class="muted">any node</span>`, `<span class="muted">manual</span>`,
		`title="web-1: no run for this instant"`)
}

func TestWaveActions(t *testing.T) {
	h := newHarness(t, webui.Config{})
	job := "/jobs/" + webuitest.DemoFanOutJob
	token := h.csrf(job)
	post := func(action string) *http.Response {
		t.Helper()
		resp := h.post(job+"/wave/"+action, url.Values{"csrf": {token}}, nil)
		resp.Body.Close()
		return resp
	}

	resp := post("pause")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != job+"?done=waves-paused#fleet-h" {
		t.Fatalf("pause: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body := h.get(job + "?done=waves-paused")
	mustContain(t, body, `data-state="paused"`, `class="badge wave-paused">‖ paused</span>`, "Waves paused: waiting nodes are held",
		`action="/jobs/rotate-logs/wave/resume"`)
	if strings.Contains(body, "/wave/pause") {
		t.Error("a paused job offers Pause")
	}
	_, list := h.get("/jobs")
	mustContain(t, jobRow(t, list, webuitest.DemoFanOutJob), `<span class="badge wave-paused">‖ paused</span>`)
	_, evs := h.get("/events?job=rotate-logs&kind=wave.paused")
	mustContain(t, evs, "waves of rotate-logs paused")

	if resp := post("resume"); resp.Header.Get("Location") != job+"?done=waves-resumed#fleet-h" {
		t.Errorf("resume: to %q", resp.Header.Get("Location"))
	}
	_, body = h.get(job)
	mustContain(t, body, `data-state="running"`, `action="/jobs/rotate-logs/wave/pause"`)

	resp = post("abort")
	if resp.Header.Get("Location") != job+"?done=waves-aborted&n=1#fleet-h" {
		t.Fatalf("abort: to %q", resp.Header.Get("Location"))
	}
	_, body = h.get(job + "?done=waves-aborted&n=1")
	mustContain(t, body, "Waves aborted: 1 waiting run was skipped", `<li data-count="skipped"><span class="dot missed"></span><strong>1</strong> skipped</li>`)
	_, cells, order := matrixCells(t, body)
	if got := cells[order[0]]["node-e"]; got != "skipped" {
		t.Errorf("the aborted node's cell is %q, want skipped", got)
	}
	if strings.Contains(body, "/wave/abort") {
		t.Error("abort is offered with no node left waiting")
	}

	for _, c := range []struct {
		path string
		want int
	}{
		{"/jobs/nope/wave/pause", http.StatusNotFound},
		{"/jobs/nope/wave/abort", http.StatusNotFound},
		{job + "/wave/explode", http.StatusNotFound},
	} {
		resp := h.post(c.path, url.Values{"csrf": {token}}, nil)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("POST %s = %d, want %d", c.path, resp.StatusCode, c.want)
		}
	}
	// Without the form's token nothing happens.
	resp = h.post(job+"/wave/pause", url.Values{}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("pause without a token: %d, want 403", resp.StatusCode)
	}
	if w, err := h.back.Wave(t.Context(), webuitest.DemoFanOutJob); err != nil || w.Paused {
		t.Errorf("after a refused pause the wave is %+v, %v", w, err)
	}
}
