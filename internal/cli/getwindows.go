package cli

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

// getWindows prints the daemon's named windows (`almanac get windows`).
func getWindows(ctx context.Context, e *env, c *apiclient.Client, jsonOut bool) error {
	l, err := c.Windows(ctx, time.Time{})
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, l)
	}
	t := newTable(e.stdout, "NAME", "ZONE", "OPEN", "UNTIL", "NEXT OPEN", "MIN/WEEK", "WINDOWS")
	for _, w := range l.Items {
		spans := make([]string, len(w.Windows))
		for i, s := range w.Windows {
			spans[i] = s.Start + "-" + s.End
		}
		t.row(w.Name, w.TimeZone, strconv.FormatBool(w.Inside), zonedTime(w.WindowEnd), zonedTime(w.NextStart),
			strconv.Itoa(w.WeeklyMinutes), strings.Join(spans, ", "))
	}
	return t.flush()
}

// zonedTime renders an optional instant with the offset it came with (the
// window's zone), "" when absent.
func zonedTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.RFC3339)
}
