package daemon

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/puppetsched"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// This file is the daemon's view of the Puppet `schedule` resources of the
// manifests in force (--manifests): each is listed next to the named
// windows on GET /api/v1/windows and drawn on the web UI's Windows page.
// The set is rebuilt from the catalog every time the manifest watcher
// accepts a new load, so it never disagrees with the gates in force.
//
// A schedule is "open" when its time conditions (range, weekday, windows,
// in its zone) hold. period, periodmatch and repeat are left out of that:
// they limit how often each resource is applied counting from when that
// resource was last checked, which differs from resource to resource, so
// they cannot be drawn on a calendar. A schedule with `period => never`
// never matches and is shown closed, with no next opening.

// scheduleKind is the kind of a manifest schedule on the windows list.
const scheduleKind = "schedule"

// scheduleAttrOrder is the order the attributes are summarised in.
var scheduleAttrOrder = []string{"range", "weekday", "windows", "time_zone", "period", "periodmatch", "repeat"}

// manifestSchedule is one schedule resource prepared for showing.
type manifestSchedule struct {
	title  string
	source string // file:line:col of the declaration
	attrs  map[string]any
	// gate is the schedule without period, periodmatch and repeat: what
	// "open" means here. nil when the schedule cannot be built (err).
	gate   *puppetsched.Schedule
	period puppetsched.Period
	zone   string
	err    string

	mu      sync.Mutex
	hasWeek bool
	weekOf  time.Time // the Monday (as a UTC date) week was computed for
	week    []weekly.Interval
}

// manifestSchedules holds the schedules of the manifests in force. The
// zero value has none; a nil pointer too.
type manifestSchedules struct {
	loc  *time.Location // zone of schedules without time_zone
	list atomic.Pointer[[]*manifestSchedule]
}

// newManifestSchedules returns an empty set whose schedules without a
// time_zone read wall-clock time in loc (the agent's zone, --agent-tz).
func newManifestSchedules(loc *time.Location) *manifestSchedules {
	if loc == nil {
		loc = time.UTC
	}
	return &manifestSchedules{loc: loc}
}

// load replaces the set with the schedule resources of cat.
func (ms *manifestSchedules) load(cat *catalog.Catalog) {
	if ms == nil {
		return
	}
	var list []*manifestSchedule
	for _, r := range cat.Applied("schedule") {
		list = append(list, buildSchedule(r, ms.loc))
	}
	slices.SortFunc(list, func(a, b *manifestSchedule) int { return cmp.Compare(a.title, b.title) })
	ms.list.Store(&list)
}

// all returns the schedules in force, ordered by title.
func (ms *manifestSchedules) all() []*manifestSchedule {
	if ms == nil {
		return nil
	}
	if p := ms.list.Load(); p != nil {
		return *p
	}
	return nil
}

// buildSchedule prepares one schedule resource. The catalog compiler has
// validated it already; a failure here is shown on the schedule itself
// rather than withholding the whole list.
func buildSchedule(r *catalog.Resource, loc *time.Location) *manifestSchedule {
	r = r.Detach() // kept while the manifests are in force: none of their text
	s := &manifestSchedule{title: r.Title, source: r.Pos.String(), attrs: map[string]any{}, zone: zoneLabel(loc)}
	for _, k := range scheduleAttrOrder {
		if v, ok := r.Params[k]; ok && v != nil {
			s.attrs[k] = v
		}
	}
	p, err := puppetsched.FromAttrs(r.Params)
	var full *puppetsched.Schedule
	if err == nil {
		full, err = puppetsched.New(r.Title, p, puppetsched.WithDefaultLocation(loc))
	}
	if err == nil {
		timeOnly := p
		timeOnly.Period, timeOnly.PeriodMatch, timeOnly.Repeat = nil, nil, nil
		s.gate, err = puppetsched.New(r.Title, timeOnly, puppetsched.WithDefaultLocation(loc))
	}
	if err != nil {
		s.err = err.Error()
		return s
	}
	s.period = full.Period()
	s.zone = zoneLabel(full.Location())
	return s
}

