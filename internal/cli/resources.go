package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// getResources prints `almanac get resources`.
func getResources(ctx context.Context, e *env, c *apiclient.Client, jsonOut bool) error {
	l, err := c.ResourceList(ctx)
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, l)
	}
	t := newTable(e.stdout, "ID", "NAME", "STATE", "VALIDATION", "ZONE", "NEXT START", "NEXT STOP", "ERRORS", "WARNINGS")
	for _, r := range l.Items {
		t.row(r.ID, r.Name, r.State, r.Validation, r.TimeZone, zoned(r.NextStart), zoned(r.NextStop),
			strconv.Itoa(len(r.Errors)), strconv.Itoa(len(r.Warnings)))
	}
	return t.flush()
}

// zoned renders an optional instant in the zone it came in (the schedule's).
func zoned(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// describeResourceJSON is `describe resource -o json`.
type describeResourceJSON struct {
	Resource apitype.Resource `json:"resource"`
	Events   []apitype.Event  `json:"recent_events"`
}

// describeResource prints `almanac describe resource ID`.
func describeResource(ctx context.Context, e *env, c *apiclient.Client, id string, nEvents int, jsonOut bool) error {
	r, err := c.ResourceGet(ctx, id)
	if err != nil {
		return apiErr(err)
	}
	var events []apitype.Event
	if nEvents > 0 {
		p, err := c.EventList(ctx, apiclient.EventFilter{Resource: r.ID, Limit: nEvents})
		if err != nil {
			return apiErr(err)
		}
		events = p.Items
	}
	if jsonOut {
		if events == nil {
			events = []apitype.Event{}
		}
		return writeJSONOut(e.stdout, describeResourceJSON{Resource: r, Events: events})
	}
	w := e.stdout
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-22s %s\n", k+":", v)
		}
	}
	kv("ID", r.ID)
	kv("Name", r.Name)
	kv("State", r.State)
	kv("Validation", r.Validation)
	kv("Time zone", r.TimeZone)
	kv("Start", r.Start)
	kv("Stop", r.Stop)
	if r.Scheduled && r.Stop != "" {
		kv("Stop hibernates", strconv.FormatBool(r.Hibernate))
	}
	kv("Supports hibernation", strconv.FormatBool(r.SupportsHibernation))
	kv("Notify", r.Notify)
	next := func(t *time.Time) string {
		if s := zoned(t); s != "" {
			return s
		}
		return "none"
	}
	if r.Scheduled {
		kv("Next start", next(r.NextStart))
		kv("Next stop", next(r.NextStop))
	}
	if rt := r.Retry; rt != nil {
		kv("Retrying", fmt.Sprintf("%s for %s: %d attempts failed, next at %s, gives up at %s",
			rt.Action, rt.Transition.Format(time.RFC3339), rt.Attempts, rt.Next.Format(time.RFC3339), rt.Deadline.Format(time.RFC3339)))
	}
	kv("Last seen", fmtTime(&r.SeenAt))
	if len(r.Tags) > 0 {
		fmt.Fprintln(w, "Tags:")
		keys := make([]string, 0, len(r.Tags))
		for k := range r.Tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %s=%s\n", k, r.Tags[k])
		}
	}
	for _, f := range []struct {
		title string
		list  []apitype.Finding
	}{{"Errors (no action is taken until they are fixed)", r.Errors}, {"Warnings", r.Warnings}} {
		if len(f.list) > 0 {
			fmt.Fprintf(w, "%s:\n", f.title)
			for _, x := range f.list {
				fmt.Fprintf(w, "  %s\n", x.Message)
			}
		}
	}
	if r.Scheduled {
		fmt.Fprintf(w, "Week (%s):\n", r.TimeZone)
		writeWeekGrid(w, r.StartTimes, r.StopTimes, r.Hibernate)
	}
	if nEvents > 0 {
		fmt.Fprintln(w, "Recent events:")
		if len(events) == 0 {
			fmt.Fprintln(w, "  (none)")
			return nil
		}
		t := newTable(w, "TIME", "KIND", "MESSAGE")
		for _, ev := range events {
			t.row(fmtTime(&ev.Time), strings.TrimPrefix(ev.Kind, "resource."), ev.Message)
		}
		return t.flush()
	}
	return nil
}

const minutesPerWeek = 7 * 24 * 60

// writeWeekGrid draws a week of a schedule, one line per day and one
// character per half hour: '#' where the schedule leaves the resource up,
// '.' where it leaves it down, 'S' and 'X' (or 'H' for a hibernating stop)
// in the half hour holding a start or a stop. Between its events a schedule
// repeats its last event's state (a start-only schedule is up all week);
// starts and stops are minutes since Monday 00:00.
func writeWeekGrid(w io.Writer, starts, stops []int, hibernate bool) {
	type ev struct {
		at int
		up bool
	}
	var evs []ev
	for _, m := range starts {
		evs = append(evs, ev{m, true})
	}
	for _, m := range stops {
		evs = append(evs, ev{m, false})
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	// upAt reports the state the schedule leaves at minute m: that of the
	// last event at or before m, wrapping around the week.
	upAt := func(m int) bool {
		if len(evs) == 0 {
			return false
		}
		state := evs[len(evs)-1].up
		for _, e := range evs {
			if e.at > m {
				break
			}
			state = e.up
		}
		return state
	}
	stopMark := byte('X')
	if hibernate {
		stopMark = 'H'
	}
	fmt.Fprintf(w, "       %-12s%-12s%-12s%-12s\n", "00", "06", "12", "18")
	for d, day := range []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} {
		row := make([]byte, 48)
		for i := range row {
			m := d*1440 + i*30
			row[i] = '.'
			if upAt(m + 29) {
				row[i] = '#'
			}
			for _, e := range evs {
				if e.at >= m && e.at < m+30 && e.at < minutesPerWeek {
					if e.up {
						row[i] = 'S'
					} else {
						row[i] = stopMark
					}
				}
			}
		}
		fmt.Fprintf(w, "  %s  %s\n", day, row)
	}
	fmt.Fprintf(w, "  # up  . down  S start  %c %s (one character per half hour)\n", stopMark, map[bool]string{true: "hibernate", false: "stop"}[hibernate])
}
