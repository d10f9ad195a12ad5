package webui_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/servetest"
	"github.com/almanac-sh/almanac/internal/testenv"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }

// The browser tests drive Debian's headless chromium (installed by
// scripts/test.d/chromium.sh) against the UI over the demo backend.

// chromiumPath finds the browser, or stops the test as package testenv
// says when there is none.
func chromiumPath(t *testing.T) string {
	t.Helper()
	return testenv.LookPath(t, "chromium", "scripts/test.d/chromium.sh installs it (apt-get install chromium)",
		os.Getenv("ALMANAC_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser")
}

// browser is one headless chromium with a console watcher.
type browser struct {
	ctx context.Context

	mu     sync.Mutex
	errors []string
}

// newBrowser starts chromium for the test; it is closed at cleanup.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// Nothing outside the test server may be reached: every request goes to a
		// closed port, except loopback, which chromium never proxies.
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	b := &browser{ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// run runs actions with a time limit, failing the test on error.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// checkConsole fails the test if the pages wrote errors to the console
// (script errors, failed loads, Content-Security-Policy violations).
func (b *browser) checkConsole(t *testing.T) {
	t.Helper()
	eval[int](t, b, "1") // a round trip, so earlier messages have arrived
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		t.Errorf("console: %s", e)
	}
	b.errors = nil
}

// startServe runs `almanac serve --demo` with a fresh data directory on a
// free loopback port and returns its URL; the daemon is stopped at cleanup.
func startServe(t *testing.T, extra ...string) string {
	t.Helper()
	bin := servetest.Binary(t)
	args := append([]string{"serve", "--demo", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--log-format", "json", "--grace", "1s"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+browserToken)
	logs := &servetest.Log{}
	pr, pw := io.Pipe()
	out := io.MultiWriter(logs, pw)
	cmd.Stderr, cmd.Stdout = out, out
	cmd.WaitDelay = 5 * time.Second // a run's process may hold the pipes
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		pw.Close()
		close(done)
	}()
	urlc := servetest.ServingURL(pr)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	select {
	case u, ok := <-urlc:
		if ok {
			return u
		}
		<-done
		t.Fatalf("almanac serve exited before serving:\n%s", logs.String())
	case <-done:
		t.Fatalf("almanac serve exited before serving:\n%s", logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("almanac serve did not report serving within 60 s")
	}
	return ""
}

// browserToken is the token of the daemons startServe starts (unless the
// test passes its own --token).
const browserToken = "browser-test-token"

// login signs the browser in to a daemon started by startServe, through
// the login form as a user would.
func (b *browser) login(t *testing.T, base string) {
	t.Helper()
	// A session from an earlier daemon with the same token is still valid:
	// the login page then sends the browser straight to the overview.
	b.run(t, "open the login page", chromedp.Navigate(base+"/login"), chromedp.WaitVisible(`form.login, #count-jobs`))
	if eval[bool](t, b, `document.querySelector("form.login") !== null`) {
		b.run(t, "log in", chromedp.SetValue(`input[name=token]`, browserToken), chromedp.Submit(`form.login`), chromedp.WaitVisible(`#count-jobs`))
	}
}

// startDemo serves the UI over webuitest's demo backend on a free loopback
// port, for pages whose demo data the daemon cannot produce at a fixed
// instant (a week of runs, failed runs, several kinds of windows).
func startDemo(t *testing.T, cfg webui.Config) (string, *webuitest.Backend) {
	t.Helper()
	back, _ := cfg.Backend.(*webuitest.Backend)
	if back == nil {
		back = webuitest.Demo(clock.Real{})
		cfg.Backend = back
	}
	h, err := webui.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, back
}

// pageCheck is a page and selectors that must each match an element.
type pageCheck struct {
	path string
	sel  []string
}

// loadPages loads each page and checks its elements and that htmx loaded.
func loadPages(t *testing.T, b *browser, base string, pages []pageCheck) {
	t.Helper()
	for _, p := range pages {
		b.run(t, p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible("main h1"))
		for _, sel := range p.sel {
			if n := eval[int](t, b, fmt.Sprintf("document.querySelectorAll(%q).length", sel)); n == 0 {
				t.Errorf("%s: nothing matches %s", p.path, sel)
			}
		}
		if eval[bool](t, b, "typeof htmx === 'undefined'") {
			t.Errorf("%s: htmx did not load", p.path)
		}
	}
	b.checkConsole(t)
}

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests start chromium and the daemon; skipped with -short")
	}
	b := newBrowser(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *browser)
	}{
		{"daemon", testDaemonInBrowser},
		{"truth", testTruthInBrowser},
		{"truth on the demo", testTruthOnDemoInBrowser},
		{"calendars", testCalendarsInBrowser},
		{"login", testLoginInBrowser},
		{"agent", testAgentInBrowser},
		{"refresh", testRefreshInBrowser},
		{"fleet", testFleetInBrowser},
		{"runs and nodes", testRunsAndNodesInBrowser},
		{"roles", testRolesInBrowser},
		{"jobs sort", testJobsSortInBrowser},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b.reset(t)
			tt.test(t, b)
		})
	}
}

