package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/oncalendar"
	"github.com/almanac-sh/almanac/internal/weekly"
)

func init() {
	register("next", "print the next fire times of a cron, systemd calendar or weekly event schedule", runNext)
}

// maxNext bounds -n so a typo cannot flood the terminal.
const maxNext = 100000

// nexter is what `almanac next` needs from a schedule engine.
type nexter interface {
	Next(time.Time) time.Time
}

// The dialects `almanac next --dialect` names.
const (
	dialectCron       = "cron"
	dialectKubernetes = "kubernetes"
	dialectSystemd    = "systemd"
	dialectEvents     = "events"
)

// parseSchedule compiles expr in dialect, or, when dialect is empty, in the
// one dialect it parses in: weekly events ("mon0900_fri1700"), cron, or
// systemd calendar events. The kubernetes dialect reads like cron and is
// never guessed. loc is the zone from --tz; a CRON_TZ=/TZ= prefix or a
// calendar event's zone suffix overrides it. It returns the dialect used.
func parseSchedule(expr, dialect string, loc *time.Location) (nexter, string, error) {
	switch dialect {
	case dialectEvents:
		s, err := weekly.ParseEvents(expr, loc)
		return s, dialect, err
	case dialectCron:
		s, err := cron.Parse(expr, cron.WithLocation(loc))
		return s, dialect, err
	case dialectKubernetes:
		s, err := cron.Parse(expr, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes))
		return s, dialect, err
	case dialectSystemd:
		s, err := oncalendar.Parse(expr, loc)
		return s, dialect, err
	case "":
	default:
		return nil, "", fmt.Errorf("--dialect %q is not one of cron, kubernetes, systemd, events", dialect)
	}
	if weekly.LooksLikeEvents(expr) {
		s, err := weekly.ParseEvents(expr, loc)
		return s, dialectEvents, err
	}
	if f := strings.Fields(expr); len(f) > 1 && weekly.LooksLikeEvents(strings.Join(f, "_")) {
		if _, err := weekly.ParseEvents(strings.Join(f, "_"), loc); err == nil {
			return nil, "", fmt.Errorf("weekly events are joined with '_', not spaces (%s)", strings.Join(f, "_"))
		}
	}
	cs, cerr := cron.Parse(expr, cron.WithLocation(loc))
	ss, serr := oncalendar.Parse(expr, loc)
	switch {
	case cerr == nil && serr == nil:
		return nil, "", fmt.Errorf("%q is both a cron expression and a systemd calendar event; pass --dialect cron or --dialect systemd", expr)
	case cerr == nil:
		return cs, dialectCron, nil
	case serr == nil:
		return ss, dialectSystemd, nil
	}
	// Neither: report the error of the dialect the expression looks like
	// (cron has five or six fields, or a macro).
	if f := strings.Fields(expr); len(f) >= 5 || strings.HasPrefix(expr, "@") || strings.Contains(expr, "TZ=") {
		return nil, "", cerr
	}
	return nil, "", fmt.Errorf("%w (nor is it a cron expression: %v)", serr, cerr)
}

// nextJSON is the --json output of `almanac next`.
type nextJSON struct {
	Expression string   `json:"expression"`
	Dialect    string   `json:"dialect"`
	TimeZone   string   `json:"time_zone"`
	Next       []string `json:"next"`
}

func runNext(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("next")
	tz := fs.String("tz", "", "time zone of the schedule, IANA or tag form (default UTC)")
	from := fs.String("from", "", "list fire times strictly after this RFC 3339 instant (default now)")
	n := fs.Int("n", 5, "how many fire times to print")
	asJSON := fs.Bool("json", false, "print JSON")
	dialect := fs.String("dialect", "", "schedule language: cron, kubernetes, systemd or events (default: the one EXPR parses in)")
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
	sched, used, err := parseSchedule(expr, *dialect, loc)
	if err != nil {
		return usagef("next: %w", err)
	}
	if l, ok := sched.(interface{ Location() *time.Location }); ok {
		loc = l.Location()
	}

	out := nextJSON{Expression: expr, Dialect: used, TimeZone: loc.String(), Next: make([]string, 0, *n)}
	for i := 0; i < *n; i++ {
		t := sched.Next(at)
		// RFC 3339 has four-digit years: a fire time after 9999 cannot be printed.
		ended := t.IsZero() || !t.After(at)
		if ended && i > 0 {
			// A schedule with fewer fires left than asked for (a one-off
			// calendar event): the ones there are, as systemd-analyze
			// calendar --iterations prints them. A fire past 9999 is
			// different: it exists but cannot be printed, so it fails.
			break
		}
		if ended || t.Year() > 9999 {
			return fmt.Errorf("next: schedule %q has no fire time after %s before the year 10000", expr, at.Format(time.RFC3339))
		}
		// Calendar events may name fractions of a second; RFC3339Nano
		// prints them and nothing more for whole seconds.
		out.Next = append(out.Next, t.In(loc).Format(time.RFC3339Nano))
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
