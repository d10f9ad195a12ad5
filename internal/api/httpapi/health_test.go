package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
)

func TestHealth(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		notes  []string
		code   int
		status string
	}{
		{"healthy", "", nil, http.StatusOK, "ok"},
		{"store failing", "store: writes failing since 2030-06-01T12:00:00Z: write: no space left on device", nil, http.StatusServiceUnavailable, "degraded"},
		{"a clock step is a note, not a fault", "", []string{"the wall clock stepped back 1h0m0s at 2030-06-01T12:00:00Z"}, http.StatusOK, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := setup(t, func(c *httpapi.Config) {
				c.Health = func() string { return tt.reason }
				c.Notes = func() []string { return tt.notes }
			})
			r := b.do(t, "GET", "/healthz", "")
			var h apitype.Health
			if err := json.Unmarshal([]byte(r.body), &h); err != nil {
				t.Fatal(err)
			}
			if r.code != tt.code || h.Status != tt.status || h.Reason != tt.reason || h.Version != "test" || fmt.Sprint(h.Notes) != fmt.Sprint(tt.notes) {
				t.Errorf("GET /healthz = %d %+v, want %d %q %q", r.code, h, tt.code, tt.status, tt.reason)
			}
		})
	}
}