// reset leaves the page of the previous subtest, whose daemon has been
// stopped, and forgets what it wrote to the console: a late request of
// that page (its favicon, an htmx poll) fails against the closed port and
// must not count against the next daemon.
func (b *browser) reset(t *testing.T) {
	t.Helper()
	b.run(t, "leave the previous page", chromedp.Navigate("about:blank"))
	eval[int](t, b, "1")
	b.mu.Lock()
	b.errors = nil
	b.mu.Unlock()
}

// testDaemonInBrowser drives the UI of a real `almanac serve --demo`.
func testDaemonInBrowser(t *testing.T, b *browser) {
	base := startServe(t)
	b.login(t, base)

	t.Run("every page loads", func(t *testing.T) {
		loadPages(t, b, base, []pageCheck{
			{"/", []string{"#count-jobs", "#next-fires tbody tr", "#windows-now li[data-window=nightly]"}},
			{"/jobs", []string{"#jobs tbody tr[data-job=heartbeat]", "tr[data-job=nightly-backup] button.suspend", "tr[data-job=nightly-backup] .reading"}},
			{"/jobs/nightly-backup", []string{"svg.timeline circle.fire", "#job-fires li", "#job-spec"}},
			{"/windows", []string{"article[data-window=weekend-maintenance] svg.week g.block", "article[data-window=nightly] svg.week g.now"}},
			{"/resources", []string{"#resources tbody tr", "article.resource svg.week g.marker.start", "ul.findings.errors"}},
			{"/events", []string{"#events tbody tr", "form.filters"}},
			{"/cluster", []string{"#nodes tbody tr[data-leader=true]", "#cluster-summary", "#nodes tbody tr[data-node=demo-web-1]"}},
			{"/applies", []string{"#agent-status"}},
			{"/jobs/rolling-patch", []string{"#fleet", "#job-nodes", "button.wave-pause"}},
		})
	})

	t.Run("demo agent", func(t *testing.T) {
		// With no --manifests, serve --demo runs agent mode on its own
		// manifest: the start-up apply is listed and opens as a report.
		deadline := time.Now().Add(30 * time.Second)
		for {
			b.run(t, "applies", chromedp.Navigate(base+"/applies"), chromedp.WaitVisible("#agent-status"))
			if eval[int](t, b, `document.querySelectorAll("#applies tbody tr").length`) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no apply report listed within 30 s")
			}
			time.Sleep(200 * time.Millisecond) // polling the daemon, not waiting for time to pass
		}
		if n := eval[int](t, b, `document.querySelectorAll("#agent-off").length`); n != 0 {
			t.Error("the Applies page says agent mode is off")
		}
		b.run(t, "report", chromedp.Click(`#applies tbody tr:last-child a`), chromedp.WaitVisible(`#apply-meta`))
		if trig := eval[string](t, b, `document.querySelector("#apply-trigger").textContent`); trig != "startup" {
			t.Errorf("trigger %q, want startup", trig)
		}
		for _, sel := range []string{`#apply-resources tr[data-ref="Notify[demo-hello]"][data-status=changed]`, `#apply-resources tr[data-ref="Exec[demo-reload]"][data-status=changed]`} {
			if n := eval[int](t, b, fmt.Sprintf("document.querySelectorAll(%q).length", sel)); n == 0 {
				t.Errorf("report page: nothing matches %s", sel)
			}
		}
		b.checkConsole(t)
	})

	t.Run("gate-aware upcoming fires", func(t *testing.T) {
		// demo-midday-report fires at 12:05 UTC every day; its gate is open
		// 12:00-12:30 UTC on weekdays and its deadline is ten minutes, so
		// its weekday fires run at their time and its weekend ones will be
		// missed. The agent's start-up apply (above) created it.
		b.run(t, "job", chromedp.Navigate(base+"/jobs/demo-midday-report"), chromedp.WaitVisible(`#job-fires li`))
		fires := eval[[]map[string]string](t, b, `[...document.querySelectorAll("#job-fires li")].map(li => ({outlook: li.dataset.outlook, at: li.querySelector("time").getAttribute("datetime"), text: li.innerText}))`)
		if len(fires) != 20 {
			t.Fatalf("%d fires listed, want 20", len(fires))
		}
		drawn := 0 // weekend fires inside the timeline's next two days
		for _, f := range fires {
			at, err := time.Parse(time.RFC3339, f["at"])
			if err != nil {
				t.Fatal(err)
			}
			weekend := at.Weekday() == time.Saturday || at.Weekday() == time.Sunday
			want, text := "on-time", "at its time"
			if weekend {
				want, text = "will-miss", "will be missed"
				if time.Until(at) < 47*time.Hour {
					drawn++
				}
			}
			if f["outlook"] != want || !strings.Contains(f["text"], text) {
				t.Errorf("fire at %s (%s): outlook %q, text %q; want %q", at, at.Weekday(), f["outlook"], f["text"], want)
			}
		}
		if n := eval[int](t, b, `document.querySelectorAll("svg.timeline .fire.will-miss").length`); n != drawn {
			t.Errorf("the timeline marks %d fires as missed, want %d", n, drawn)
		}
		b.run(t, "overview", chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#next-fires tbody tr`))
		if n := eval[int](t, b, `[...document.querySelectorAll("#next-fires tbody tr")].filter(r => !r.dataset.outlook).length`); n != 0 {
			t.Errorf("%d overview fires say nothing of their gate", n)
		}
		b.checkConsole(t)
	})

	t.Run("named windows", func(t *testing.T) {
		// serve --demo defines weekend-maintenance (Sat-Sun, one block),
		// nightly (01:00-04:00 Berlin, one block a day) and, in its agent
		// manifest, the schedule demo-midday (12:00-12:30 UTC, Mon-Fri).
		b.run(t, "windows", chromedp.Navigate(base+"/windows"), chromedp.WaitVisible(`svg.week`))
		for name, want := range map[string]int{"weekend-maintenance": 1, "nightly": 7, "demo-midday": 5} {
			got := eval[int](t, b, fmt.Sprintf(`document.querySelectorAll('article[data-window=%q] svg.week g.block').length`, name))
			if got != want {
				t.Errorf("%s: %d blocks drawn, want %d", name, got, want)
			}
			sized := eval[bool](t, b, fmt.Sprintf(`[...document.querySelectorAll('article[data-window=%q] svg.week g.block rect')].every(r => { const b = r.getBoundingClientRect(); return b.width > 10 && b.height > 1 })`, name))
			if !sized {
				t.Errorf("%s: a block has no size on screen", name)
			}
		}
		if n := eval[int](t, b, `document.querySelectorAll("article.window").length`); n != 3 {
			t.Errorf("%d windows, want the demo's 3", n)
		}
		if meta := eval[string](t, b, `document.querySelector("article[data-window=demo-midday] .meta").textContent`); !strings.Contains(meta, "schedule") {
			t.Errorf("demo-midday's meta line %q lacks its kind", meta)
		}
		if zone := eval[string](t, b, `document.querySelector("article[data-window=nightly] .meta").textContent`); !strings.Contains(zone, "Europe/Berlin") {
			t.Errorf("nightly's meta line %q lacks its zone", zone)
		}
		b.checkConsole(t)
	})

	t.Run("calendar labels readable", func(t *testing.T) {
		// The day and hour labels are HTML beside the stretched SVG, so
		// they keep a readable size on a desktop and on a phone.
		for _, width := range []int64{1280, 390} {
			b.run(t, fmt.Sprint("windows at ", width), chromedp.EmulateViewport(width, 900), chromedp.Navigate(base+"/windows"), chromedp.WaitVisible(`.weekcal`))
			sizes := eval[[]float64](t, b, `[...document.querySelectorAll(".weekcal .wk-day, .weekcal .wk-day small, .weekcal .wk-hours span")].map(e => parseFloat(getComputedStyle(e).fontSize))`)
			if len(sizes) == 0 {
				t.Fatalf("%d px: no calendar labels", width)
			}
			for _, px := range sizes {
				if px < 11 {
					t.Errorf("%d px wide: a calendar label is %.1f px, want at least 11", width, px)
					break
				}
			}
			if n := eval[int](t, b, `document.querySelectorAll("article[data-window=nightly] .wk-day small").length`); n != 7 {
				t.Errorf("%d px: %d day columns carry a date, want 7", width, n)
			}
			if n := eval[int](t, b, `document.querySelectorAll("article[data-window=nightly] svg.week line.hour").length`); n != 23 {
				t.Errorf("%d px: %d hour lines, want 23", width, n)
			}
			// The labels line up with the drawing: 12:00 sits half-way down.
			off := eval[float64](t, b, `(() => { const a = document.querySelector("article[data-window=nightly]"); const s = a.querySelector("svg.week").getBoundingClientRect(); const l = [...a.querySelectorAll(".wk-hours span")].find(e => e.textContent == "12:00").getBoundingClientRect(); return Math.abs((l.top + l.height/2) - (s.top + s.height/2)) })()`)
			if off > 2 {
				t.Errorf("%d px: the 12:00 label is %.1f px off the calendar's middle", width, off)
			}
		}
		b.run(t, "reset", chromedp.EmulateReset())
		gates := eval[string](t, b, `(document.querySelector("article[data-window=demo-midday] p.gates") || {}).textContent || ""`)
		if !strings.Contains(gates, "demo-midday-report") {
			t.Errorf("demo-midday names the jobs it gates as %q, want demo-midday-report among them", gates)
		}
		b.checkConsole(t)
	})

	t.Run("suspend from the jobs table", func(t *testing.T) {
		b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`tr[data-job=office-hours-report] button.suspend`))
		eval[int](t, b, "window.notReloaded = 1") // an htmx swap keeps this; a reload loses it
		b.run(t, "suspend", chromedp.Click(`tr[data-job=office-hours-report] button.suspend`),
			chromedp.WaitVisible(`tr[data-job=office-hours-report][data-suspended=true] button.resume`))
		if !eval[bool](t, b, "window.notReloaded === 1") {
			t.Error("the page reloaded instead of swapping the row")
		}
		// The daemon recorded it: a fresh load shows the job suspended.
		b.run(t, "reload", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`tr[data-job=office-hours-report][data-suspended=true]`))
		b.run(t, "resume", chromedp.Click(`tr[data-job=office-hours-report] button.resume`),
			chromedp.WaitVisible(`tr[data-job=office-hours-report][data-suspended=false] button.suspend`))
		b.checkConsole(t)
	})

	t.Run("suspend from the job page", func(t *testing.T) {
		b.run(t, "job", chromedp.Navigate(base+"/jobs/nightly-backup"), chromedp.WaitVisible(`button.suspend`),
			chromedp.Click(`button.suspend`), chromedp.WaitVisible(`#job-state.suspended`), chromedp.WaitVisible(`p.notice`))
		if n := eval[int](t, b, "document.querySelectorAll('#job-fires li').length"); n != 0 {
			t.Errorf("a suspended job lists %d fires", n)
		}
		b.run(t, "events", chromedp.Navigate(base+"/events?job=nightly-backup&kind=job.suspended"), chromedp.WaitVisible(`#events`))
		if n := eval[int](t, b, "document.querySelectorAll('#events tbody tr').length"); n != 1 {
			t.Errorf("%d job.suspended events of nightly-backup, want 1", n)
		}
		b.run(t, "resume", chromedp.Navigate(base+"/jobs/nightly-backup"), chromedp.WaitVisible(`button.resume`),
			chromedp.Click(`button.resume`), chromedp.WaitVisible(`#job-state.ok`))
		if n := eval[int](t, b, "document.querySelectorAll('#job-fires li').length"); n != 20 {
			t.Errorf("resumed job lists %d fires, want 20", n)
		}
		b.checkConsole(t)
	})

	t.Run("trigger, watch the run finish, open its log", func(t *testing.T) {
		b.run(t, "trigger", chromedp.Navigate(base+"/jobs/nightly-backup"), chromedp.WaitVisible(`a.trigger`),
			chromedp.Click(`a.trigger`), chromedp.WaitVisible(`#confirm`))
		if q := eval[string](t, b, `document.querySelector("#confirm-question").textContent`); !strings.Contains(q, "manual run of nightly-backup") {
			t.Errorf("Run now asks %q", q)
		}
		b.run(t, "confirm", chromedp.Click(`#confirm`), chromedp.WaitVisible(`#live`))
		runPath := eval[string](t, b, "location.pathname")
		// The demo's backup runs for two seconds; htmx refreshes the live
		// section until the run has finished.
		b.run(t, "finish", chromedp.WaitVisible(`#live[data-state=succeeded]`))
		if out := eval[string](t, b, `document.querySelector("#run-output").textContent`); !strings.Contains(out, "backed up") {
			t.Errorf("output = %q", out)
		}
		if code := eval[string](t, b, `document.querySelector("#run-exit").textContent`); code != "0" {
			t.Errorf("exit code %q, want 0", code)
		}
		if eval[bool](t, b, `document.querySelector("#live").hasAttribute("hx-trigger")`) {
			t.Error("a finished run still polls")
		}
		b.run(t, "log", chromedp.Click(`#live h2 a`), chromedp.WaitReady(`body`))
		if loc := eval[string](t, b, "location.pathname"); loc != runPath+"/log" {
			t.Fatalf("at %s, want %s/log", loc, runPath)
		}
		if txt := eval[string](t, b, "document.body.innerText"); txt != "backing up\nbacked up" && txt != "backing up\nbacked up\n" {
			t.Errorf("log text = %q", txt)
		}
		b.checkConsole(t)
	})
}

