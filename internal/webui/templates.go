package webui

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/durationtext"
)

// pageNames are the templates under templates/ that are whole pages; each is
// parsed together with layout.html.
var pageNames = []string{"overview", "jobs", "job", "run", "windows", "resources", "events", "cluster", "applies", "apply", "login", "error", "runs", "confirm"}

func (s *server) parseTemplates() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"asset":  func(name string) string { return "/static/" + name + "?v=" + s.assetVer },
		"jobURL": jobPath,
		"runURL": func(id int64) string { return fmt.Sprintf("/runs/%d", id) },
		"when":   when,
		"iso":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"whenIn": whenIn,
		"rel":    relative,
		"dur":    duration,
		"exit":   exitText,
		"state":  stateClass,
		"zoneOf": zoneOf,
		"join":   strings.Join,
		"sub":    func(a, b int) int { return a - b },
		"add": func(ns ...int) int {
			t := 0
			for _, n := range ns {
				t += n
			}
			return t
		},
		"sortedKV":    sortedKV,
		"windowMap":   windowMap,
		"healthClass": healthClass,
		"healthText":  func(h string) string { return strings.ReplaceAll(h, "-", " ") },
		"healthTitle": func(h string) string { return healthTitles[h] },
		"zoneName":    zoneName,
		"hours":       hours,
		"applyURL":    func(id int64) string { return fmt.Sprintf("/applies/%d", id) },
		"outcome":     outcomeClass,
		"waveSymbol":  waveSymbol,
		"outlookClass": func(o string) string {
			if o == "" {
				return OutlookOnTime
			}
			return o
		},
		"failureKind": failureKind,
		"jobEvents":   func(job string) EventQuery { return EventQuery{Job: job} },
		"jobFailures": func(job string) EventQuery { return EventQuery{Job: job, Kind: "run.failed"} },
		"jobMisses":   func(job string) EventQuery { return EventQuery{Job: job, Kind: "run.missed"} },
		"jobNotifyFailures": func(job string) EventQuery {
			return EventQuery{Job: job, Kind: "notify.failed"}
		},
		"oldestFirst": func(rs []Run) []Run {
			out := make([]Run, len(rs))
			for i, r := range rs {
				out[len(rs)-1-i] = r
			}
			return out
		},
		"failedSince": func(t time.Time) EventQuery { return EventQuery{Kind: "run.failed", Since: t} },
		"missedSince": func(t time.Time) EventQuery { return EventQuery{Kind: "run.missed", Since: t} },
		"localInput": func(t time.Time, loc *time.Location) string {
			if t.IsZero() {
				return ""
			}
			return t.In(loc).Format("2006-01-02T15:04")
		},
		"eventsURL": func(q EventQuery) string {
			return eventsURL(q)
		},
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("webui: parse layout: %w", err)
	}
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(templateFS, "templates/"+name+".html"); err != nil {
			return nil, fmt.Errorf("webui: parse %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// assetVersion is a short hash over every static file, appended to asset
// URLs so browsers may cache them for good.
func assetVersion() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(staticFS, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("webui: hash static assets: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// zoneOf loads a zone by name for display, falling back to UTC.
func zoneOf(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}

// when formats an instant in loc, or a dash for the zero time.
func when(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2006-01-02 15:04:05 MST")
}

// whenIn is when with the zone given by name.
func whenIn(t time.Time, zone string) string { return when(t, zoneOf(zone)) }

// relative says how far t is from now: "in 3h 20m", "12m ago", "now".
func relative(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(now)
	switch {
	case d > -time.Second && d < time.Second:
		return "now"
	case d > 0:
		return "in " + duration(d.Round(time.Second))
	default:
		return duration(-d.Round(time.Second)) + " ago"
	}
}

// duration formats d for people as the CLI does: "24ms", "1.5s", "12s",
// "4m 10s", "3h 20m", "2d 3h".
func duration(d time.Duration) string { return durationtext.Format(d) }

func exitText(code *int) string {
	if code == nil {
		return "—"
	}
	return fmt.Sprint(*code)
}

// hours formats a number of minutes as hours: "40 h", "7 h 30 min".
func hours(minutes int) string {
	if minutes%60 == 0 {
		return fmt.Sprintf("%d h", minutes/60)
	}
	return fmt.Sprintf("%d h %d min", minutes/60, minutes%60)
}

// kv is one entry of a map, for templates that list maps in key order.
type kv struct{ Key, Value string }

func sortedKV(m map[string]string) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	slices.SortFunc(out, func(a, b kv) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// eventsURL is the event log's URL for a query.
func eventsURL(q EventQuery) string {
	v := url.Values{}
	if q.Job != "" {
		v.Set("job", q.Job)
	}
	if q.Resource != "" {
		v.Set("resource", q.Resource)
	}
	if q.Kind != "" {
		v.Set("kind", q.Kind)
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339))
	}
	if q.Cursor > 0 {
		v.Set("before", fmt.Sprint(q.Cursor))
	}
	if len(v) == 0 {
		return "/events"
	}
	return "/events?" + v.Encode()
}

// windowEntry is one line of a job's window map.
type windowEntry struct{ Selector, Window string }

// windowMap lists a job's window map with the selectors by name and
// "default" last, the order in which a node's window is looked up when
// none of the others matches.
func windowMap(m map[string]string) []windowEntry {
	out := make([]windowEntry, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "default" {
			out = append(out, windowEntry{k, m[k]})
		}
	}
	if d, ok := m["default"]; ok {
		out = append(out, windowEntry{"default", d})
	}
	return out
}

// healthTitles explain the job healths that are not plain.
var healthTitles = map[string]string{
	"failing":        "its latest finished runs failed",
	"partly-failing": "a node failed in its latest wave",
	"missing":        "every recent fire was missed: nothing of this job runs",
}

// healthClass is the badge colour of a job health (Job.Health).
func healthClass(h string) string {
	switch h {
	case "suspended":
		return "suspended"
	case "failing", "partly-failing":
		return "failed"
	case "missing":
		return "missed"
	}
	return "ok"
}
