package webui_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// demoNow is a Wednesday afternoon.
var demoNow = time.Date(2025, 3, 12, 14, 7, 0, 0, time.UTC)

type harness struct {
	t      *testing.T
	srv    *httptest.Server
	client *http.Client
	back   *webuitest.Backend
	clock  *clock.Fake
}

func newHarness(t *testing.T, cfg webui.Config) *harness {
	t.Helper()
	c := clock.NewFake(demoNow)
	h := &harness{t: t, clock: c}
	if cfg.Backend == nil {
		h.back = webuitest.Demo(c)
		cfg.Backend = h.back
	}
	cfg.Clock = c
	cfg.Logger = slog.New(slog.DiscardHandler)
	handler, err := webui.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = httptest.NewServer(handler)
	t.Cleanup(h.srv.Close)
	jar, _ := cookiejar.New(nil)
	h.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// get fetches a path and returns the status and body.
func (h *harness) get(path string) (int, string) {
	h.t.Helper()
	resp, err := h.client.Get(h.srv.URL + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (h *harness) post(path string, form url.Values, header http.Header) *http.Response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf loads a page and returns the token of its forms.
func (h *harness) csrf(path string) string {
	h.t.Helper()
	_, body := h.get(path)
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		h.t.Fatalf("no csrf token on %s", path)
	}
	return m[1]
}

func mustContain(t *testing.T, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestPagesRender(t *testing.T) {
	h := newHarness(t, webui.Config{})
	tests := []struct {
		path  string
		wants []string
	}{
		{"/", []string{"<h1>Overview</h1>", `id="count-jobs"><span class="n">5</span> jobs<small>1 suspended</small>`,
			`<span class="n">5</span> active runs`, `<span class="n">4</span> failures`, `id="next-fires"`,
			`data-window="nightly-reboots" data-open="false"`, `aria-current="page">Overview`}},
		{"/jobs", []string{`data-job="backup" data-suspended="false"`, `data-job="cleanup" data-suspended="true"`,
			"at 02:00 every day", "Europe/Berlin", `class="resume"`, `class="suspend"`}},
		{"/jobs/backup", []string{`<span id="job-name">backup</span>`, `<code id="job-schedule">0 2 * * *</code>`,
			"at 02:00 every day", `<svg class="timeline"`, `<a class="run failed"`, "BACKUP_LEVEL=full",
			"Forbid", "Next 20 fires", `href="/windows#w-weekend-maintenance"`, "exit status 3"}},
		{"/jobs/cleanup", []string{"Suspended: nothing is scheduled until it is resumed."}},
		{"/runs/1", []string{"Run #1 of", `id="run-output"`, `href="/runs/1/log"`}},
		{"/windows", []string{`id="w-business-hours"`, "America/New_York", "Puppet schedule", `<svg class="week"`, "40 h a week"}},
		{"/resources", []string{`data-resource="demo-broken-1"`, `class="badge v-errors"`, `<ul class="findings errors">`,
			`<ul class="findings warnings">`, `class="marker start"`, "no zone"}},
		{"/events", []string{`<table id="events"`, "run.failed", `list="kinds"`}},
		{"/cluster", []string{`<strong id="cluster-leader">node-b</strong> leads in term <span id="cluster-term">7</span>`,
			`data-node="node-b" data-leader="true"`, `node-a <small class="muted">(this node)</small>`, "10.0.0.13:8080", `sched-b <small class="muted">pid 1407</small>`, "9s ago",
			`aria-current="page">Cluster`}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d:\n%s", tt.path, code, body)
			}
			mustContain(t, body, tt.wants...)
			mustContain(t, body, `<link rel="stylesheet" href="/static/style.css?v=`, `<script src="/static/htmx.min.js?v=`)
		})
	}
}

func TestOverviewFires(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/")
	table := body[strings.Index(body, `id="next-fires"`):]
	table = table[:strings.Index(table, "</table>")]
	if n := strings.Count(table, "<tr data-outlook="); n != 10 {
		t.Errorf("%d fires listed, want 10", n)
	}
	// The report job fires every 30 minutes, so it comes first at 14:30 UTC.
	mustContain(t, table, `datetime="2025-03-12T14:30:00Z"`)
	if strings.Contains(table, "cleanup") {
		t.Error("a suspended job is listed among the next fires")
	}
}

func TestJobDetail(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/jobs/backup")
	fires := body[strings.Index(body, `id="job-fires"`):]
	fires = fires[:strings.Index(fires, "</ol>")]
	if n := strings.Count(fires, "<li data-outlook="); n != 20 {
		t.Errorf("%d fires, want 20", n)
	}
	// Backup fires at 02:00 Berlin, 01:00 UTC in March before DST.
	mustContain(t, fires, `datetime="2025-03-13T01:00:00Z"`, "Thu 2025-03-13 02:00:00 CET")
	svg := body[strings.Index(body, `<svg class="timeline"`):]
	svg = svg[:strings.Index(svg, "</svg>")]
	// Daily runs at 01:00 UTC on the past six days; the picture starts Friday
	// 14:07, so Saturday to Tuesday are in it, and the run waiting for its
	// gate now.
	if got := strings.Count(svg, `<a class="run `); got != 5 {
		t.Errorf("%d runs on the timeline, want 5", got)
	}
	// Its gate, weekend-maintenance (Sat 22:00 to Sun 06:00 Berlin), is
	// shut on Thursday and Friday past the two-hour starting deadline.
	if got := strings.Count(svg, `class="fire will-miss"`); got != 2 {
		t.Errorf("%d future fires on the timeline marked will-miss, want 2", got)
	}
	mustContain(t, fires, `<li data-outlook="will-miss">`, `<li data-outlook="on-time"><time datetime="2025-03-16T01:00:00Z"`)
	if code, _ := h.get("/jobs/nope"); code != http.StatusNotFound {
		t.Errorf("unknown job: %d, want 404", code)
	}
	if code, _ := h.get("/jobs/backup?before=x"); code != http.StatusBadRequest {
		t.Errorf("bad cursor: %d, want 400", code)
	}
}

func TestJobRunsPaging(t *testing.T) {
	h := newHarness(t, webui.Config{PageSize: 2})
	_, body := h.get("/jobs/report")
	rows := regexp.MustCompile(`<tr data-run="(\d+)">`).FindAllStringSubmatch(body, -1)
	if len(rows) != 2 {
		t.Fatalf("%d runs on the first page, want 2", len(rows))
	}
	next := regexp.MustCompile(`href="/jobs/report\?before=(\d+)#runs-h">Older runs`).FindStringSubmatch(body)
	if next == nil {
		t.Fatal("no link to older runs")
	}
	_, body2 := h.get("/jobs/report?before=" + next[1])
	rows2 := regexp.MustCompile(`<tr data-run="(\d+)">`).FindAllStringSubmatch(body2, -1)
	if len(rows2) != 2 || atoi(rows2[0][1]) >= atoi(rows[1][1]) {
		t.Errorf("second page %v does not continue after %v", rows2, rows)
	}
	mustContain(t, body2, `href="/jobs/report#runs-h">Newest</a>`)
}

func TestRunPages(t *testing.T) {
	h := newHarness(t, webui.Config{})
	out := "line 1\n<script>alert(1)</script>\n"
	zero := 0
	r := h.back.AddRun(webui.Run{Job: "backup", ScheduledTime: demoNow, State: webui.RunSucceeded, Reason: "manual",
		StartedAt: demoNow, FinishedAt: demoNow.Add(90 * time.Second), ExitCode: &zero, Output: []byte(out)})
	path := "/runs/" + itoa(r.ID)

	_, body := h.get(path)
	mustContain(t, body, "&lt;script&gt;alert(1)&lt;/script&gt;", `<dd id="run-exit">0</dd>`, "1m 30s", `data-state="succeeded"`)
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "hx-trigger") || strings.Contains(body, `http-equiv="refresh"`) {
		t.Error("finished run page is unescaped or still refreshing")
	}

	resp, err := h.client.Get(h.srv.URL + path + "/log")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != out || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("log = %q (%s), want %q as text/plain", b, resp.Header.Get("Content-Type"), out)
	}

	// The demo's running report run refreshes itself, by htmx and without JS.
	active := findRun(t, h, "report", webui.RunRunning)
	_, body = h.get("/runs/" + itoa(active))
	mustContain(t, body, `hx-get="/runs/`+itoa(active)+`/live" hx-trigger="every 2s"`, `<noscript><meta http-equiv="refresh" content="4"></noscript>`)
	_, live := h.get("/runs/" + itoa(active) + "/live")
	if !strings.HasPrefix(live, `<section id="live"`) || strings.Contains(live, "<html") {
		t.Errorf("live fragment is not just the section: %.100s", live)
	}

	for _, bad := range []string{"/runs/0", "/runs/x", "/runs/999999", "/runs/999999/log"} {
		if code, _ := h.get(bad); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", bad, code)
		}
	}
}