// testCalendarsInBrowser checks the weekly calendars and the layout on a
// phone over the demo backend.
func testCalendarsInBrowser(t *testing.T, b *browser) {
	base, _ := startDemo(t, webui.Config{})
	loadPages(t, b, base, []pageCheck{
		{"/", []string{"#count-jobs", "#next-fires tbody tr", "#windows-now li"}},
		{"/jobs/backup", []string{"svg.timeline a.run.failed", "#job-fires li", "#runs a.log"}},
		{"/runs/1", []string{"#run-output", "#run-meta"}},
		{"/windows", []string{"article[data-window=business-hours] svg.week g.block", "svg.week g.now"}},
		{"/resources", []string{"#resources tbody tr", "article.resource svg.week g.marker.start", "ul.findings.errors"}},
	})

	t.Run("window blocks", func(t *testing.T) {
		b.run(t, "windows", chromedp.Navigate(base+"/windows"), chromedp.WaitVisible(`svg.week`))
		for name, want := range webuitest.DemoWindowBlocks {
			got := eval[int](t, b, fmt.Sprintf(`document.querySelectorAll('article[data-window=%q] svg.week g.block').length`, name))
			if got != want {
				t.Errorf("%s: %d blocks drawn, want %d", name, got, want)
			}
			// Every block is painted: it has a size on the screen.
			sized := eval[bool](t, b, fmt.Sprintf(`[...document.querySelectorAll('article[data-window=%q] svg.week g.block rect')].every(r => { const b = r.getBoundingClientRect(); return b.width > 10 && b.height > 1 })`, name))
			if !sized {
				t.Errorf("%s: a block has no size on screen", name)
			}
		}
		if n := eval[int](t, b, `document.querySelectorAll("article.window").length`); n != webuitest.DemoWindows {
			t.Errorf("%d windows, want %d", n, webuitest.DemoWindows)
		}
		b.checkConsole(t)
	})

	t.Run("resource calendars", func(t *testing.T) {
		b.run(t, "resources", chromedp.Navigate(base+"/resources"), chromedp.WaitVisible(`svg.week`))
		counts := eval[map[string]int](t, b, `Object.fromEntries([...document.querySelectorAll("article.resource")].map(a => [a.dataset.resource, a.querySelectorAll("svg.week g.block").length]))`)
		if len(counts) != webuitest.DemoResources || counts["demo-web-1"] != 5 || counts["demo-batch-1"] != 5 || counts["demo-db-1"] != 0 {
			t.Errorf("running periods per resource = %v", counts)
		}
		b.checkConsole(t)
	})

	t.Run("event filter", func(t *testing.T) {
		b.run(t, "events", chromedp.Navigate(base+"/events"), chromedp.WaitVisible(`form.filters`),
			chromedp.SetValue(`input[name=job]`, "backup"), chromedp.SetValue(`input[name=kind]`, "run.failed"),
			chromedp.Submit(`form.filters`), chromedp.WaitVisible(`a[href="/events"]`))
		rows := eval[[]string](t, b, `[...document.querySelectorAll("#events tbody tr")].map(r => r.innerText)`)
		if len(rows) != 1 || !strings.Contains(rows[0], "run.failed") || !strings.Contains(rows[0], "backup") {
			t.Errorf("filtered rows = %q", rows)
		}
		b.checkConsole(t)
	})

	t.Run("phone width", func(t *testing.T) {
		for _, p := range []string{"/", "/jobs", "/jobs/backup", "/jobs/" + webuitest.DemoFanOutJob, "/runs/1", "/windows", "/resources", "/events", "/cluster", "/applies", "/applies/1"} {
			b.run(t, p, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(base+p), chromedp.WaitVisible("main h1"))
			// Wide tables scroll inside their box; the page itself does not.
			if w := eval[[]int](t, b, "[document.documentElement.scrollWidth, window.innerWidth]"); w[0] > w[1] {
				t.Errorf("%s: page is %d px wide on a %d px screen", p, w[0], w[1])
			}
		}
		b.run(t, "reset", chromedp.EmulateReset())
		b.checkConsole(t)
	})
}

