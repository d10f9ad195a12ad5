package webui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/webui"
)

// testRunsAndNodesInBrowser checks in Chromium what issue 38 asked the UI
// to tell: node liveness on /cluster, the runs history with its filters
// and node column, "Runs" in the navigation, the confirmation before Run
// now (Cancel starts nothing), a job that misses every fire reading
// "missing", and the jobs list in natural order.
func testRunsAndNodesInBrowser(t *testing.T, b *browser) {
	base, back := startDemo(t, webui.Config{})
	now := time.Now()
	back.AddJob(webui.Job{Name: "never-opens", Schedule: "0 * * * *", Zone: "UTC", Command: "true", Gate: "never"}, nil)
	for i := range 3 {
		back.AddRun(webui.Run{Job: "never-opens", ScheduledTime: now.Add(-time.Duration(i+1) * time.Hour).Truncate(time.Hour), State: webui.RunMissed,
			Error: `schedule gate "never" did not open before the starting deadline`})
	}
	held := back.AddRun(webui.Run{Job: "never-opens", ScheduledTime: now.Truncate(time.Hour), State: webui.RunPending,
		Waiting: &webui.Waiting{Kind: "gate", Detail: `schedule gate "never" is closed`, Until: now.Add(26 * time.Hour)}})
	for _, n := range []string{"shard-10", "shard-2", "shard-1"} {
		back.AddJob(webui.Job{Name: n, Schedule: "@daily", Zone: "UTC", Command: "true"}, nil)
	}

	// The cluster page: the demo's node-c is late, and says so in words
	// and colour.
	b.run(t, "cluster", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/cluster"), chromedp.WaitVisible(`#nodes`))
	if got := eval[string](t, b, `document.querySelector("tr[data-node=node-c]").dataset.liveness`); got != "suspect" {
		t.Errorf("node-c is %q, want suspect", got)
	}
	colours := eval[[]string](t, b, `["node-a","node-c"].map(n => getComputedStyle(document.querySelector("tr[data-node="+n+"] td[data-label=Liveness] .badge")).color)`)
	if len(colours) != 2 || colours[0] == colours[1] {
		t.Errorf("alive and suspect badges share a colour: %v", colours)
	}

	// The runs history: the nav leads there; the state filter keeps only
	// finished runs; every row names its node.
	b.run(t, "runs", chromedp.Click(`header nav a[href="/runs"]`), chromedp.WaitVisible(`#runs`))
	if cur := eval[string](t, b, `document.querySelector('header nav a[aria-current=page]').textContent`); cur != "Runs" {
		t.Errorf("the nav marks %q, want Runs", cur)
	}
	b.run(t, "filter", chromedp.SetValue(`form.filters select[name=state]`, "finished"), chromedp.Submit(`form.filters`))
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(eval[string](t, b, "location.search"), "state=finished"); {
		if time.Now().After(deadline) {
			t.Fatal("the filter form did not load the finished runs")
		}
		time.Sleep(100 * time.Millisecond) // the browser is loading the page the form asked for
	}
	b.run(t, "filtered", chromedp.WaitVisible(`#runs`))
	states := eval[[]string](t, b, `[...document.querySelectorAll("#runs tbody tr")].map(tr => tr.dataset.state)`)
	if len(states) == 0 {
		t.Fatal("no finished runs listed")
	}
	for _, s := range states {
		if s == webui.RunPending || s == webui.RunRunning {
			t.Errorf("the finished runs list a %s run", s)
		}
	}
	if n := eval[int](t, b, `document.querySelectorAll("#runs tbody td[data-label=Node]").length`); n != len(states) {
		t.Errorf("%d node cells for %d runs", n, len(states))
	}

	// Run now asks first; Cancel goes back and starts nothing.
	before, _, err := back.Runs(t.Context(), webui.RunQuery{Job: "report", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs`),
		chromedp.Click(`tr[data-job=report] a.trigger`), chromedp.WaitVisible(`#confirm`))
	b.run(t, "cancel", chromedp.Click(`#confirm-cancel`), chromedp.WaitVisible(`#job-name`))
	after, _, _ := back.Runs(t.Context(), webui.RunQuery{Job: "report", Limit: 1})
	if len(after) != len(before) || (len(after) > 0 && after[0].ID != before[0].ID) {
		t.Error("cancelling Run now started a run")
	}

	// A held run's page says why it waits, and until when.
	b.run(t, "held run", chromedp.Navigate(fmt.Sprintf("%s/runs/%d", base, held.ID)), chromedp.WaitVisible(`#run-waiting`))
	if txt := eval[string](t, b, `document.querySelector("#run-waiting").innerText`); !strings.Contains(txt, `schedule gate "never" is closed, until `) || !strings.Contains(txt, "in 1d") {
		t.Errorf("the held run's Waiting line reads %q", txt)
	}

	// Health and order on the jobs list.
	b.run(t, "jobs again", chromedp.Navigate(base+"/jobs?q=never-opens"), chromedp.WaitVisible(`#jobs`))
	if txt := eval[string](t, b, `document.querySelector("tr[data-job=never-opens] [data-health]").textContent`); txt != "missing" {
		t.Errorf("a job that misses every fire reads %q", txt)
	}
	b.run(t, "shards", chromedp.Navigate(base+"/jobs?q=shard-"), chromedp.WaitVisible(`#jobs`))
	order := eval[[]string](t, b, `[...document.querySelectorAll("#jobs tbody tr")].map(tr => tr.dataset.job)`)
	if strings.Join(order, " ") != "shard-1 shard-2 shard-10" {
		t.Errorf("jobs order %v, want natural order", order)
	}
	b.run(t, "reverse", chromedp.Click(`#sort-name`), chromedp.WaitVisible(`th[aria-sort=descending]`))
	order = eval[[]string](t, b, `[...document.querySelectorAll("#jobs tbody tr")].map(tr => tr.dataset.job)`)
	if strings.Join(order, " ") != "shard-10 shard-2 shard-1" {
		t.Errorf("jobs order after sorting by name the other way %v", order)
	}
	b.checkConsole(t)
}
