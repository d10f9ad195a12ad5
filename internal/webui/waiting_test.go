package webui_test

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestDaemonBackendWaiting: over the real store, a held run's recorded
// waiting reason reaches its run page (with until when, in the job's
// zone), the job page's runs table and /runs; a run that is not held
// shows none.
func TestDaemonBackendWaiting(t *testing.T) {
	h := newDaemonHarness(t)
	ctx := t.Context()
	at := demoNow.Add(time.Hour).Truncate(time.Hour)
	held, err := h.st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "delta", ScheduledTime: at,
		Attempt: 1, Reason: store.ReasonSchedule}, Now: demoNow})
	if err != nil {
		t.Fatal(err)
	}
	ready, err := h.st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "delta", ScheduledTime: at.Add(time.Hour),
		Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: demoNow}, Now: demoNow})
	if err != nil {
		t.Fatal(err)
	}
	until := demoNow.Add(30 * time.Hour)
	if err := h.st.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: []store.RunWaiting{
		{ID: held.ID, Waiting: &store.Waiting{Kind: store.WaitGate, Detail: `schedule gate "wednesday" is closed`, Until: until}},
	}}); err != nil {
		t.Fatal(err)
	}
	detail := html.EscapeString(`schedule gate "wednesday" is closed`)
	untilText := until.UTC().Format("Mon 2006-01-02 15:04:05 MST")
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"run page", fmt.Sprintf("/runs/%d", held.ID), []string{`<dt>Waiting</dt><dd id="run-waiting" data-wait="gate">` + detail + `, until <time`, untilText}},
		{"job page", "/jobs/delta", []string{`data-wait="gate">waits: ` + detail + ", until " + untilText}},
		{"runs history", "/runs", []string{`data-wait="gate">waits: ` + detail + ", until " + untilText}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.get(tc.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d", tc.path, code)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s lacks %q", tc.path, w)
				}
			}
			if n := strings.Count(body, `data-wait="`); n != 1 {
				t.Errorf("GET %s: %d waiting reasons, want 1 (the released run has none)", tc.path, n)
			}
		})
	}
	code, body := h.get(fmt.Sprintf("/runs/%d", ready.ID))
	if code != http.StatusOK || strings.Contains(body, "run-waiting") {
		t.Errorf("a released run's page shows a waiting reason: %d", code)
	}
}

// TestHonestForecasts: the job page's next fires and the overview's
// upcoming list do not promise "at its time" for a job whose waves are
// paused or whose node's window stays closed past the starting deadline.
func TestHonestForecasts(t *testing.T) {
	h := newDaemonHarness(t)
	ctx := t.Context()
	deadline := int64(600)
	for _, spec := range []store.JobSpec{
		{Name: "rolling", Cron: "@hourly", Command: []string{"true"}, Nodes: "all"},
		// Every node's window is Wednesday afternoons in Berlin; the fires
		// are hourly with a ten-minute deadline.
		{Name: "windowed", Cron: "@hourly", Command: []string{"true"}, Nodes: "all",
			Window: map[string]string{"default": "wednesday"}, StartingDeadlineSeconds: &deadline},
	} {
		if _, err := h.ctrl.CreateJob(ctx, spec, store.SourceAPI); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.ctrl.WavePause(ctx, "rolling"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path      string
		want      []string
		forbidden string
	}{
		{"/jobs/rolling", []string{`<li data-outlook="waits">`, `<span class="outlook waits">waits</span>`, "paused by an operator"}, `data-outlook="on-time"`},
		{"/jobs/windowed", []string{`<li data-outlook="will-miss">`, `will be missed`, html.EscapeString(`window "wednesday" of node`), "does not open before the starting deadline"}, `data-outlook="on-time"`},
		{"/", []string{`>rolling</a></td><td><span class="outlook waits">waits</span>`, `>windowed</a></td><td><span class="outlook will-miss">will be missed</span>`}, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, body := h.get(tc.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", tc.path, code)
			}
			mustContain(t, body, tc.want...)
			if tc.forbidden != "" && strings.Contains(body, tc.forbidden) {
				t.Errorf("GET %s still promises a fire at its time", tc.path)
			}
		})
	}
}