// testAgentInBrowser runs the daemon in agent mode over a small manifest
// and follows its start-up apply from the list to the report.
func testAgentInBrowser(t *testing.T, b *browser) {
	dir, out := t.TempDir(), t.TempDir()
	manifest := "file { '" + out + "/motd': content => \"hello\\n\" }\nnotify { 'hello': message => 'agent mode' }\n" +
		"schedule { 'weekend-nights': range => '02:00 - 04:00', weekday => ['Sat', 'Sun'], time_zone => 'Europe/Berlin' }\n" +
		"job { 'slow-echo': cron => '0 0 1 1 *', command => 'echo started; sleep 120; echo never printed' }\n"
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--manifests", dir, "--run-interval", "30m")
	b.login(t, base)
	deadline := time.Now().Add(30 * time.Second)
	for {
		b.run(t, "applies", chromedp.Navigate(base+"/applies"), chromedp.WaitVisible("#agent-status"))
		if eval[int](t, b, `document.querySelectorAll("#applies tbody tr").length`) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no apply report listed within 30 s")
		}
		time.Sleep(200 * time.Millisecond) // polling the daemon, not waiting for time to pass
	}
	if s := eval[string](t, b, `document.querySelector("#applies tbody tr").dataset.status`); s != "changed" {
		t.Errorf("start-up apply status %q, want changed", s)
	}
	b.run(t, "report", chromedp.Click(`#applies tbody tr a`), chromedp.WaitVisible(`#apply-meta`))
	for _, sel := range []string{`#apply-resources tr[data-ref="Notify[hello]"][data-status=changed]`, `#apply-resources tr[data-status=changed] code`, "#apply-events tbody tr"} {
		if n := eval[int](t, b, fmt.Sprintf("document.querySelectorAll(%q).length", sel)); n == 0 {
			t.Errorf("report page: nothing matches %s", sel)
		}
	}
	if trig := eval[string](t, b, `document.querySelector("#apply-trigger").textContent`); trig != "startup" {
		t.Errorf("trigger %q, want startup", trig)
	}
	if _, err := os.Stat(filepath.Join(out, "motd")); err != nil {
		t.Errorf("the apply did not write the file: %v", err)
	}
	// The manifests' schedule is drawn beside the demo's windows: Saturday
	// and Sunday 02:00-04:00 are two blocks.
	b.run(t, "windows", chromedp.Navigate(base+"/windows"), chromedp.WaitVisible(`article[data-window=weekend-nights] svg.week`))
	if n := eval[int](t, b, `document.querySelectorAll("article[data-window=weekend-nights] svg.week g.block").length`); n != 2 {
		t.Errorf("schedule weekend-nights: %d blocks drawn, want 2", n)
	}
	if meta := eval[string](t, b, `document.querySelector("article[data-window=weekend-nights] .meta").textContent`); !strings.Contains(meta, "schedule") || !strings.Contains(meta, "Europe/Berlin") {
		t.Errorf("schedule weekend-nights: meta line %q lacks its kind or zone", meta)
	}

	// A manifest job's output shows while it runs, and the Kill button
	// ends it as killed.
	b.run(t, "trigger", chromedp.Navigate(base+"/jobs/slow-echo"), chromedp.WaitVisible(`a.trigger`),
		chromedp.Click(`a.trigger`), chromedp.WaitVisible(`#confirm`), chromedp.Click(`#confirm`), chromedp.WaitVisible(`#live[data-state=running]`))
	deadline = time.Now().Add(30 * time.Second)
	for !eval[bool](t, b, `(document.querySelector("#run-output") || {textContent: ""}).textContent.includes("started")`) {
		if time.Now().After(deadline) {
			t.Fatal("the run's output did not show while it ran")
		}
		time.Sleep(200 * time.Millisecond) // htmx polls the live section
	}
	if st := eval[string](t, b, `document.querySelector("#live").dataset.state`); st != "running" {
		t.Errorf("output shown in state %q, want while running", st)
	}
	b.run(t, "kill", chromedp.Click(`#live a.kill`), chromedp.WaitVisible(`#confirm.kill`),
		chromedp.Click(`#confirm`), chromedp.WaitVisible(`#live[data-state=killed]`))
	if out := eval[string](t, b, `document.querySelector("#run-output").textContent`); strings.Contains(out, "never printed") {
		t.Errorf("a killed run went on: %q", out)
	}
	b.checkConsole(t)
}

