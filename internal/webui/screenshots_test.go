package webui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// screenshotTime is the fixed instant the screenshots show: a Wednesday
// afternoon in Europe, morning in New York, so some windows are open.
var screenshotTime = time.Date(2025, 3, 12, 14, 7, 0, 0, time.UTC)

// TestScreenshots writes docs/screenshots when ALMANAC_SCREENSHOTS names the
// directory (scripts/screenshots sets it). It renders the demo backend at a
// fixed time, so the pictures change only when the UI does.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("ALMANAC_SCREENSHOTS")
	if dir == "" {
		t.Skip("set ALMANAC_SCREENSHOTS=DIR to write the UI's screenshots (scripts/screenshots does)")
	}
	c := clock.NewFake(screenshotTime)
	base, back := startDemo(t, webui.Config{Clock: c, Backend: webuitest.Demo(c)})
	failed, _, err := back.Runs(t.Context(), webui.RunQuery{Job: "backup", States: []string{webui.RunFailed}})
	if err != nil || len(failed) == 0 {
		t.Fatalf("the demo has no failed backup run: %v", err)
	}
	b := newBrowser(t)
	shots := []struct {
		file, path string
		width      int64
		mobile     bool
	}{
		{"overview.png", "/", 1280, false},
		{"jobs.png", "/jobs", 1280, false},
		{"job.png", "/jobs/backup", 1280, false},
		{"job-fleet.png", "/jobs/" + webuitest.DemoFanOutJob, 1280, false},
		{"run.png", fmt.Sprintf("/runs/%d", failed[0].ID), 1280, false},
		{"windows.png", "/windows", 1280, false},
		{"resources.png", "/resources", 1280, false},
		{"events.png", "/events", 1280, false},
		{"runs.png", "/runs", 1280, false},
		{"cluster.png", "/cluster", 1280, false},
		{"applies.png", "/applies", 1280, false},
		{"apply.png", "/applies/1", 1280, false},
		{"jobs-phone.png", "/jobs", 390, true},
	}
	for _, s := range shots {
		opts := []chromedp.EmulateViewportOption{}
		if s.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateScale(2))
		}
		b.run(t, s.file, chromedp.EmulateViewport(s.width, 800, opts...), chromedp.Navigate(base+s.path), chromedp.WaitVisible("main h1"))
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.file), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.checkConsole(t)
}
