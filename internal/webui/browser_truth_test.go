package webui_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/webui"
)

// apiCall sends one API request to a daemon started by startServe and
// returns the status and body.
func apiCall(t *testing.T, base, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+browserToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// testTruthInBrowser checks on a real `almanac serve --demo` that named
// windows gate jobs and that the pages agree with the scheduler: a waiting
// run is not running, run states have one palette, an unknown event kind
// is said to be unknown, the active runs card lists active runs, the jobs
// list counts, filters and pages back, and a Forbid job's overlapped fires
// say they will be skipped.
func testTruthInBrowser(t *testing.T, b *browser) {
	base := startServe(t)
	b.login(t, base)

	// A: the demo's named windows are gates. One that names nothing is
	// refused with the known gates.
	code, body := apiCall(t, base, "PUT", "/api/v1/jobs/nowhere", `{"cron":"* * * * *","command":["true"],"schedule":"no-such-gate"}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "weekend-maintenance") || !strings.Contains(body, "nightly") {
		t.Fatalf("PUT with an unknown gate: %d %s", code, body)
	}
	code, body = apiCall(t, base, "GET", "/api/v1/windows", "")
	if code != http.StatusOK {
		t.Fatalf("windows: %d %s", code, body)
	}
	var ws struct {
		Items []struct {
			Name   string `json:"name"`
			Inside bool   `json:"inside"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &ws); err != nil {
		t.Fatalf("windows: %v: %s", err, body)
	}
	closed := ""
	for _, w := range ws.Items {
		// No starting deadline: a run due while the window is closed waits
		// for it (with one, it would be missed at once, the window opening
		// after the deadline).
		spec := fmt.Sprintf(`{"cron":"* * * * *","command":["true"],"schedule":%q}`, w.Name)
		if code, body := apiCall(t, base, "PUT", "/api/v1/jobs/gated-"+w.Name, spec); code != http.StatusCreated {
			t.Fatalf("PUT gated by %s: %d %s", w.Name, code, body)
		}
		if !w.Inside && (w.Name == "weekend-maintenance" || w.Name == "nightly") {
			closed = w.Name
		}
	}
	b.run(t, "gated job", chromedp.Navigate(base+"/jobs/gated-weekend-maintenance"), chromedp.WaitVisible(`#job-fires li`))
	if txt := eval[string](t, b, `document.querySelector("main").innerText`); strings.Contains(txt, "does not exist") {
		t.Errorf("the job gated by a named window says its gate does not exist:\n%s", txt)
	}

	// B and the Forbid overlap need the next minute: slow-sync (Forbid,
	// 90 s runs every minute) runs, and the job gated by a closed window
	// has a run waiting for it.
	deadline := time.Now().Add(90 * time.Second)
	for {
		b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs`))
		slow := eval[string](t, b, `document.querySelector("tr[data-job=slow-sync]").innerText`)
		waiting := closed == "" || eval[bool](t, b, fmt.Sprintf(`document.querySelector("tr[data-job=gated-%s]").innerText.includes("1 waiting")`, closed))
		if strings.Contains(slow, "1 running") && waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s: slow-sync row %q, a run waiting for %q: %v", slow, closed, waiting)
		}
		time.Sleep(500 * time.Millisecond) // polling the daemon, not waiting for time to pass
	}
	if closed != "" {
		row := eval[string](t, b, fmt.Sprintf(`document.querySelector("tr[data-job=gated-%s] .status").innerText`, closed))
		if strings.Contains(row, "running") {
			t.Errorf("a job whose only run waits for its gate reads %q", row)
		}
		b.run(t, "waiting", chromedp.Navigate(base+"/jobs?state=waiting"), chromedp.WaitVisible(`#jobs-count`))
		if n := eval[int](t, b, fmt.Sprintf(`document.querySelectorAll("tr[data-job=gated-%s]").length`, closed)); n != 1 {
			t.Errorf("state=waiting does not list gated-%s", closed)
		}
	}
	b.run(t, "slow-sync", chromedp.Navigate(base+"/jobs/slow-sync"), chromedp.WaitVisible(`#job-fires li`))
	if txt := eval[string](t, b, `document.querySelector("#job-fires li").innerText`); !strings.Contains(txt, "skipped if still running") {
		t.Errorf("slow-sync's next fire while its run runs: %q", txt)
	}

	// C: one palette, one legend.
	b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#run-legend`))
	colours := eval[map[string][]string](t, b, `(() => {
		const out = {};
		for (const s of ["succeeded", "failed", "running", "pending", "missed"]) {
			const box = document.createElement("div");
			box.innerHTML = '<span class="badge ' + s + '">x</span><span class="strip"><span class="cell ' + s + '"></span></span><span class="dot ' + s + '"></span>' +
				'<svg class="timeline"><g class="run ' + s + '"><circle r="3"></circle></g></svg>';
			document.body.appendChild(box);
			out[s] = [getComputedStyle(box.querySelector(".badge")).color, getComputedStyle(box.querySelector(".cell")).backgroundColor,
				getComputedStyle(box.querySelector(".dot")).backgroundColor, getComputedStyle(box.querySelector("circle")).fill];
			box.remove();
		}
		return out;
	})()`)
	seen := map[string]string{}
	for state, cs := range colours {
		for _, c := range cs[1:] {
			if c != cs[0] {
				t.Errorf("%s: badge %s, strip, legend and timeline %v: not one colour", state, cs[0], cs[1:])
				break
			}
		}
		if other, dup := seen[cs[0]]; dup {
			t.Errorf("%s and %s share the colour %s", state, other, cs[0])
		}
		seen[cs[0]] = state
	}

	// E: an unknown kind is said to be unknown.
	b.run(t, "events", chromedp.Navigate(base+"/events?kind=bogus"), chromedp.WaitVisible(`#events-error`))
	if txt := eval[string](t, b, `document.querySelector("#events-error").innerText`); !strings.Contains(txt, `Unknown event kind "bogus"`) {
		t.Errorf("events error: %q", txt)
	}
	b.expectConsole(t, "/events?kind=bogus") // chromium logs the 400 it was meant to get

	// G: the active runs card lists the active runs.
	b.run(t, "overview", chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#count-active`), chromedp.Click(`#count-active`), chromedp.WaitVisible(`main h1`))
	if loc := eval[string](t, b, "location.pathname"); loc != "/runs" {
		t.Errorf("the active runs card leads to %s", loc)
	}
	if n := eval[int](t, b, `document.querySelectorAll("#runs tr[data-state=running]").length`); n == 0 {
		t.Error("the active runs list shows no running run while slow-sync runs")
	}

	// H: the jobs list counts, filters by state and pages.
	b.run(t, "suspended", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#job-state`),
		chromedp.SetValue(`#job-state`, "running"), chromedp.Submit(`form.filter`), chromedp.WaitVisible(`#jobs-count`))
	if q := eval[string](t, b, "location.search"); !strings.Contains(q, "state=running") {
		t.Errorf("the state filter submitted %q", q)
	}
	if txt := eval[string](t, b, `document.querySelector("#jobs-count").innerText`); !strings.Contains(txt, "matching") {
		t.Errorf("jobs count %q", txt)
	}
	if n := eval[int](t, b, `document.querySelectorAll("tr[data-job=slow-sync]").length`); n != 1 {
		t.Error("state=running does not list slow-sync")
	}
	b.checkConsole(t)
}

// testTruthOnDemoInBrowser checks, over the demo backend, what a daemon
// shows only after minutes: a job whose alerts are not delivered (D) and
// a failed run that was pruned (F).
func testTruthOnDemoInBrowser(t *testing.T, b *browser) {
	base, back := startDemo(t, webui.Config{})
	back.AddEvent(webui.Event{Time: time.Now(), Kind: "run.failed", Job: "report", RunID: 999999, Message: "exit status 9"})
	b.run(t, "overview", chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#undelivered`))
	if txt := eval[string](t, b, `document.querySelector("#undelivered li[data-job=report]").innerText`); !strings.Contains(txt, "502 Bad Gateway") {
		t.Errorf("undelivered alerts: %q", txt)
	}
	if href := eval[string](t, b, `document.querySelector("#failing li[data-job=report] a[href*='kind=run.failed']").getAttribute("href")`); !strings.Contains(href, "job=report") {
		t.Errorf("failing link %q", href)
	}
	if n := eval[int](t, b, `document.querySelectorAll("#failing a[href='/runs/999999']").length`); n != 0 {
		t.Error("the overview links to a pruned run")
	}
	b.run(t, "job", chromedp.Navigate(base+"/jobs/report"), chromedp.WaitVisible(`#job-undelivered`))
	b.checkConsole(t)
}

// expectConsole forgets the console errors about url, which the test
// asked for (a page answered with an error status on purpose).
func (b *browser) expectConsole(t *testing.T, url string) {
	t.Helper()
	eval[int](t, b, "1") // a round trip, so earlier messages have arrived
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.errors[:0]
	for _, e := range b.errors {
		if !strings.Contains(e, url) {
			kept = append(kept, e)
		}
	}
	b.errors = kept
}
