package webui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/webui"
)

// TestJobHealth: the one-word state of a job, most urgent first.
func TestJobHealth(t *testing.T) {
	runs := func(states ...string) []webui.Run {
		var out []webui.Run
		for _, s := range states {
			out = append(out, webui.Run{State: s})
		}
		return out
	}
	skipped := webui.Run{State: webui.RunMissed, Error: "skipped: wave aborted"}
	for _, tt := range []struct {
		name string
		job  webui.Job
		want string
	}{
		{"never ran", webui.Job{}, "scheduled"},
		{"succeeded", webui.Job{Recent: runs(webui.RunSucceeded, webui.RunMissed)}, "scheduled"},
		{"every fire missed", webui.Job{Recent: runs(webui.RunMissed, webui.RunMissed, webui.RunMissed)}, "missing"},
		{"missed while one waits", webui.Job{Recent: runs(webui.RunPending, webui.RunMissed)}, "missing"},
		{"missed then failed", webui.Job{Recent: runs(webui.RunMissed, webui.RunFailed)}, "failing"},
		{"skipped is not missed", webui.Job{Recent: []webui.Run{skipped}}, "scheduled"},
		{"failing", webui.Job{Recent: runs(webui.RunFailed, webui.RunFailed, webui.RunFailed, webui.RunSucceeded)}, "failing"},
		{"suspended wins", webui.Job{Suspended: true, Recent: runs(webui.RunFailed)}, "suspended"},
		{"a node failed in the wave", webui.Job{Nodes: "all", Recent: runs(webui.RunFailed, webui.RunFailed, webui.RunFailed),
			LastWave: &webui.Wave{Done: 3, Failed: 1}}, "partly-failing"},
		{"every node failed", webui.Job{Nodes: "all", Recent: runs(webui.RunFailed), LastWave: &webui.Wave{Failed: 2}}, "failing"},
		{"clean wave", webui.Job{Nodes: "all", Recent: runs(webui.RunSucceeded), LastWave: &webui.Wave{Done: 4}}, "scheduled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.job.Health(); got != tt.want {
				t.Errorf("Health() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHealthPages: a job that misses every fire reads "missing" on the
// jobs list and its page, not a green "scheduled"; a fanned-out job with a
// failed node reads "partly failing" and its last result sums up the
// wave; the overview counts the misses of the last 24 hours beside the
// failures, each missed instant of an event once.
func TestHealthPages(t *testing.T) {
	h := newHarness(t, webui.Config{})
	h.back.AddJob(webui.Job{Name: "never-opens", Schedule: "0 * * * *", Zone: "UTC", Command: "true", Gate: "never"}, nil)
	h.back.AddJob(webui.Job{Name: "patch", Schedule: "0 * * * *", Zone: "UTC", Command: "true", Nodes: "all"}, nil)
	at := demoNow.Add(-time.Hour).Truncate(time.Hour)
	for i := range 3 {
		h.back.AddRun(webui.Run{Job: "never-opens", ScheduledTime: at.Add(-time.Duration(i) * time.Hour), State: webui.RunMissed,
			Error: `schedule gate "never" did not open before the starting deadline`})
	}
	for _, n := range []struct{ node, state string }{{"db-1", webui.RunSucceeded}, {"db-2", webui.RunFailed}, {"db-3", webui.RunSucceeded}} {
		h.back.AddRun(webui.Run{Job: "patch", ScheduledTime: at, State: n.state, Node: n.node, Target: n.node, StartedAt: at, FinishedAt: at.Add(time.Second)})
	}
	h.back.AddEvent(webui.Event{Time: demoNow.Add(-time.Hour), Kind: "run.missed", Job: "never-opens", Message: "missed 3 scheduled run(s)", Count: 3})

	_, list := h.get("/jobs")
	row := func(job string) string {
		r := list[strings.Index(list, `data-job="`+job+`"`):]
		return r[:strings.Index(r, "</tr>")]
	}
	mustContain(t, row("never-opens"), `data-health="missing"`, ">missing</span>")
	mustContain(t, row("patch"), `data-health="partly-failing"`, ">partly failing</span>", `class="wave-result"`, "2/3 succeeded", `<span class="badge failed">1 failed</span>`)
	_, missing := h.get("/jobs?state=missing")
	mustContain(t, missing, `data-job="never-opens"`)
	if strings.Contains(missing, `data-job="patch"`) || strings.Contains(missing, `data-job="backup"`) {
		t.Error("the missing filter keeps jobs that run")
	}
	_, page := h.get("/jobs/never-opens")
	mustContain(t, page, `<span id="job-state" class="badge missed" data-health="missing"`)

	_, overview := h.get("/")
	card := overview[strings.Index(overview, `id="count-misses"`):]
	card = card[:strings.Index(card, "</a>")]
	missing = overview[strings.Index(overview, `id="missing"`):]
	missing = missing[:strings.Index(missing, "</section>")]
	mustContain(t, missing, `<li data-job="never-opens">`, "3 missed instants", `/events?job=never-opens&amp;kind=run.missed`)
	// The demo's own missed events count too; ours adds three.
	mustContain(t, card, "misses", "last 24 h")
	base := newHarness(t, webui.Config{})
	_, before := base.get("/")
	if got, was := cardNumber(t, overview, "count-misses"), cardNumber(t, before, "count-misses"); got != was+3 {
		t.Errorf("misses card reads %d, want the demo's %d plus 3", got, was)
	}
}

// cardNumber reads the number of the overview card with the given id.
func cardNumber(t *testing.T, body, id string) int {
	t.Helper()
	c := body[strings.Index(body, `id="`+id+`"`):]
	c = c[strings.Index(c, `<span class="n">`)+len(`<span class="n">`):]
	n := 0
	for _, ch := range c {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}
