package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/almanac-sh/almanac/internal/weekly"
	"github.com/almanac-sh/almanac/internal/zincati"
)

func init() {
	register("windows", "check an instant against Zincati-style reboot windows", runWindows)
}

// windowsJSON is the --json output of `almanac windows` (docs/windows.md). Inside
// an open window, window_end says when it closes (null if it never does) and
// next_start is null; outside, window_end is null and next_start says when
// the next window opens.
type windowsJSON struct {
	Inside        bool    `json:"inside"`
	WindowEnd     *string `json:"window_end"`
	NextStart     *string `json:"next_start"`
	WeeklyMinutes int     `json:"weekly_minutes"`
	TimeZone      string  `json:"time_zone"`
}

func runWindows(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("windows")
	atFlag := fs.String("at", "", "check this RFC 3339 instant instead of now")
	asJSON := fs.Bool("json", false, "print JSON")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("windows: no files given (want Zincati TOML fragments or config.d directories)")
	}
	at := e.now()
	if *atFlag != "" {
		at, err = time.Parse(time.RFC3339, *atFlag)
		if err != nil {
			return usagef("windows: --at %q is not an RFC 3339 time (like 2024-06-01T09:00:00Z)", *atFlag)
		}
	}
	cfg, err := zincati.Load(files...)
	if err != nil {
		return usagef("windows: %w", err)
	}
	cal := cfg.Calendar
	loc := cal.Location()
	out := windowsJSON{Inside: cal.Contains(at), WeeklyMinutes: cal.WeeklyMinutes(), TimeZone: cfg.TimeZone}
	var end, next time.Time
	var hasEnd, hasNext bool
	if out.Inside {
		end, hasEnd = cal.CurrentEnd(at)
	} else {
		next, hasNext = cal.NextOpen(at)
	}
	stamp := func(t time.Time) *string {
		s := t.In(loc).Format(time.RFC3339)
		return &s
	}
	if hasEnd {
		out.WindowEnd = stamp(end)
	}
	if hasNext {
		out.NextStart = stamp(next)
	}
	if *asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	return printWindows(e.stdout, at, cal, cfg.TimeZone, out, end, next)
}

// printWindows writes the human-readable report.
func printWindows(w io.Writer, at time.Time, cal *weekly.Calendar, zone string, out windowsJSON, end, next time.Time) error {
	loc := cal.Location()
	wall := func(t time.Time) string {
		return t.In(loc).Format(time.RFC3339) + " (" + t.In(loc).Format("Mon 15:04") + ")"
	}
	fmt.Fprintf(w, "at:             %s\n", wall(at))
	switch {
	case out.Inside && out.WindowEnd == nil:
		fmt.Fprintf(w, "inside:         yes, always (the windows cover the whole week)\n")
	case out.Inside:
		fmt.Fprintf(w, "inside:         yes, until %s, %s left\n", wall(end), fmtSpan(end.Sub(at)))
	default:
		fmt.Fprintf(w, "inside:         no, next window opens %s, in %s\n", wall(next), fmtSpan(next.Sub(at)))
	}
	fmt.Fprintf(w, "weekly minutes: %d\n", out.WeeklyMinutes)
	fmt.Fprintf(w, "time zone:      %s\n", zone)
	fmt.Fprintf(w, "windows:\n")
	// A window across Sunday midnight is stored as two intervals; show it as one.
	for _, iv := range cal.JoinedIntervals() {
		_, err := fmt.Fprintf(w, "  %s  (%s)\n", iv, fmtSpan(time.Duration(iv.End-iv.Start)*time.Minute))
		if err != nil {
			return err
		}
	}
	return nil
}

// fmtSpan formats a duration in days, hours and minutes ("2d 3h 5m", "45m",
// "30s"), rounding up to whole minutes beyond one minute.
func fmtSpan(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	}
	m := int((d + time.Minute - 1) / time.Minute)
	days, hours, mins := m/(24*60), m/60%24, m%60
	s := ""
	if days > 0 {
		s += fmt.Sprintf("%dd ", days)
	}
	if hours > 0 || days > 0 {
		s += fmt.Sprintf("%dh ", hours)
	}
	return s + fmt.Sprintf("%dm", mins)
}