// testLoginInBrowser logs in to a daemon started with --token.
func testLoginInBrowser(t *testing.T, b *browser) {
	base := startServe(t, "--token", "let-me-in")
	b.run(t, "redirect", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`form.login`))
	if p := eval[string](t, b, "location.pathname + location.search"); p != "/login?next=%2Fjobs" {
		t.Errorf("at %s, want the login page", p)
	}
	if n := eval[int](t, b, `document.querySelectorAll("header nav, form.logout").length`); n != 0 {
		t.Errorf("the login page shows the navigation or Log out (%d elements)", n)
	}
	b.run(t, "wrong", chromedp.SetValue(`input[name=token]`, "nope"), chromedp.Submit(`form.login`), chromedp.WaitVisible(`form.login p.error`))
	b.mu.Lock()
	b.errors = nil // the browser logs the wrong token's 401 answer; that one is expected
	b.mu.Unlock()
	b.run(t, "right", chromedp.SetValue(`input[name=token]`, "let-me-in"), chromedp.Submit(`form.login`), chromedp.WaitVisible(`#jobs`))
	b.run(t, "logout", chromedp.Click(`form.logout button`), chromedp.WaitVisible(`form.login`))
	b.checkConsole(t)
}

// testRefreshInBrowser: the jobs list fetches itself again, shows a job
// added meanwhile, and gives the keyboard focus back to the control that
// had it.
func testRefreshInBrowser(t *testing.T, b *browser) {
	base, back := startDemo(t, webui.Config{RefreshSeconds: 1})
	b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs`))
	b.run(t, "focus", chromedp.Focus(`tr[data-job=report] a.trigger`))
	back.AddJob(webui.Job{Name: "added-later", Schedule: "@daily", Zone: "UTC", Command: "true"}, nil)
	b.run(t, "refreshed", chromedp.WaitVisible(`tr[data-job=added-later]`))
	if got := eval[string](t, b, `document.activeElement.closest("tr") ? document.activeElement.closest("tr").getAttribute("data-job") + " " + document.activeElement.className : ""`); got != "report button trigger" {
		t.Errorf("after the refresh the focus is on %q, want the report row's Run now button", got)
	}
	b.run(t, "cluster", chromedp.Navigate(base+"/cluster"), chromedp.WaitVisible(`main[data-refresh]`))
	b.checkConsole(t)
}
