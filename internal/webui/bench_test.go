package webui_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

// benchPage measures serving one page over the in-memory demo backend, so
// the number is the UI's own cost: routing, backend calls, templates, SVG.
func benchPage(b *testing.B, path string) {
	c := clock.NewFake(demoNow)
	h, err := webui.New(webui.Config{Backend: webuitest.Demo(c), Clock: c, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "localhost"
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", path, w.Code)
		}
	}
}

func BenchmarkOverviewPage(b *testing.B)  { benchPage(b, "/") }
func BenchmarkJobsPage(b *testing.B)      { benchPage(b, "/jobs") }
func BenchmarkJobPage(b *testing.B)       { benchPage(b, "/jobs/backup") }
func BenchmarkWindowsPage(b *testing.B)   { benchPage(b, "/windows") }
func BenchmarkResourcesPage(b *testing.B) { benchPage(b, "/resources") }
func BenchmarkEventsPage(b *testing.B)    { benchPage(b, "/events") }
