package httpapi_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestWaveWithSQLite drives the wave routes, through the typed client,
// against the real controller's wave logic over the embedded store: a
// fanned-out job's runs (inserted as fan-out inserts them) read back as
// its wave, an older instant is reachable by ?instant, pause shows in the
// wave and the event log, abort skips the waiting node, and ?node lists a
// node's runs.
func TestWaveWithSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(t0)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	real, err := job.NewController(job.Config{Store: st, Clock: clk, Parse: job.ParseCron})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: t0, Waves: real}, Clock: clk}))
	defer ts.Close()
	c, err := apiclient.New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}

	spec := apitype.JobSpec{Cron: "0 * * * *", Command: apitype.Command{Shell: "patch"}, Nodes: "role=db",
		Window: map[string]string{"zone=eu": "eu-night", "default": "anytime"}, MaxParallel: "50%", MaxFailures: 2, WaveOrder: "random"}
	if _, _, err := c.JobPut(ctx, "patch", spec); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.JobPut(ctx, "solo", apitype.JobSpec{Cron: "0 * * * *", Command: apitype.Command{Shell: "true"}}); err != nil {
		t.Fatal(err)
	}
	j, err := c.JobGet(ctx, "patch")
	if err != nil || j.Spec.MaxParallel != "50%" || j.Spec.MaxFailures != 2 || j.Spec.WaveOrder != "random" || j.Spec.Window["zone=eu"] != "eu-night" {
		t.Fatalf("wave fields read back as %+v, %v", j.Spec, err)
	}

	older, latest := t0.Add(-time.Hour), t0
	insert := func(r store.Run) store.Run {
		t.Helper()
		r.Job, r.Reason = "patch", store.ReasonSchedule
		if r.Attempt == 0 {
			r.Attempt = 1
		}
		out, err := st.RunInsert(ctx, store.RunInsertParams{Run: r, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	exit1 := 1
	insert(store.Run{ScheduledTime: older, Target: "db-1", Node: "db-1", State: store.RunSucceeded, StartedAt: older, FinishedAt: older.Add(time.Minute)})
	insert(store.Run{ScheduledTime: older, Target: "db-2", Node: "db-2", State: store.RunSucceeded, StartedAt: older, FinishedAt: older.Add(time.Minute)})
	done := insert(store.Run{ScheduledTime: latest, Target: "db-1", Node: "db-1", State: store.RunSucceeded, StartedAt: latest, FinishedAt: latest.Add(time.Minute)})
	failed := insert(store.Run{ScheduledTime: latest, Target: "db-2", Node: "db-2", State: store.RunFailed, ExitCode: &exit1, Error: "exit status 1",
		StartedAt: latest, FinishedAt: latest.Add(time.Minute)})
	retry := insert(store.Run{ScheduledTime: latest, Target: "db-2", Attempt: 2, State: store.RunPending, ReadyAt: latest.Add(2 * time.Minute)})
	held := insert(store.Run{ScheduledTime: latest, Target: "db-3", State: store.RunPending})
	held4 := insert(store.Run{ScheduledTime: latest, Target: "db-4", State: store.RunPending})
	solo, err := st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "solo", ScheduledTime: latest, Attempt: 1, Reason: store.ReasonSchedule,
		Node: "db-3", State: store.RunRunning, StartedAt: latest}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	opens := latest.Add(3 * time.Hour)
	if err := st.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: []store.RunWaiting{
		{ID: held.ID, Waiting: &store.Waiting{Kind: store.WaitWindow, Detail: `window "eu-night" of node db-3 is closed`, Until: opens}},
	}}); err != nil {
		t.Fatal(err)
	}

	w, err := c.Wave(ctx, "patch", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// The held node says why it waits, as its run does; the others say
	// nothing of it.
	for i := range w.Nodes {
		wt := w.Nodes[i].Waiting
		w.Nodes[i].Waiting = nil
		switch {
		case w.Nodes[i].Node == "db-3" && (wt == nil || wt.Kind != "window" || wt.Until == nil || !wt.Until.Equal(opens) || !strings.Contains(wt.Detail, "eu-night")):
			t.Errorf("db-3 waits %+v, want its window until %s", wt, opens)
		case w.Nodes[i].Node != "db-3" && wt != nil:
			t.Errorf("%s waits %+v, want no reason", w.Nodes[i].Node, wt)
		}
	}
	wantNodes := []apitype.WaveNode{
		{Node: "db-1", State: "done", RunID: done.ID, Attempt: 1},
		{Node: "db-2", State: "running", RunID: retry.ID, Attempt: 2},
		{Node: "db-3", State: "waiting", RunID: held.ID, Attempt: 1},
		{Node: "db-4", State: "waiting", RunID: held4.ID, Attempt: 1},
	}
	if !w.Instant.Equal(latest) || w.State != apitype.WaveRunning || w.MaxParallel != 2 || w.MaxFailures != 2 || w.Paused ||
		w.Counts != (apitype.WaveCounts{Total: 4, Done: 1, Running: 1, Waiting: 2}) || !slices.Equal(w.Nodes, wantNodes) {
		t.Fatalf("latest wave = %+v\nwant nodes %+v", w, wantNodes)
	}
	w, err = c.Wave(ctx, "patch", older.In(time.FixedZone("", 3600)))
	if err != nil || !w.Instant.Equal(older) || w.State != apitype.WaveDone || w.Counts.Done != 2 || w.Counts.Total != 2 || w.MaxParallel != 1 {
		t.Fatalf("older wave = %+v, %v", w, err)
	}
	if _, err := c.Wave(ctx, "patch", t0.Add(time.Hour)); !apiclient.IsNotFound(err) {
		t.Fatalf("wave of an instant that has none: %v", err)
	}
	if _, err := c.Wave(ctx, "solo", time.Time{}); !apiclient.IsNotFound(err) {
		t.Fatalf("wave of a job that does not fan out: %v", err)
	}

	runs, err := c.RunList(ctx, apiclient.RunFilter{Node: "db-2"})
	if err != nil || len(runs.Items) != 3 || runs.Items[0].ID != retry.ID || runs.Items[1].ID != failed.ID || runs.Items[0].Target != "db-2" {
		t.Fatalf("runs of db-2 = %+v, %v", runs.Items, err)
	}
	runs, err = c.RunList(ctx, apiclient.RunFilter{Node: "db-3"})
	if err != nil || len(runs.Items) != 2 || runs.Items[0].ID != solo.ID || runs.Items[1].ID != held.ID {
		t.Fatalf("runs of db-3 (one claimed, one targeted) = %+v, %v", runs.Items, err)
	}

	if j, err := c.WavePause(ctx, "patch"); err != nil || !j.Spec.WavePaused {
		t.Fatalf("pause: %+v, %v", j.Spec, err)
	}
	if w, err := c.Wave(ctx, "patch", time.Time{}); err != nil || w.State != apitype.WavePaused || !w.Paused {
		t.Fatalf("paused wave = %+v, %v", w, err)
	}
	evs, err := c.EventList(ctx, apiclient.EventFilter{Job: "patch", Kinds: []string{"wave.paused"}})
	if err != nil || len(evs.Items) != 1 {
		t.Fatalf("wave.paused events = %+v, %v", evs.Items, err)
	}
	res, err := c.WaveAbort(ctx, "patch")
	if err != nil || res.Skipped != 2 || res.Job != "patch" {
		t.Fatalf("abort = %+v, %v", res, err)
	}
	w, err = c.Wave(ctx, "patch", time.Time{})
	if err != nil || w.Counts != (apitype.WaveCounts{Total: 4, Done: 1, Running: 1, Skipped: 2}) || w.Nodes[2].Error != "skipped: wave aborted" {
		t.Fatalf("aborted wave = %+v, %v", w, err)
	}
	if res, err := c.WaveAbort(ctx, "patch"); err != nil || res.Skipped != 0 {
		t.Fatalf("second abort = %+v, %v", res, err)
	}
	if j, err := c.WaveResume(ctx, "patch"); err != nil || j.Spec.WavePaused {
		t.Fatalf("resume: %+v, %v", j.Spec, err)
	}
}
