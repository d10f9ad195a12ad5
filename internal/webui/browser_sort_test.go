package webui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/webui"
)

// testJobsSortInBrowser clicks the jobs list's column headers in
// Chromium: next fire, then again for its reverse, then status; the
// header sorted by says so (aria-sort), and the filter form keeps the
// order.
func testJobsSortInBrowser(t *testing.T, b *browser) {
	base, back := startDemo(t, webui.Config{})
	now := time.Now().UTC()
	// sort-a fires last, sort-c first; sort-b's latest run failed.
	for i, n := range []string{"sort-a", "sort-b", "sort-c"} {
		at := now.Add(time.Duration(3-i) * time.Hour).Sub(now.Truncate(24 * time.Hour))
		back.AddJob(webui.Job{Name: n, Schedule: "daily", Zone: "UTC", Command: "true"}, dailyAt(at))
	}
	back.AddRun(webui.Run{Job: "sort-b", ScheduledTime: now.Add(-time.Hour), State: webui.RunFailed, StartedAt: now.Add(-time.Hour),
		FinishedAt: now.Add(-time.Hour + time.Second), Error: "exit status 1"})
	rows := func() string {
		return strings.Join(eval[[]string](t, b, `[...document.querySelectorAll("#jobs tbody tr")].map(tr => tr.dataset.job)`), " ")
	}
	sorted := func(col string) string {
		return eval[string](t, b, `(document.querySelector("#sort-`+col+`").closest("th").getAttribute("aria-sort") || "")`)
	}

	b.run(t, "jobs", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/jobs?q=sort-"), chromedp.WaitVisible(`#jobs`))
	if got := rows(); got != "sort-a sort-b sort-c" {
		t.Errorf("by name: %s", got)
	}
	b.run(t, "by next fire", chromedp.Click(`#sort-next`), chromedp.WaitVisible(`th[aria-sort=ascending] #sort-next`))
	if got := rows(); got != "sort-c sort-b sort-a" {
		t.Errorf("by next fire: %s", got)
	}
	if s := sorted("name"); s != "" {
		t.Errorf("the name header still says %q", s)
	}
	b.run(t, "by next fire, latest first", chromedp.Click(`#sort-next`), chromedp.WaitVisible(`th[aria-sort=descending] #sort-next`))
	if got := rows(); got != "sort-a sort-b sort-c" {
		t.Errorf("by next fire, reversed: %s", got)
	}
	b.run(t, "by status", chromedp.Click(`#sort-status`), chromedp.WaitVisible(`th[aria-sort=ascending] #sort-status`))
	if got := rows(); got != "sort-b sort-a sort-c" {
		t.Errorf("by status (failing first): %s", got)
	}
	if q := eval[string](t, b, "location.search"); !strings.Contains(q, "q=sort-") || !strings.Contains(q, "sort=status") {
		t.Errorf("the header's link lost the filter or the order: %s", q)
	}
	// Filtering again keeps the order.
	b.run(t, "filter", chromedp.SetValue(`#job-filter`, "sort-a"), chromedp.Submit(`form.filter`))
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(eval[string](t, b, "location.search"), "q=sort-a"); {
		if time.Now().After(deadline) {
			t.Fatal("the filter form did not load")
		}
		time.Sleep(100 * time.Millisecond) // the browser is loading the page the form asked for
	}
	b.run(t, "filtered", chromedp.WaitVisible(`th[aria-sort=ascending] #sort-status`))
	if q := eval[string](t, b, "location.search"); !strings.Contains(q, "sort=status") {
		t.Errorf("filtering lost the order: %s", q)
	}
	b.checkConsole(t)
}
