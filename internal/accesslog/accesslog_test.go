package accesslog_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/accesslog"
	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
)

// TestCombinedFormat: a line per request in the Combined Log Format, the
// user field from the audit actor the handler set, fields escaped so a
// client cannot forge or break lines.
func TestCombinedFormat(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	h := accesslog.New(&out, clock.NewFake(at)).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Who") != "" {
			_ = audit.With(r.Context(), audit.Actor{Name: r.Header.Get("X-Who"), Via: audit.ViaAPI})
		}
		if r.URL.Path == "/nope" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte("hello"))
	}))
	for _, tc := range []struct {
		name, method, target, who, ua, want string
	}{
		{"authenticated", "POST", "/api/v1/jobs/x/suspend", "alice", "almanac-cli",
			`192.0.2.1 - alice [27/Nov/2026:10:00:00 +0000] "POST /api/v1/jobs/x/suspend HTTP/1.1" 200 5 "-" "almanac-cli"` + "\n"},
		{"refused", "GET", "/nope", "", "",
			`192.0.2.1 - - [27/Nov/2026:10:00:00 +0000] "GET /nope HTTP/1.1" 403 3 "-" "-"` + "\n"},
		{"hostile", "GET", "/x", "fleetlock:a b", "evil\"\n192.0.2.9 - admin",
			`192.0.2.1 - fleetlock:a\x20b [27/Nov/2026:10:00:00 +0000] "GET /x HTTP/1.1" 200 5 "-" "evil\"\x0a192.0.2.9 - admin"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			req := httptest.NewRequest(tc.method, tc.target, nil)
			req.Header.Set("X-Who", tc.who)
			if tc.ua != "" {
				req.Header.Set("User-Agent", tc.ua)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if out.String() != tc.want {
				t.Errorf("line\n%q\nwant\n%q", out.String(), tc.want)
			}
		})
	}
}
