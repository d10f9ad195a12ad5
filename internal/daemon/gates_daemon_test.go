package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// writeWindow writes a Zincati fragment with one weekly window.
func writeWindow(t *testing.T, dir, name, days, start string, minutes int) string {
	t.Helper()
	p := filepath.Join(dir, name+".toml")
	body := "[updates]\nstrategy = \"periodic\"\n\n[[updates.periodic.window]]\ndays = [" + days + "]\nstart_time = \"" + start +
		"\"\nlength_minutes = " + strconv.Itoa(minutes) + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runsOf polls the API (not the clock: the fake one stands still) until
// done accepts the job's runs, and returns them; it fails the test after
// 30 s of real time.
func runsOf(t *testing.T, c *apiclient.Client, job string, done func([]apitype.Run) bool) []apitype.Run {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(30 * time.Second)
	for {
		page, err := c.RunList(context.Background(), apiclient.RunFilter{Job: job, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if done(page.Items) {
			return page.Items
		}
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("runs of %s: still %+v", job, page.Items)
		}
	}
}

// succeeded reports whether some run succeeded.
func succeeded(runs []apitype.Run) bool {
	for _, r := range runs {
		if r.State == apitype.RunSucceeded {
			return true
		}
	}
	return false
}

// TestNamedWindowGates: a job gated by a --windows window runs while the
// window is open, and a run due while its window is closed waits and runs
// when the window opens. A gate that names nothing is refused (422)
// listing the gates there are.
func TestNamedWindowGates(t *testing.T) {
	// Saturday 2030-06-01 12:00:30 UTC.
	start := time.Date(2030, 6, 1, 12, 0, 30, 0, time.UTC)
	clk := clock.NewFake(start)
	dir := t.TempDir()
	open := writeWindow(t, dir, "open-now", `"Sat"`, "12:00", 60)
	later := writeWindow(t, dir, "opens-later", `"Sat"`, "12:10", 30)
	c := daemontest.Start(t, daemontest.Options{Clock: clk, Args: []string{"--windows", "open-now=" + open + ",opens-later=" + later}}).Client
	ctx := context.Background()

	_, _, err := c.JobPut(ctx, "nowhere", apitype.JobSpec{Cron: "* * * * *", Command: apitype.Command{Argv: []string{"true"}}, Gate: "no-such-gate"})
	var ae *apitype.Error
	if !errors.As(err, &ae) || ae.Code != apitype.CodeInvalid || ae.Field != "schedule" ||
		!strings.Contains(ae.Message, `"no-such-gate"`) || !strings.Contains(ae.Message, "open-now, opens-later") {
		t.Fatalf("PUT with an unknown gate = %v (%+v), want 422 on schedule listing the known gates", err, ae)
	}
	// A window of a fanned-out job's nodes is a gate too.
	fleet := apitype.JobSpec{Cron: "* * * * *", Command: apitype.Command{Argv: []string{"true"}}, Nodes: "role=db",
		Window: map[string]string{"default": "open-now", " zone=eu ": "no-such-window"}}
	_, _, err = c.JobPut(ctx, "fleet", fleet)
	if !errors.As(err, &ae) || ae.Code != apitype.CodeInvalid || ae.Field != "window[zone=eu]" ||
		!strings.Contains(ae.Message, `no gate is named "no-such-window"`) || !strings.Contains(ae.Message, "open-now, opens-later") {
		t.Fatalf("PUT with an unknown window = %v (%+v), want 422 on window[zone=eu]", err, ae)
	}
	fleet.Window[" zone=eu "] = "opens-later"
	if j, _, err := c.JobPut(ctx, "fleet", fleet); err != nil || j.Spec.Window["zone=eu"] != "opens-later" || j.Spec.Window["default"] != "open-now" {
		t.Fatalf("PUT with known windows: %v, window %q", err, j.Spec.Window)
	}
	if err := c.JobDelete(ctx, "fleet"); err != nil {
		t.Fatal(err)
	}

	for name, gate := range map[string]string{"in-open": "open-now", "in-later": "opens-later"} {
		if _, _, err := c.JobPut(ctx, name, apitype.JobSpec{Cron: "* * * * *", Command: apitype.Command{Argv: []string{"true"}}, Gate: gate}); err != nil {
			t.Fatalf("PUT %s: %v", name, err)
		}
	}
	clk.Set(start.Add(30 * time.Second)) // 12:01: both are due
	runs := runsOf(t, c, "in-open", succeeded)
	if r := runs[len(runs)-1]; !r.ScheduledTime.Equal(start.Add(30 * time.Second)) {
		t.Errorf("in-open ran for %s, want 12:01", r.ScheduledTime)
	}
	runsOf(t, c, "in-later", func(rs []apitype.Run) bool { return len(rs) == 1 && rs[0].State == apitype.RunPending })

	opening := time.Date(2030, 6, 1, 12, 10, 0, 0, time.UTC)
	clk.Set(opening.Add(-time.Minute)) // 12:09, still closed
	runsOf(t, c, "in-open", func(rs []apitype.Run) bool { return len(rs) >= 2 })
	// catch_up latest (the default): of the instants waiting for the
	// window, only the latest keeps waiting; the others are missed.
	for _, r := range runsOf(t, c, "in-later", func(rs []apitype.Run) bool { return len(rs) >= 2 && rs[0].State == apitype.RunPending }) {
		latest := r.ScheduledTime.Equal(opening.Add(-time.Minute))
		switch {
		case latest && r.State != apitype.RunPending:
			t.Fatalf("in-later run %d for %s is %s before its window opened", r.ID, r.ScheduledTime, r.State)
		case !latest && (r.State != apitype.RunMissed || !strings.Contains(r.Error, "superseded")):
			t.Errorf("in-later run %d for %s is %s %q; want it superseded by the latest", r.ID, r.ScheduledTime, r.State, r.Error)
		}
	}
	clk.Set(opening)
	for _, r := range runsOf(t, c, "in-later", func(rs []apitype.Run) bool {
		for _, r := range rs {
			if r.State != apitype.RunSucceeded && r.State != apitype.RunMissed {
				return false
			}
		}
		return len(rs) > 0 && rs[0].State == apitype.RunSucceeded
	}) {
		if r.State == apitype.RunSucceeded && (r.StartedAt == nil || r.StartedAt.Before(opening)) {
			t.Errorf("in-later run for %s started at %v, before its window opened at %s", r.ScheduledTime, r.StartedAt, opening)
		}
	}
}

// TestGateRemovedByManifest: when a manifest change removes the schedule
// an API job names, the job gets a job.gate-missing event, and a new job
// can no longer name it.
func TestGateRemovedByManifest(t *testing.T) {
	clk := clock.NewFake(time.Date(2030, 6, 1, 12, 0, 30, 0, time.UTC))
	dir := t.TempDir()
	site := filepath.Join(dir, "site.pp")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(site, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schedule { 'office': range => '09:00 - 17:00' }\n")
	c := daemontest.Start(t, daemontest.Options{Clock: clk, Args: []string{"--manifests", dir}}).Client
	ctx := context.Background()
	spec := apitype.JobSpec{Cron: "0 * * * *", Command: apitype.Command{Argv: []string{"true"}}, Gate: "office"}
	if _, _, err := c.JobPut(ctx, "report", spec); err != nil {
		t.Fatalf("PUT gated by a manifest schedule no job of the manifests names: %v", err)
	}
	write("schedule { 'night': range => '01:00 - 02:00' }\n")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(30 * time.Second)
	for {
		clk.Advance(2 * time.Second) // the watcher's poll
		page, err := c.EventList(ctx, apiclient.EventFilter{Job: "report", Kinds: []string{"job.gate-missing"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) > 0 {
			if m := page.Items[0].Message; !strings.Contains(m, `"office"`) {
				t.Errorf("event message = %q", m)
			}
			break
		}
		select {
		case <-tick.C:
		case <-limit:
			t.Fatal("no job.gate-missing event after the manifest dropped the schedule")
		}
	}
	_, _, err := c.JobPut(ctx, "report2", spec)
	var ae *apitype.Error
	if !errors.As(err, &ae) || ae.Code != apitype.CodeInvalid || !strings.Contains(ae.Message, "known gates: anytime, never, night") {
		t.Fatalf("PUT naming the removed gate = %v", err)
	}
}
