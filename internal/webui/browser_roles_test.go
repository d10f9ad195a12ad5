package webui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// loginAs logs the browser out of any session and in with token.
func (b *browser) loginAs(t *testing.T, base, token string) {
	t.Helper()
	b.run(t, "open the login page", chromedp.Navigate(base+"/login"), chromedp.WaitVisible(`form.login, #count-jobs`))
	if eval[bool](t, b, `document.querySelector("#who") !== null`) {
		b.run(t, "log out", chromedp.Submit(`form.logout`), chromedp.WaitVisible(`form.login`))
	}
	b.run(t, "log in", chromedp.SetValue(`input[name=token]`, token), chromedp.Submit(`form.login`), chromedp.WaitVisible(`#count-jobs`))
}

// testRolesInBrowser logs in to a real daemon with a viewer, a confined
// operator and the admin token, and checks that each sees who is logged
// in and only the actions its role allows, that run output is hidden from
// the viewer, that what a token cannot see is absent, and that the event
// log says who paused a job, how and from where.
func testRolesInBrowser(t *testing.T, b *browser) {
	base := startServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := apiclient.New(base, apiclient.WithToken(browserToken))
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := admin.TokenCreate(ctx, apitype.TokenCreateRequest{Name: "dash", Role: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := admin.TokenCreate(ctx, apitype.TokenCreateRequest{Name: "alice", Role: "operator", Jobs: "nightly-"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := admin.JobTrigger(ctx, "nightly-backup")
	if err != nil {
		t.Fatal(err)
	}
	runURL := fmt.Sprintf("%s/runs/%d", base, run.ID)
	count := func(sel string) int {
		t.Helper()
		return eval[int](t, b, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
	}
	text := func(sel string) string {
		t.Helper()
		return eval[string](t, b, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))
	}

	t.Run("viewer", func(t *testing.T) {
		b.loginAs(t, base, viewer.Secret)
		if who := text("#who"); !strings.Contains(who, "dash") || !strings.Contains(who, "viewer") {
			t.Errorf("header shows %q; want dash, viewer", who)
		}
		b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs tbody tr[data-job=heartbeat]`))
		if n := count("#jobs button.suspend, #jobs button.resume, #jobs .trigger"); n != 0 {
			t.Errorf("the viewer's jobs list has %d action buttons", n)
		}
		b.run(t, "job", chromedp.Navigate(base+"/jobs/nightly-backup"), chromedp.WaitVisible(`#job-name`))
		if n := count(".actions button, .actions a.button"); n != 0 {
			t.Errorf("the viewer's job page has %d action buttons", n)
		}
		b.run(t, "run", chromedp.Navigate(runURL), chromedp.WaitVisible(`#run-output-hidden`))
		if n := count(`#run-output, a[href$="/log"], .kill`); n != 0 {
			t.Errorf("the viewer's run page shows output, its link or a kill button (%d)", n)
		}
		b.checkConsole(t)
		// The server refuses what the page hides.
		b.run(t, "log", chromedp.Navigate(runURL+"/log"), chromedp.WaitVisible(`main`))
		if msg := text("main"); !strings.Contains(msg, "lacks permission read-output") {
			t.Errorf("the viewer's /log says %q", msg)
		}
		b.reset(t) // the refusal's 403 is in the console, as it should be
	})

	t.Run("confined operator", func(t *testing.T) {
		b.loginAs(t, base, ops.Secret)
		if who := text("#who"); !strings.Contains(who, "alice") || !strings.Contains(who, "operator") || !strings.Contains(who, "nightly-*") {
			t.Errorf("header shows %q; want alice, operator, nightly-*", who)
		}
		b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs tbody tr[data-job=nightly-backup]`))
		if n := count("#jobs tbody tr[data-job=heartbeat]"); n != 0 {
			t.Error("a token confined to nightly- sees heartbeat")
		}
		b.run(t, "run", chromedp.Navigate(runURL), chromedp.WaitVisible(`#live`))
		if n := count(`#run-output-hidden`); n != 0 {
			t.Error("the operator's run page hides the output")
		}
		b.run(t, "suspend", chromedp.Navigate(base+"/jobs/nightly-backup"), chromedp.WaitVisible(`button.suspend`),
			chromedp.Click(`button.suspend`), chromedp.WaitVisible(`button.resume`))
		if by := text("#job-suspended-by"); by != "by alice (ui, 127.0.0.1)" {
			t.Errorf("the job page says %q; want by alice (ui, 127.0.0.1)", by)
		}
		b.checkConsole(t)
		b.run(t, "other job", chromedp.Navigate(base+"/jobs/heartbeat"), chromedp.WaitVisible(`main`))
		if msg := text("main"); !strings.Contains(msg, "no job named") {
			t.Errorf("heartbeat's page for alice says %q", msg)
		}
		b.reset(t) // the 404 is in the console, as it should be
		b.run(t, "events", chromedp.Navigate(base+"/events?job=nightly-backup&kind=job.suspended"), chromedp.WaitVisible(`#events tbody tr`))
		if by := text("#events tbody tr .by"); by != "by alice (ui, 127.0.0.1)" {
			t.Errorf("the suspension is shown %q; want by alice (ui, 127.0.0.1)", by)
		}
	})

	t.Run("admin", func(t *testing.T) {
		b.loginAs(t, base, browserToken)
		if who := text("#who"); !strings.Contains(who, "admin") {
			t.Errorf("header shows %q; want admin", who)
		}
		b.run(t, "jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(`#jobs tbody tr[data-job=heartbeat] a.trigger`))
		b.run(t, "run", chromedp.Navigate(runURL), chromedp.WaitVisible(`#live`))
		if n := count(`#run-output-hidden`); n != 0 {
			t.Error("the admin's run page hides the output")
		}
		b.run(t, "pause waves", chromedp.Navigate(base+"/jobs/rolling-patch"), chromedp.WaitVisible(`button.wave-pause`),
			chromedp.Click(`button.wave-pause`), chromedp.WaitVisible(`#wave-paused-by`))
		if by := text("#wave-paused-by"); by != "Paused by admin (ui, 127.0.0.1)." {
			t.Errorf("the waves say %q; want Paused by admin (ui, 127.0.0.1).", by)
		}
		b.checkConsole(t)
	})
}