// zoneLabel names a zone for showing: its IANA name, also for the local
// zone when TZ or /etc/localtime tells it (Go calls that zone "Local").
func zoneLabel(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	name := strings.TrimPrefix(os.Getenv("TZ"), ":")
	if name == "" {
		if target, err := os.Readlink("/etc/localtime"); err == nil {
			if _, after, ok := strings.Cut(target, "zoneinfo/"); ok {
				name = after
			}
		}
	}
	if name == "" {
		return loc.String()
	}
	if _, err := time.LoadLocation(name); err != nil {
		return loc.String()
	}
	return name
}

// summary lists the set attributes, as "range 02:00 - 04:00; weekday Sat, Sun".
func (s *manifestSchedule) summary() string {
	var parts []string
	for _, k := range scheduleAttrOrder {
		if v, ok := s.attrs[k]; ok {
			parts = append(parts, k+" "+attrText(v))
		}
	}
	if len(parts) == 0 {
		return "no attributes: always open"
	}
	return strings.Join(parts, "; ")
}

// attrText writes an attribute value as a manifest author reads it.
func attrText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = attrText(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		// A windows entry: {days => [...], start_time => 'HH:MM', length_minutes => N}.
		if days, ok := v["days"]; ok {
			return fmt.Sprintf("%s from %s for %s min", strings.ReplaceAll(attrText(days), ", ", "+"),
				attrText(v["start_time"]), attrText(v["length_minutes"]))
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " => " + attrText(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// explanation says in words what the calendar cannot show.
func (s *manifestSchedule) explanation() string {
	switch {
	case s.err != "":
		return "Cannot be evaluated: " + s.err
	case s.period == puppetsched.Never:
		return "period never: this schedule never matches, so what it gates is never applied."
	case s.period != puppetsched.PeriodNone:
		return fmt.Sprintf("Shaded: when its time conditions hold. period %s also limits each resource to its repeat count per period, counted from when that resource was last checked.", s.period)
	}
	return ""
}

// never reports whether the schedule can never be open.
func (s *manifestSchedule) never() bool { return s.gate == nil || s.period == puppetsched.Never }

// open reports whether the schedule's time conditions hold at t.
func (s *manifestSchedule) open(t time.Time) bool {
	return !s.never() && s.gate.Match(time.Time{}, t)
}

// scanLimit bounds the minute-by-minute search for the end of an opening:
// a schedule open for longer than this is shown with no closing time.
const scanLimit = 8 * 24 * 60

// closes returns when the opening that contains t ends, to the minute:
// the first minute from t's whose middle does not match. false when none
// does within scanLimit (open all week).
func (s *manifestSchedule) closes(t time.Time) (time.Time, bool) {
	b := t.Truncate(time.Minute)
	for range scanLimit {
		if !s.gate.Match(time.Time{}, b.Add(30*time.Second)) {
			if b.Before(t) {
				b = t
			}
			return b, true
		}
		b = b.Add(time.Minute)
	}
	return time.Time{}, false
}

// nextOpen returns the first instant >= t at which the schedule is open.
func (s *manifestSchedule) nextOpen(t time.Time) (time.Time, bool) {
	if s.never() {
		return time.Time{}, false
	}
	return s.gate.NextMatch(time.Time{}, t)
}

// weekIntervals returns the open periods of the week (Monday to Sunday, on
// the schedule's wall clock) that contains t, in minutes since Monday
// 00:00, a period across Sunday midnight joined into one whose End passes
// weekMinutes. Each wall-clock minute is open when the middle of it
// matches, so the picture is exact to the minute and shows the week's own
// daylight-saving changes. It is computed once per week.
func (s *manifestSchedule) weekIntervals(t time.Time) []weekly.Interval {
	if s.never() {
		return nil
	}
	loc := s.gate.Location()
	l := t.In(loc)
	y, mo, d := l.Date()
	d -= (int(l.Weekday()) + 6) % 7 // back to Monday
	monday := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasWeek && s.weekOf.Equal(monday) {
		return s.week
	}
	var out []weekly.Interval
	start := -1
	for m := 0; m <= weekMinutes; m++ {
		in := m < weekMinutes && s.gate.Match(time.Time{}, time.Date(y, mo, d, 0, m, 30, 0, loc))
		switch {
		case in && start < 0:
			start = m
		case !in && start >= 0:
			out = append(out, weekly.Interval{Start: start, End: m})
			start = -1
		}
	}
	if n := len(out); n > 1 && out[0].Start == 0 && out[n-1].End == weekMinutes {
		out[n-1].End = weekMinutes + out[0].End
		out = out[1:]
	}
	s.hasWeek, s.weekOf, s.week = true, monday, out
	return out
}

// apiWindow describes the schedule on GET /api/v1/windows, read at at.
func (s *manifestSchedule) apiWindow(at time.Time) apitype.Window {
	w := apitype.Window{Name: s.title, Kind: scheduleKind, Sources: []string{s.source}, TimeZone: s.zone,
		Summary: s.summary(), Attributes: s.attrs, Windows: []apitype.WindowSpan{}}
	if s.never() {
		return w
	}
	loc := s.gate.Location()
	if w.Inside = s.open(at); w.Inside {
		if end, ok := s.closes(at); ok {
			end = end.In(loc)
			w.WindowEnd = &end
		}
	} else if next, ok := s.nextOpen(at); ok {
		next = next.In(loc)
		w.NextStart = &next
	}
	for _, iv := range s.weekIntervals(at) {
		w.WeeklyMinutes += iv.End - iv.Start
		w.Windows = append(w.Windows, apitype.WindowSpan{
			Start: weekClock(iv.Start), End: weekClock(iv.End), StartMinute: iv.Start, EndMinute: iv.End})
	}
	return w
}

// uiWindow describes the schedule for the web UI at now.
func (s *manifestSchedule) uiWindow(now time.Time) webui.Window {
	w := webui.Window{Name: s.title, Kind: scheduleKind, Zone: s.zone}
	desc := "Puppet schedule at " + s.source + ": " + s.summary() + "."
	if e := s.explanation(); e != "" {
		desc += " " + e
	}
	w.Description = desc
	if s.never() {
		return w
	}
	if w.Open = s.open(now); w.Open {
		if end, ok := s.closes(now); ok {
			w.Until = end
		}
	} else if next, ok := s.nextOpen(now); ok {
		w.Until = next
	}
	for _, iv := range s.weekIntervals(now) {
		w.Intervals = append(w.Intervals, webui.Interval{Start: iv.Start, End: iv.End})
	}
	return w
}

// daemonWindows is what the daemon lists as windows: the named windows of
// --windows and --demo, then the schedules of the manifests in force,
// ordered by name (a window before a schedule of the same name).
type daemonWindows struct {
	named     *namedWindows
	schedules *manifestSchedules
}

// Windows implements httpapi.WindowSource.
func (dw daemonWindows) Windows(ctx context.Context, at time.Time) ([]apitype.Window, error) {
	out, err := dw.named.Windows(ctx, at)
	if err != nil {
		return nil, err
	}
	for _, s := range dw.schedules.all() {
		out = append(out, s.apiWindow(at))
	}
	slices.SortStableFunc(out, func(a, b apitype.Window) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// uiWindows lists the same for the web UI, open state at now.
func (dw daemonWindows) uiWindows(ctx context.Context, now time.Time) ([]webui.Window, error) {
	out, err := dw.named.uiWindows(ctx, now)
	if err != nil {
		return nil, err
	}
	for _, s := range dw.schedules.all() {
		out = append(out, s.uiWindow(now))
	}
	slices.SortStableFunc(out, func(a, b webui.Window) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}
