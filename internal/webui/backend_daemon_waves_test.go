package webui_test

import (
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestDaemonBackendWaves: over the real store and job controller, a
// fanned-out job's page shows its latest instant by target node, and
// Pause, Resume and Abort reach the controller.
func TestDaemonBackendWaves(t *testing.T) {
	h := newDaemonHarness(t)
	ctx := t.Context()
	if _, err := h.st.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "fleet", Cron: "@hourly", Command: []string{"true"},
		Nodes: "all", MaxParallel: "1", MaxFailures: 2}, Source: store.SourceAPI, Now: demoNow}); err != nil {
		t.Fatal(err)
	}
	at := demoNow.Truncate(time.Hour)
	insert := func(target string, ready bool) store.Run {
		t.Helper()
		r := store.Run{Job: "fleet", ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule, Target: target}
		if ready {
			r.ReadyAt = demoNow
		}
		r, err := h.st.RunInsert(ctx, store.RunInsertParams{Run: r, Now: demoNow})
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			if c, err := h.st.RunClaim(ctx, store.RunClaimParams{Node: target, Now: demoNow, Limit: 1}); err != nil || len(c) != 1 || c[0].ID != r.ID {
				t.Fatalf("claim %s's run: %v, %v", target, c, err)
			}
		}
		return r
	}
	finish := func(r store.Run, state store.RunState, errText string) {
		t.Helper()
		if _, err := h.st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: state, Error: errText, Now: demoNow}); err != nil {
			t.Fatal(err)
		}
	}
	waiting := insert("n3", false)
	if got, err := h.st.RunGet(ctx, waiting.ID); err != nil || got.Target != "n3" {
		t.Fatalf("the store lost the run's target: got %q, %v", got.Target, err)
	}
	finish(insert("n1", true), store.RunSucceeded, "")
	insert("n2", true) // running
	finish(insert("n4", false), store.RunFailed, "exit status 2")

	_, body := h.get("/jobs/fleet")
	nodes, cells, order := matrixCells(t, body)
	if len(order) != 1 || len(nodes) != 4 {
		t.Fatalf("matrix %v by %v, want one instant by four nodes", order, nodes)
	}
	want := map[string]string{"n1": "succeeded", "n2": "running", "n3": "pending", "n4": "failed"}
	for n, st := range want {
		if got := cells[order[0]][n]; got != st {
			t.Errorf("%s: %q, want %q", n, got, st)
		}
	}
	mustContain(t, body, `<div class="wave" id="wave" data-state="running">`, "max_parallel: 1 at once", "max_failures: 2",
		`<li data-count="failed"><span class="dot failed"></span><strong>1</strong> failed</li>`, `exit status 2"`)

	token := h.csrf("/jobs/fleet")
	for _, c := range []struct {
		action string
		check  func(store.Job) bool
		state  string
	}{
		{"pause", func(j store.Job) bool { return j.Spec.WavePaused }, "paused"},
		{"resume", func(j store.Job) bool { return !j.Spec.WavePaused }, "running"},
	} {
		resp := h.post("/jobs/fleet/wave/"+c.action, url.Values{"csrf": {token}}, nil)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", c.action, resp.StatusCode, msg)
		}
		if j, err := h.st.JobGet(ctx, "fleet"); err != nil || !c.check(j) {
			t.Errorf("after %s the stored job says wave_paused=%v (%v)", c.action, j.Spec.WavePaused, err)
		}
		_, body = h.get("/jobs/fleet")
		mustContain(t, body, `<div class="wave" id="wave" data-state="`+c.state+`">`)
	}
	_, evs := h.get("/events?job=fleet")
	mustContain(t, evs, "waves of fleet paused", "waves of fleet resumed")

	resp := h.post("/jobs/fleet/wave/abort", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "/jobs/fleet?done=waves-aborted&n=1#fleet-h" {
		t.Errorf("abort: to %q", loc)
	}
	if r, err := h.st.RunGet(ctx, waiting.ID); err != nil || r.State != store.RunMissed {
		t.Errorf("the waiting run after abort: %v, %v", r.State, err)
	}
	_, body = h.get("/jobs/fleet")
	if _, cells, order := matrixCells(t, body); cells[order[0]]["n3"] != "skipped" {
		t.Errorf("n3 after abort: %q, want skipped", cells[order[0]]["n3"])
	}
	resp = h.post("/jobs/nope/wave/pause", url.Values{"csrf": {token}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("pause of an unknown job: %d, want 404", resp.StatusCode)
	}
}
