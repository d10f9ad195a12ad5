package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
)

func TestHealth(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		code   int
		status string
	}{
		{"healthy", "", http.StatusOK, "ok"},
		{"store failing", "store: writes failing since 2030-06-01T12:00:00Z: write: no space left on device", http.StatusServiceUnavailable, "degraded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := setup(t, func(c *httpapi.Config) { c.Health = func() string { return tt.reason } })
			r := b.do(t, "GET", "/healthz", "")
			var h apitype.Health
			if err := json.Unmarshal([]byte(r.body), &h); err != nil {
				t.Fatal(err)
			}
			if r.code != tt.code || h.Status != tt.status || h.Reason != tt.reason || h.Version != "test" {
				t.Errorf("GET /healthz = %d %+v, want %d %q %q", r.code, h, tt.code, tt.status, tt.reason)
			}
		})
	}
}
