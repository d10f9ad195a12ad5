package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestKillRun(t *testing.T) {
	b := setup(t)
	running := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, Attempt: 1, State: store.RunRunning, StartedAt: t0})
	done := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0.Add(-60e9), Attempt: 1, State: store.RunSucceeded})
	tests := []struct {
		name   string
		method string
		id     string
		code   int
	}{
		{"running run", "POST", fmt.Sprint(running.ID), http.StatusAccepted},
		{"finished run", "POST", fmt.Sprint(done.ID), http.StatusConflict},
		{"unknown run", "POST", "999999", http.StatusNotFound},
		{"bad id", "POST", "abc", http.StatusBadRequest},
		{"wrong method", "GET", fmt.Sprint(running.ID), http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := b.do(t, tt.method, "/api/v1/runs/"+tt.id+"/kill", "")
			if r.code != tt.code {
				t.Fatalf("%s kill %s = %d %s, want %d", tt.method, tt.id, r.code, r.body, tt.code)
			}
		})
	}
	if got := b.ctrl.Killed(); !slices.Equal(got, []int64{running.ID}) {
		t.Errorf("controller asked to kill %v, want only %d", got, running.ID)
	}
}
