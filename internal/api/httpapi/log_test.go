package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/store"
)

func TestRunLogOffset(t *testing.T) {
	b := setup(t)
	run := b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0, Attempt: 1, State: store.RunSucceeded, Output: []byte("hello\nworld\n")})
	path := fmt.Sprintf("/api/v1/runs/%d/log", run.ID)
	tests := []struct {
		query string
		code  int
		body  string
		next  string
	}{
		{"", http.StatusOK, "hello\nworld\n", "12"},
		{"?offset=6", http.StatusOK, "world\n", "12"},
		{"?offset=12", http.StatusOK, "", "12"},
		{"?offset=99", http.StatusOK, "", "12"},
		{"?offset=-1", http.StatusBadRequest, "", ""},
		{"?offset=x", http.StatusBadRequest, "", ""},
		{"?ofset=1", http.StatusBadRequest, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := b.do(t, "GET", path+tt.query, "")
			if r.code != tt.code {
				t.Fatalf("status %d %s, want %d", r.code, r.body, tt.code)
			}
			if tt.code == http.StatusOK && (r.body != tt.body || r.hdr.Get(httpapi.OutputNextHeader) != tt.next) {
				t.Errorf("body %q next %q, want %q %q", r.body, r.hdr.Get(httpapi.OutputNextHeader), tt.body, tt.next)
			}
		})
	}
}

func TestEventsTimeRange(t *testing.T) {
	b := setup(t)
	for _, tt := range []struct {
		query string
		code  int
	}{
		{"?since=2030-06-01T00:00:00Z&until=2030-06-02T00:00:00Z", http.StatusOK},
		{"?since=yesterday", http.StatusBadRequest},
		{"?until=2030-06-01", http.StatusBadRequest},
	} {
		if r := b.do(t, "GET", "/api/v1/events"+tt.query, ""); r.code != tt.code {
			t.Errorf("GET /api/v1/events%s = %d, want %d", tt.query, r.code, tt.code)
		}
	}
}
