package webui_test

import (
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/webui"
)

// TestScheduleDialectsShown: the job pages name a schedule's dialect, show
// calendar events in systemd's normalized form, read a kubernetes-dialect
// expression by its own rules, show the randomized delay and a catch_up
// policy other than the default, and show a manual job's schedule as manual.
func TestScheduleDialectsShown(t *testing.T) {
	ctx := t.Context()
	c := clock.NewFake(demoNow)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(c))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctrl, err := job.NewController(job.Config{Store: st, Clock: c, Parse: job.ParseCron})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []store.JobSpec{
		{Name: "report", OnCalendar: []string{"mon..fri 9:00", "Sat 12:00"}, TimeZone: "Europe/Berlin", Shell: "true", RandomizedDelaySeconds: 600},
		{Name: "kube", Cron: "0 0 */2 * 1", CronDialect: job.DialectKubernetes, Shell: "true", CatchUp: job.CatchUpAll},
		{Name: "by-hand", Manual: true, Suspend: true, Shell: "true"},
	} {
		if _, err := ctrl.CreateJob(ctx, spec, store.SourceAPI); err != nil {
			t.Fatal(err)
		}
	}
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobController{ctrl}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, webui.Config{Backend: back})
	delay := job.RandomizedDelay(store.JobSpec{Name: "report", RandomizedDelaySeconds: 600})
	for path, wants := range map[string][]string{
		"/jobs/report": {`<code id="job-schedule">mon..fri 9:00; Sat 12:00</code>`, `<dd id="job-dialect">systemd calendar</dd>`,
			"normalized: Mon..Fri *-*-* 09:00:00; Sat *-*-* 12:00:00", `<dd id="job-delay">each run starts ` + delay.String()},
		// Kubernetes ORs a stepped day of month with the day of week.
		"/jobs/kube": {`<dd id="job-dialect">kubernetes cron</dd>`, "29 and 31 of the month and on Monday",
			`<dd id="job-catchup">every instant that could not start runs, one after another (catch_up all)</dd>`},
		"/jobs": {"(systemd calendar)", "(kubernetes cron)"},
		// A manual job names no schedule.
		"/jobs/by-hand": {`<code id="job-schedule">manual</code>`, "no schedule: runs only when triggered"},
	} {
		code, body := h.get(path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		mustContain(t, body, wants...)
	}
}
