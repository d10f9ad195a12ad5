package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/weekly"
)

func init() {
	register("next", "print the next fire times of a cron or weekly event schedule", runNext)
}

// maxNext bounds -n so a typo cannot flood the terminal.
const maxNext = 100000

// nexter is what `almanac next` needs from a schedule engine.
type nexter interface {
	Next(time.Time) time.Time
}

// parseSchedule picks the engine for expr: the weekly event syntax
// ("mon0900_fri1700") or else the cron dialect. loc is the zone from --tz; a
// CRON_TZ=/TZ= prefix in a cron expression overrides it.
func parseSchedule(expr string, loc *time.Location) (nexter, error) {
	if weekly.LooksLikeEvents(expr) {
		return weekly.ParseEvents(expr, loc)
	}
	if f := strings.Fields(expr); len(f) > 1 && weekly.LooksLikeEvents(strings.Join(f, "_")) {
		if _, err := weekly.ParseEvents(strings.Join(f, "_"), loc); err == nil {
			return nil, fmt.Errorf("weekly events are joined with '_', not spaces (%s)", strings.Join(f, "_"))
		}
	}
	return cron.Parse(expr, cron.WithLocation(loc))
}

// nextJSON is the --json output of `almanac next`.
type nextJSON struct {
	Expression string   `json:"expression"`
	TimeZone   string   `json:"time_zone"`
	Next       []string `json:"next"`
}

func runNext(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("next")
	tz := fs.String("tz", "", "time zone of the schedule, IANA or tag form (default UTC)")
	from := fs.String("from", "", "list fire times strictly after this RFC 3339 instant (default now)")
	n := fs.Int("n", 5, "how many fire times to print")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usagef("next: no schedule given (want a cron expression like '0 9 * * 1-5' or weekly events like mon0900_fri1700)")
	case len(pos) > 1:
		return usagef("next: expected one schedule, got %d arguments (quote the expression: almanac next '%s')", len(pos), strings.Join(pos, " "))
	case *n < 1 || *n > maxNext:
		return usagef("next: -n %d out of range 1-%d", *n, maxNext)
	}
	loc := time.UTC
	if *tz != "" {
		if loc, err = calendar.LoadZone(*tz); err != nil {
			return usagef("next: --tz: %w", err)
		}
	}
	at := e.now()
	if *from != "" {
		if at, err = time.Parse(time.RFC3339, *from); err != nil {
			return usagef("next: --from %q is not an RFC 3339 time with offset (like 2025-06-01T09:00:00Z)", *from)
		}
	}
	expr := pos[0]
	sched, err := parseSchedule(expr, loc)
	if err != nil {
		return usagef("next: %w", err)
	}
	if l, ok := sched.(interface{ Location() *time.Location }); ok {
		loc = l.Location()
	}

	out := nextJSON{Expression: expr, TimeZone: loc.String(), Next: make([]string, 0, *n)}
	for i := 0; i < *n; i++ {
		t := sched.Next(at)
		// RFC 3339 has four-digit years: a fire time after 9999 cannot be printed.
		if t.IsZero() || !t.After(at) || t.Year() > 9999 {
			return fmt.Errorf("next: schedule %q has no fire time after %s before the year 10000", expr, at.Format(time.RFC3339))
		}
		out.Next = append(out.Next, t.In(loc).Format(time.RFC3339))
		at = t
	}
	if *asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	_, err = fmt.Fprintln(e.stdout, strings.Join(out.Next, "\n"))
	return err
}
