package webui_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// livenessCluster is three nodes judged at demoNow with a 5 s lease TTL:
// web-1 alive, web-2 suspect (silent 9 s), web-3 down (silent 2 min).
func livenessCluster() apitype.Cluster {
	c := apitype.Cluster{Leader: "web-1", Term: 2, Self: "web-1", Now: demoNow, Nodes: []apitype.ClusterNode{
		{ID: "web-1", HeartbeatAt: demoNow.Add(-time.Second), Leader: true},
		{ID: "web-2", HeartbeatAt: demoNow.Add(-9 * time.Second)},
		{ID: "web-3", HeartbeatAt: demoNow.Add(-2 * time.Minute)},
	}}
	for i := range c.Nodes {
		c.Nodes[i].SetLiveness(demoNow, 5*time.Second)
	}
	return c
}

// TestNodeLivenessPages: /cluster says which node is alive, suspect or
// down (and since when); the page of a run on a down node says so, and
// so does the matrix of its job; a finished run on that node does not.
func TestNodeLivenessPages(t *testing.T) {
	back := webuitest.Demo(clock.NewFake(demoNow))
	back.SetCluster(livenessCluster())
	h := newHarness(t, webui.Config{Backend: back})

	_, body := h.get("/cluster")
	mustContain(t, body,
		`data-node="web-1" data-leader="true" data-liveness="alive"`,
		`data-node="web-2" data-leader="false" data-liveness="suspect"`,
		`data-node="web-3" data-leader="false" data-liveness="down"`,
		`<span class="badge failed">down</span> <small class="muted">since <time datetime="2025-03-12T14:05:00Z">`)
	row := body[strings.Index(body, `data-node="web-3"`):]
	row = row[:strings.Index(row, "</tr>")]
	if strings.Contains(row, "follower") {
		t.Errorf("a down node is still called a follower: %s", row)
	}

	job := webuitest.DemoFanOutJob
	at := demoNow.Add(-time.Minute)
	running := back.AddRun(webui.Run{Job: job, ScheduledTime: at, State: webui.RunRunning, Node: "web-3", Target: "web-3", StartedAt: at})
	pending := back.AddRun(webui.Run{Job: job, ScheduledTime: at, State: webui.RunPending, Target: "web-2"})
	done := back.AddRun(webui.Run{Job: job, ScheduledTime: at.Add(-time.Hour), State: webui.RunSucceeded, Node: "web-3", Target: "web-3", StartedAt: at, FinishedAt: at.Add(time.Second)})

	_, body = h.get("/runs/" + strconv.FormatInt(running.ID, 10))
	mustContain(t, body, `id="run-node" data-liveness="down"`, `<span class="node">web-3</span>`, `<span class="badge failed">down</span>`,
		"the run is recorded lost if the node stays down")
	_, body = h.get("/runs/" + strconv.FormatInt(pending.ID, 10))
	mustContain(t, body, `id="run-node" data-liveness="suspect"`, `<span class="node">web-2</span> <span class="muted">(not started)</span>`,
		"the run waits for it")
	if strings.Contains(body, `kill"`) {
		t.Error("a pending run, which never started, offers Kill")
	}
	_, body = h.get("/runs/" + strconv.FormatInt(done.ID, 10))
	mustContain(t, body, `id="run-node" data-liveness=""`)
	if strings.Contains(body, "badge failed\">down") {
		t.Error("a finished run's page reports its node's liveness")
	}

	_, body = h.get("/jobs/" + job)
	mustContain(t, body, `<th scope="col" data-col="web-3">web-3 <span class="badge failed">down</span></th>`,
		"its node is down")
}

// TestConfirmations: Run now, Kill and Abort waiting are links to a page
// that asks; only its POST acts, and GET alone changes nothing.
func TestConfirmations(t *testing.T) {
	h := newHarness(t, webui.Config{})
	_, body := h.get("/jobs")
	mustContain(t, body, `<a class="button trigger" href="/jobs/backup/trigger">Run now</a>`)
	if strings.Contains(body, `action="/jobs/backup/trigger"`) {
		t.Error("the jobs list still runs a job at one click")
	}
	before, _, err := h.back.Runs(t.Context(), webui.RunQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	code, body := h.get("/jobs/backup/trigger")
	if code != http.StatusOK {
		t.Fatalf("GET trigger: %d", code)
	}
	mustContain(t, body, "Run backup now?", `action="/jobs/backup/trigger"`, `class="trigger" id="confirm"`, `id="confirm-cancel" href="/jobs/backup"`)
	after, _, _ := h.back.Runs(t.Context(), webui.RunQuery{Limit: 1})
	if after[0].ID != before[0].ID {
		t.Fatalf("asking to confirm started run #%d", after[0].ID)
	}
	if code, _ := h.get("/jobs/nope/trigger"); code != http.StatusNotFound {
		t.Errorf("GET trigger of a missing job: %d, want 404", code)
	}

	job := webuitest.DemoFanOutJob
	_, body = h.get("/jobs/" + job)
	mustContain(t, body, `<a class="button wave-abort" href="/jobs/`+job+`/wave/abort"`)
	_, body = h.get("/jobs/" + job + "/wave/abort")
	mustContain(t, body, "Abort the waiting nodes of "+job+"?", `action="/jobs/`+job+`/wave/abort"`, `class="wave-abort" id="confirm"`)
}

// TestLoginPageHasNoNav: before logging in, the page offers neither the
// navigation (every link would lead back to the login) nor "Log out".
func TestLoginPageHasNoNav(t *testing.T) {
	h := newHarness(t, webui.Config{Token: "s3cret-token-for-nav"})
	code, body := h.get("/login")
	if code != http.StatusOK {
		t.Fatalf("GET /login: %d", code)
	}
	for _, bad := range []string{`aria-label="Main"`, "Log out", `href="/jobs"`} {
		if strings.Contains(body, bad) {
			t.Errorf("the login page has %q", bad)
		}
	}
	mustContain(t, body, `action="/login"`)
}
