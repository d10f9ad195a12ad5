package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
)

// WindowSource answers GET /api/v1/windows: every named window, read at at,
// ordered by name.
type WindowSource interface {
	Windows(ctx context.Context, at time.Time) ([]apitype.Window, error)
}

// WindowsHandler serves GET /api/v1/windows from src at the clock's now, or
// at the RFC 3339 instant of ?at=. The daemon registers it with
// Server.Handle, so it shares the API's authentication.
func WindowsHandler(src WindowSource, clk clock.Clock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkQuery(r, "at"); err != nil {
			writeError(w, apiError(err))
			return
		}
		at := clk.Now()
		if s := r.URL.Query().Get("at"); s != "" {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				writeError(w, badRequest("?at", fmt.Sprintf("%q is not an RFC 3339 time (like 2024-06-01T09:00:00Z)", s)))
				return
			}
			at = t
		}
		ws, err := src.Windows(r.Context(), at)
		if err != nil {
			writeError(w, &apitype.Error{Code: apitype.CodeInternal, Message: "cannot read the windows: " + err.Error()})
			return
		}
		if ws == nil {
			ws = []apitype.Window{}
		}
		writeJSON(w, http.StatusOK, apitype.WindowList{At: at, Items: ws})
	})
}
