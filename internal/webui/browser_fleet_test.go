package webui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// testFleetInBrowser opens the demo's fanned-out job: the matrix shows
// each node's state by colour and symbol, and Pause holds the wave.
func testFleetInBrowser(t *testing.T, b *browser) {
	base, back := startDemo(t, webui.Config{})
	path := "/jobs/" + webuitest.DemoFanOutJob
	b.run(t, "job", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+path), chromedp.WaitVisible(`#matrix`))

	cols := eval[[]string](t, b, `[...document.querySelectorAll("#matrix thead th[data-col]")].map(th => th.dataset.col)`)
	if strings.Join(cols, " ") != strings.Join(webuitest.DemoFanOutNodes, " ") {
		t.Errorf("columns %v, want %v", cols, webuitest.DemoFanOutNodes)
	}
	if n := eval[int](t, b, `document.querySelectorAll("#matrix tbody tr").length`); n != webuitest.DemoFanOutInstants {
		t.Errorf("%d rows, want %d", n, webuitest.DemoFanOutInstants)
	}
	first := eval[[]string](t, b, `[...document.querySelectorAll("#matrix tbody tr:first-child td")].map(td => td.className)`)
	if strings.Join(first, " ") != strings.Join(webuitest.DemoFanOutWave, " ") {
		t.Errorf("the current instant's cells are %v, want %v", first, webuitest.DemoFanOutWave)
	}
	// Each state is painted in its own colour, with its symbol visible on
	// it, and every cell is a link to its run.
	fills := eval[map[string]string](t, b, `Object.fromEntries([...document.querySelectorAll("#matrix td > a")].map(a => [a.parentElement.className, getComputedStyle(a).backgroundColor]))`)
	for _, pair := range [][2]string{{"succeeded", "running"}, {"succeeded", "failed"}, {"running", "pending"}, {"failed", "skipped"}, {"pending", "failed"}} {
		if fills[pair[0]] == "" || fills[pair[0]] == fills[pair[1]] {
			t.Errorf("%s and %s cells are painted %q and %q", pair[0], pair[1], fills[pair[0]], fills[pair[1]])
		}
	}
	for _, class := range []string{"succeeded", "running", "pending", "failed", "killed", "missed", "skipped"} {
		if fills[class] == "" {
			t.Errorf("no %s cell in the demo's matrix", class)
		}
	}
	if bad := eval[int](t, b, `[...document.querySelectorAll("#matrix td > a")].filter(a => { const r = a.getBoundingClientRect(); return r.width < 16 || r.height < 12 || !a.getAttribute("href").startsWith("/runs/") || !a.title || a.querySelector("[aria-hidden]").textContent.trim() === "" }).length`); bad != 0 {
		t.Errorf("%d matrix cells are too small, unlinked, untitled or without a symbol", bad)
	}
	// The whole matrix fits the page at this width: nothing scrolls sideways.
	if w := eval[[]int](t, b, `[document.querySelector("#matrix").parentElement.scrollWidth, document.querySelector("#matrix").parentElement.clientWidth]`); w[0] > w[1] {
		t.Errorf("the matrix is %d px wide in a %d px box", w[0], w[1])
	}
	title := eval[string](t, b, `document.querySelector('#matrix td.failed a').title`)
	if !strings.Contains(title, "failed, attempt 2") || !strings.Contains(title, "exit status 1") {
		t.Errorf("a failed cell's tooltip is %q", title)
	}
	b.run(t, "open a cell's run", chromedp.Click(`#matrix td.failed a`), chromedp.WaitVisible(`#run-meta`))
	if out := eval[string](t, b, `document.querySelector("#run-output").textContent`); !strings.Contains(out, "No space left on device") {
		t.Errorf("the failed cell opens a run whose output is %q", out)
	}

	b.run(t, "back", chromedp.Navigate(base+path), chromedp.WaitVisible(`#wave[data-state=running]`))
	counts := eval[map[string]string](t, b, `Object.fromEntries([...document.querySelectorAll("#wave-counts li[data-count]")].map(li => [li.dataset.count, li.querySelector("strong").textContent]))`)
	if fmt.Sprint(counts) != "map[done:2 failed:0 missed:0 running:2 skipped:0 waiting:1]" {
		t.Errorf("wave counts %v", counts)
	}
	b.run(t, "pause", chromedp.Click(`button.wave-pause`), chromedp.WaitVisible(`#wave[data-state=paused]`), chromedp.WaitVisible(`p.notice`))
	if st := eval[string](t, b, `document.querySelector("#wave-state").textContent`); !strings.Contains(st, "paused") {
		t.Errorf("the wave's state reads %q after Pause", st)
	}
	if w, err := back.Wave(t.Context(), webuitest.DemoFanOutJob); err != nil || !w.Paused {
		t.Errorf("the backend's wave after Pause: %+v, %v", w, err)
	}
	b.run(t, "resume", chromedp.Click(`button.wave-resume`), chromedp.WaitVisible(`#wave[data-state=running]`))
	b.run(t, "abort", chromedp.Click(`a.wave-abort`), chromedp.WaitVisible(`#confirm.wave-abort`),
		chromedp.Click(`#confirm`), chromedp.WaitVisible(`#matrix tbody tr:first-child td.skipped`))
	if n := eval[int](t, b, `document.querySelectorAll(".wave-abort").length`); n != 0 {
		t.Error("Abort is still offered with nothing waiting")
	}
	b.checkConsole(t)
}
