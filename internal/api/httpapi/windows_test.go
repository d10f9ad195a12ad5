package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
)

// windowSource is a fake WindowSource: one window, open on Saturdays (UTC),
// that records the instant it was asked about.
type windowSource struct {
	asked time.Time
	err   error
}

func (s *windowSource) Windows(_ context.Context, at time.Time) ([]apitype.Window, error) {
	s.asked = at
	if s.err != nil {
		return nil, s.err
	}
	return []apitype.Window{{Name: "weekend", Inside: at.Weekday() == time.Saturday, TimeZone: "UTC", WeeklyMinutes: 1440}}, nil
}

func TestWindowsEndpoint(t *testing.T) {
	saturday := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC) // t0 is a Saturday
	tests := []struct {
		name, query string
		src         *windowSource
		status      int
		asked       time.Time
		inside      bool
		errField    string
	}{
		{"now from the clock", "", &windowSource{}, http.StatusOK, saturday, true, ""},
		{"at a given instant", "?at=2030-06-03T09:00:00%2B02:00", &windowSource{}, http.StatusOK, time.Date(2030, 6, 3, 7, 0, 0, 0, time.UTC), false, ""},
		{"bad at", "?at=monday", &windowSource{}, http.StatusBadRequest, time.Time{}, false, "?at"},
		{"unknown parameter", "?when=now", &windowSource{}, http.StatusBadRequest, time.Time{}, false, "?when"},
		{"source fails", "", &windowSource{err: errors.New("disk gone")}, http.StatusInternalServerError, saturday, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := setup(t)
			b.srv.Handle("GET /api/v1/windows", httpapi.WindowsHandler(tt.src, clock.NewFake(t0)))
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/api/v1/windows"+tt.query, nil)
			rec := httptest.NewRecorder()
			b.srv.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if !tt.src.asked.Equal(tt.asked) {
				t.Errorf("source asked at %v, want %v", tt.src.asked, tt.asked)
			}
			if tt.status != http.StatusOK {
				var eb apitype.ErrorBody
				if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == nil {
					t.Fatalf("error body %s: %v", rec.Body, err)
				}
				if eb.Error.Field != tt.errField {
					t.Errorf("error field %q, want %q (%s)", eb.Error.Field, tt.errField, eb.Error.Message)
				}
				return
			}
			var l apitype.WindowList
			if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			if !l.At.Equal(tt.asked) || len(l.Items) != 1 || l.Items[0].Name != "weekend" || l.Items[0].Inside != tt.inside {
				t.Errorf("answer = %s", rec.Body)
			}
		})
	}
}

func TestWindowsEndpointEmptyAndAuth(t *testing.T) {
	b := setup(t, func(c *httpapi.Config) { c.Token = "secret" })
	var none noWindows
	b.srv.Handle("GET /api/v1/windows", httpapi.WindowsHandler(none, clock.NewFake(t0)))
	rec := httptest.NewRecorder()
	b.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/windows", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("without the token: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/windows", nil)
	req.Header.Set("Authorization", "Bearer secret")
	rec = httptest.NewRecorder()
	b.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"items":[]`) {
		t.Fatalf("no windows: %d %s", rec.Code, rec.Body)
	}
}

// noWindows is a WindowSource with no windows (a nil list).
type noWindows struct{}

func (noWindows) Windows(context.Context, time.Time) ([]apitype.Window, error) { return nil, nil }
