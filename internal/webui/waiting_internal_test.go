package webui

import (
	"testing"
	"time"
)

// TestMatrixCellWaiting: a waiting cell's tooltip says why the run waits
// and until when in the job's zone; other cells say nothing of it.
func TestMatrixCellWaiting(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	until := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		run  Run
		want string
	}{
		{"window with an end", Run{ID: 7, State: RunPending, Attempt: 1, Waiting: &Waiting{Kind: "window", Detail: `window "night" of node db-2 is closed`, Until: until}},
			`db-2: run #7 waiting, attempt 1 — waits: window "night" of node db-2 is closed, until Tue 2026-12-01 02:00:00 CET`},
		{"node down, no end", Run{ID: 8, State: RunPending, Attempt: 1, Waiting: &Waiting{Kind: "node-down", Detail: "node db-2 is down"}},
			"db-2: run #8 waiting, attempt 1 — waits: node db-2 is down"},
		{"running", Run{ID: 9, State: RunRunning, Attempt: 1}, "db-2: run #9 running, attempt 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (matrixCell{Node: "db-2", Run: tc.run, Loc: berlin}).Title(); got != tc.want {
				t.Errorf("Title() = %q, want %q", got, tc.want)
			}
		})
	}
}