func findRun(t *testing.T, h *harness, job, state string) int64 {
	t.Helper()
	runs, _, err := h.back.Runs(t.Context(), webui.RunQuery{Job: job, States: []string{state}})
	if err != nil || len(runs) == 0 {
		t.Fatalf("no %s run of %s: %v", state, job, err)
	}
	return runs[0].ID
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func TestWindowBlocks(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/windows")
	for name, want := range webuitest.DemoWindowBlocks {
		art := body[strings.Index(body, `id="w-`+name+`"`):]
		art = art[:strings.Index(art, "</article>")]
		if got := strings.Count(art, `<g class="block"`); got != want {
			t.Errorf("%s: %d blocks, want %d", name, got, want)
		}
		if !strings.Contains(art, `<g class="now"`) {
			t.Errorf("%s: no now line", name)
		}
	}
	// Wednesday 14:07 UTC is 09:07 in New York: business hours are open.
	mustContain(t, body, `business-hours <span class="badge open">open</span>`, `nightly-reboots <span class="badge closed">closed</span>`)
}

func TestResourceCalendars(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/resources")
	if n := strings.Count(body, `<article class="resource"`); n != webuitest.DemoResources {
		t.Errorf("%d resources, want %d", n, webuitest.DemoResources)
	}
	tests := []struct {
		id             string
		blocks, starts int
	}{
		{"demo-web-1", 5, 5},   // weekday office hours
		{"demo-batch-1", 5, 5}, // weeknights across midnight
		{"demo-nozone-1", 0, 0},
		{"demo-db-1", 0, 0},
	}
	for _, tt := range tests {
		art := body[strings.Index(body, `<article class="resource" id="r-`+tt.id+`"`):]
		art = art[:strings.Index(art, "</article>")]
		if got := strings.Count(art, `<g class="block"`); got != tt.blocks {
			t.Errorf("%s: %d blocks, want %d", tt.id, got, tt.blocks)
		}
		if got := strings.Count(art, `class="marker start"`); got != tt.starts {
			t.Errorf("%s: %d start markers, want %d", tt.id, got, tt.starts)
		}
	}
}

func TestEventLog(t *testing.T) {
	h := newHarness(t, webui.Config{PageSize: 5})
	_, body := h.get("/events")
	ids := regexp.MustCompile(`<tr data-event="(\d+)">`).FindAllStringSubmatch(body, -1)
	if len(ids) != 5 {
		t.Fatalf("%d events on a page, want 5", len(ids))
	}
	for i := 1; i < len(ids); i++ {
		if atoi(ids[i][1]) >= atoi(ids[i-1][1]) {
			t.Errorf("events not newest first: %v", ids)
		}
	}
	older := regexp.MustCompile(`<a rel="next" href="/events\?before=(\d+)">Older`).FindStringSubmatch(body)
	if older == nil {
		t.Fatal("no Older link")
	}
	_, body = h.get("/events?before=" + older[1])
	first := regexp.MustCompile(`<tr data-event="(\d+)">`).FindStringSubmatch(body)
	if first == nil || atoi(first[1]) >= atoi(older[1]) {
		t.Errorf("second page starts at %v, want below %s", first, older[1])
	}

	_, body = h.get("/events?job=backup&kind=run.failed")
	if n := strings.Count(body, `<tr data-event=`); n != 1 {
		t.Errorf("%d failed backup events, want 1", n)
	}
	mustContain(t, body, `name="job" value="backup"`, `<a href="/events">Clear</a>`)

	_, body = h.get("/events?resource=demo-broken-1")
	if n := strings.Count(body, `<tr data-event=`); n == 0 || strings.Count(body, `href="/resources#r-demo-broken-1"`) != n {
		t.Errorf("resource filter shows events of other subjects")
	}
	code, body := h.get("/events?kind=nothing")
	if code != http.StatusBadRequest {
		t.Errorf("unknown kind: %d, want 400 as the API answers", code)
	}
	mustContain(t, body, `Unknown event kind &#34;nothing&#34;`, `name="kind" value="nothing"`)
	_, body = h.get("/events?job=no-such-job&kind=run")
	mustContain(t, body, "No events match these filters.")
	_, body = h.get("/events?job=backup&kind=run")
	if n := strings.Count(body, `<tr data-event=`); n < 2 {
		t.Errorf("the run family shows %d backup events, want its runs' several kinds", n)
	}
	if code, _ := h.get("/events?before=-1"); code != http.StatusBadRequest {
		t.Errorf("bad cursor: %d, want 400", code)
	}
}

func TestSuspendResumeTrigger(t *testing.T) {
	h := newHarness(t, webui.Config{})
	token := h.csrf("/jobs")

	// A plain form post redirects back with a notice.
	resp := h.post("/jobs/backup/suspend", url.Values{"csrf": {token}, "return": {"/jobs/backup"}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs/backup?done=suspended" {
		t.Fatalf("suspend: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body := h.get("/jobs/backup?done=suspended")
	mustContain(t, body, `<span id="job-state" class="badge suspended" data-health="suspended">suspended</span>`, "Job suspended")

	// htmx from the jobs table gets the new row.
	resp = h.post("/jobs/backup/resume", url.Values{"csrf": {token}, "view": {"row"}, "return": {"/jobs"}}, http.Header{"Hx-Request": {"true"}})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), `<tr id="job-backup" data-job="backup" data-suspended="false"`) {
		t.Errorf("htmx resume: %d %.120s", resp.StatusCode, b)
	}

	// Trigger redirects to the new run.
	resp = h.post("/jobs/backup/trigger", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !regexp.MustCompile(`^/runs/\d+$`).MatchString(loc) {
		t.Fatalf("trigger: %d to %q", resp.StatusCode, loc)
	}
	_, body = h.get(loc)
	mustContain(t, body, `data-state="running"`, "started by hand", "manual")
	h.clock.Advance(5 * time.Second)
	_, body = h.get(loc + "/live")
	mustContain(t, body, `data-state="succeeded"`)
	if strings.Contains(body, "hx-trigger") {
		t.Error("finished run still polls")
	}
	resp = h.post("/jobs/backup/trigger", url.Values{"csrf": {token}}, http.Header{"Hx-Request": {"true"}})
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Hx-Redirect"), "/runs/") {
		t.Errorf("htmx trigger: HX-Redirect %q", resp.Header.Get("Hx-Redirect"))
	}

	resp = h.post("/jobs/nope/suspend", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("suspend of an unknown job: %d", resp.StatusCode)
	}
	// The return target never leaves the site.
	resp = h.post("/jobs/backup/suspend", url.Values{"csrf": {token}, "return": {"//evil.example/x"}}, nil)
	resp.Body.Close()
	if resp.Header.Get("Location") != "/?done=suspended" {
		t.Errorf("off-site return: %q", resp.Header.Get("Location"))
	}
}

func TestCSRF(t *testing.T) {
	h := newHarness(t, webui.Config{})
	token := h.csrf("/jobs")
	tests := []struct {
		name   string
		form   url.Values
		header http.Header
		want   int
	}{
		{"no token", url.Values{}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"csrf": {"AAAA" + token[4:]}}, nil, http.StatusForbidden},
		{"other origin", url.Values{"csrf": {token}}, http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"same origin", url.Values{"csrf": {token}}, http.Header{"Origin": {h.srv.URL}}, http.StatusSeeOther},
		{"header token", url.Values{}, http.Header{"X-Csrf-Token": {token}}, http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.post("/jobs/report/suspend", tt.form, tt.header)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	// A browser without the cookie cannot post, even with a token.
	fresh := &http.Client{CheckRedirect: h.client.CheckRedirect}
	resp, err := fresh.PostForm(h.srv.URL+"/jobs/report/resume", url.Values{"csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("post without cookie: %d", resp.StatusCode)
	}
}

func TestToken(t *testing.T) {
	h := newHarness(t, webui.Config{Token: "s3cret"})
	resp, err := h.client.Get(h.srv.URL + "/jobs?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2Fjobs%3Fx%3D1" {
		t.Fatalf("unauthenticated GET: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, _ := h.get("/static/style.css"); code != http.StatusOK {
		t.Errorf("static asset needs login: %d", code)
	}
	token := h.csrf("/login?next=/jobs")

	resp = h.post("/login", url.Values{"csrf": {token}, "token": {"wrong"}, "next": {"/jobs"}}, nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "unknown, revoked or expired") {
		t.Errorf("wrong token: %d", resp.StatusCode)
	}
	resp = h.post("/jobs/backup/suspend", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unauthenticated POST: %d", resp.StatusCode)
	}

	resp = h.post("/login", url.Values{"csrf": {token}, "token": {"s3cret"}, "next": {"/jobs"}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range resp.Cookies() {
		if c.Name == "almanac_session" && (strings.Contains(c.Value, "s3cret") || !c.HttpOnly) {
			t.Errorf("session cookie %+v carries the token or is readable by scripts", c)
		}
	}
	code, body := h.get("/jobs")
	if code != http.StatusOK {
		t.Fatalf("after login: %d", code)
	}
	mustContain(t, body, `action="/logout"`)

	resp = h.post("/logout", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if code, _ := h.get("/jobs"); code != http.StatusSeeOther {
		t.Errorf("after logout: %d, want a redirect to the login", code)
	}

	// A bearer token works without a session.
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/jobs", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("bearer: %d", resp.StatusCode)
	}
}

func TestLoginNextStaysOnSite(t *testing.T) {
	h := newHarness(t, webui.Config{Token: "t"})
	token := h.csrf("/login")
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", ""} {
		resp := h.post("/login", url.Values{"csrf": {token}, "token": {"t"}, "next": {next}}, nil)
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); loc != "/" {
			t.Errorf("next=%q redirected to %q", next, loc)
		}
	}
}

func TestHeadersAndAssets(t *testing.T) {
	h := newHarness(t, webui.Config{})
	resp, err := h.client.Get(h.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("missing framing or sniffing headers")
	}
	asset := regexp.MustCompile(`src="(/static/htmx.min.js\?v=[0-9a-f]+)"`).FindStringSubmatch(string(b))
	if asset == nil {
		t.Fatal("no htmx script tag")
	}
	resp, err = h.client.Get(h.srv.URL + asset[1])
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") ||
		!strings.HasPrefix(string(js), "/*! htmx.org 2.0.11") {
		t.Errorf("htmx asset: %d %q %.40q", resp.StatusCode, resp.Header.Get("Cache-Control"), js)
	}
	for _, p := range []string{"/static/style.css", "/static/favicon.svg"} {
		if code, _ := h.get(p); code != http.StatusOK {
			t.Errorf("GET %s = %d", p, code)
		}
	}
	code, body := h.get("/no/such/page")
	if code != http.StatusNotFound || !strings.Contains(body, "There is no page at /no/such/page.") {
		t.Errorf("404 page: %d", code)
	}
}

func TestBackendErrors(t *testing.T) {
	h := newHarness(t, webui.Config{})
	h.back.SetError(errors.New("store offline"))
	for _, p := range []string{"/", "/jobs", "/jobs/backup", "/runs/1", "/windows", "/resources", "/events", "/cluster"} {
		code, body := h.get(p)
		if code != http.StatusBadGateway || !strings.Contains(body, "store offline") {
			t.Errorf("GET %s with a failing backend: %d", p, code)
		}
	}
}

func TestEmptyBackend(t *testing.T) {
	h := newHarness(t, webui.Config{Backend: webuitest.New(clock.NewFake(demoNow))})
	for path, want := range map[string]string{
		"/":          "No job is due",
		"/jobs":      "There are no jobs yet.",
		"/windows":   "No named windows",
		"/resources": "No managed resources",
		"/events":    "No events.",
		"/cluster":   "no cluster state",
	} {
		code, body := h.get(path)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s on an empty backend: %d, want %q", path, code, want)
		}
	}
}

func TestNewNeedsBackend(t *testing.T) {
	if _, err := webui.New(webui.Config{}); err == nil {
		t.Error("New without a backend succeeded")
	}
}

func TestLoopbackHost(t *testing.T) {
	tests := []struct {
		token, host string
		want        int
	}{
		{"", "evil.example", http.StatusForbidden},
		{"", "evil.example:8080", http.StatusForbidden},
		{"", "localhost:8080", http.StatusOK},
		{"", "app.localhost", http.StatusOK},
		{"", "[::1]:8080", http.StatusOK},
		{"t", "almanac.example.org", http.StatusSeeOther}, // with a token any host, after login
	}
	for _, tt := range tests {
		t.Run(tt.token+"@"+tt.host, func(t *testing.T) {
			h := newHarness(t, webui.Config{Token: tt.token})
			req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/jobs", nil)
			req.Host = tt.host
			resp, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("Host %s: %d, want %d", tt.host, resp.StatusCode, tt.want)
			}
		})
	}
}

func TestKillFromRunPage(t *testing.T) {
	h := newHarness(t, webui.Config{})
	token := h.csrf("/jobs")
	resp := h.post("/jobs/report/trigger", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	runPath := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(runPath, "/runs/") {
		t.Fatalf("trigger: %d to %q", resp.StatusCode, runPath)
	}
	_, body := h.get(runPath)
	mustContain(t, body, `href="`+runPath+`/kill"`, `class="button kill"`)
	_, body = h.get(runPath + "/kill")
	mustContain(t, body, `action="`+runPath+`/kill"`, `class="kill" id="confirm"`, "SIGTERM")

	resp = h.post(runPath+"/kill", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != runPath {
		t.Fatalf("kill: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body = h.get(runPath)
	mustContain(t, body, `id="run-state" class="badge`, `>killed</span>`)
	if strings.Contains(body, `kill"`) {
		t.Error("a finished run still offers Kill")
	}
	resp = h.post(runPath+"/kill", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("second kill: %d, want 409", resp.StatusCode)
	}
	resp = h.post(runPath+"/kill", url.Values{}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("kill without the CSRF token: %d, want 403", resp.StatusCode)
	}
}

func TestRebootGroupsOnWindowsPage(t *testing.T) {
	h := newHarness(t, webui.Config{})
	code, body := h.get("/windows")
	if code != http.StatusOK {
		t.Fatalf("GET /windows = %d", code)
	}
	mustContain(t, body, `id="reboot-groups"`, `data-group="workers"`, `data-holder="worker-3"`, "1 of 2 taken", `data-group="db"`, "weekend-maintenance", "closed")
}

func TestEventLogFilters(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/events")
	if strings.Contains(body, `<option value="tag-added">`) || !strings.Contains(body, `<option value="resource.tag-added">`) {
		t.Error("the kind suggestions are not the event log's real kinds")
	}
	for _, m := range regexp.MustCompile(`<option value="([^"]+)">`).FindAllStringSubmatch(body, -1) {
		code, page := h.get("/events?kind=" + url.QueryEscape(m[1]))
		if code != http.StatusOK || strings.Contains(page, "is not") {
			t.Errorf("suggested kind %q is refused: %d", m[1], code)
		}
	}
	if !strings.Contains(body, `class="failure"`) {
		t.Error("failed events are not marked")
	}
	all := strings.Count(body, "<tr data-event=")
	since := demoNow.Add(-2 * time.Hour).Format(time.RFC3339)
	_, recent := h.get("/events?since=" + url.QueryEscape(since))
	n := strings.Count(recent, "<tr data-event=")
	if n == 0 || n >= all {
		t.Errorf("since=%s shows %d of %d events", since, n, all)
	}
	mustContain(t, recent, `name="since" value="`+demoNow.Add(-2*time.Hour).In(time.UTC).Format("2006-01-02T15:04")+`"`)
	if code, _ := h.get("/events?until=yesterday"); code != http.StatusBadRequest {
		t.Errorf("until=yesterday: %d, want 400", code)
	}
}

func TestFailingJobAndRunStrip(t *testing.T) {
	tests := []struct {
		name   string
		states []string // newest first
		want   bool
	}{
		{"never ran", nil, false},
		{"last failed, the one before succeeded", []string{webui.RunFailed, webui.RunSucceeded}, false},
		{"all failed", []string{webui.RunFailed, webui.RunFailed}, true},
		{"running after failures", []string{webui.RunRunning, webui.RunFailed}, true},
		{"recovered", []string{webui.RunSucceeded, webui.RunFailed}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j webui.Job
			for _, s := range tt.states {
				j.Recent = append(j.Recent, webui.Run{State: s})
			}
			if got := j.Failing(); got != tt.want {
				t.Errorf("Failing() = %v, want %v", got, tt.want)
			}
		})
	}

	h := newHarness(t, webui.Config{})
	for k := 3; k >= 1; k-- {
		at := demoNow.Add(-time.Duration(k) * time.Hour)
		code := 2
		h.back.AddRun(webui.Run{Job: "backup", ScheduledTime: at, Reason: "schedule", State: webui.RunFailed, Node: "demo",
			StartedAt: at, FinishedAt: at.Add(90 * time.Second), ExitCode: &code, Error: "exit status 2"})
	}
	_, body := h.get("/jobs/backup")
	mustContain(t, body, `<span id="job-state" class="badge failed" data-health="failing" title="its latest finished runs failed">failing</span>`, `class="strip"`, `class="cell failed"`, `class="cell succeeded"`, "failed, 1m 30s")
	_, list := h.get("/jobs")
	row := list[strings.Index(list, `data-job="backup"`):]
	row = row[:strings.Index(row, "</tr>")]
	mustContain(t, row, `class="badge failed" data-health="failing" title="its latest finished runs failed">failing</span>`, `class="strip"`)
}

func TestSkippedAndMissedOnJobPage(t *testing.T) {
	h := newHarness(t, webui.Config{})
	h.back.AddEvent(webui.Event{Time: demoNow.Add(-2 * time.Hour), Kind: "run.skipped", Job: "report", Message: "skipped the run for 12:00: previous run active (run 7)"})
	_, body := h.get("/jobs/sync-inventory")
	mustContain(t, body, `id="passed"`, `class="badge missed">missed</span>`)
	_, body = h.get("/jobs/report")
	mustContain(t, body, `class="badge skipped">skipped</span>`, "previous run active (run 7)")
}

func TestResourcesFilterAndOutOfStep(t *testing.T) {
	h := newHarness(t, webui.Config{})
	tests := []struct {
		name     string
		path     string
		articles int
		want     []string
		not      []string
	}{
		// Wednesday 09:07 in New York: web-2 is stopped inside its office
		// hours, web-1 is running as it should.
		{"all", "/resources", webuitest.DemoResources,
			[]string{`web-2 is stopped inside a period its schedule keeps it running`, `out of step`},
			[]string{`web-1 is running outside`, `web-1 is stopped`}},
		{"by name", "/resources?q=WEB", 2,
			[]string{`id="r-demo-web-1"`, `id="r-demo-web-2"`, `value="WEB"`, `Show all`},
			[]string{`id="r-demo-batch-1"`}},
		{"by id", "/resources?q=demo-db", 1, []string{`id="r-demo-db-1"`}, []string{`id="r-demo-web-1"`}},
		{"none", "/resources?q=nothing-like-this", 0, []string{`No resource name contains “nothing-like-this”`}, []string{`No managed resources`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := h.get(tt.path)
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			if n := strings.Count(body, `<article class="resource"`); n != tt.articles {
				t.Errorf("%d resources shown, want %d", n, tt.articles)
			}
			mustContain(t, body, tt.want...)
			for _, s := range tt.not {
				if strings.Contains(body, s) {
					t.Errorf("body contains %q", s)
				}
			}
		})
	}
}
