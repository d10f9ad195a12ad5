package daemon

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/zincati"
)

// This file is serve's named windows: `--windows [NAME=]PATH,...` loads
// Zincati-style TOML fragments (read and merged by package zincati, exactly
// as `almanac windows` reads them) as named weekly calendars, served on
// GET /api/v1/windows and drawn by the web UI.

// windowArg is one --windows item: a fragment file or config.d directory,
// and the calendar's name.
type windowArg struct{ name, path string }

// windowFlag collects --windows: the flag repeats, and each value is a
// comma-separated list of [NAME=]PATH.
type windowFlag []windowArg

// windowNameRE is what a window name may be: it appears in URLs and anchors.
var windowNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (f *windowFlag) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(*f))
	for i, a := range *f {
		parts[i] = a.name + "=" + a.path
	}
	return strings.Join(parts, ",")
}

// Set adds one flag value's items.
func (f *windowFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return fmt.Errorf("empty item in %q (want [NAME=]FILE,...)", v)
		}
		name, path, named := strings.Cut(item, "=")
		if !named {
			path = item
			name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		if path == "" {
			return fmt.Errorf("%q names no file (want NAME=FILE)", item)
		}
		if !windowNameRE.MatchString(name) {
			return fmt.Errorf("window name %q (from %q): use letters, digits, '.', '_' and '-', starting with a letter or digit; or give NAME=FILE", name, item)
		}
		*f = append(*f, windowArg{name: name, path: path})
	}
	return nil
}

// addWindowFlags registers --windows on serve's flag set.
func addWindowFlags(fs *flag.FlagSet, f *windowFlag) {
	fs.Var(f, "windows", "named weekly windows: Zincati TOML fragments or config.d directories, as [NAME=]PATH; repeatable or comma-separated (name: the file's base name)")
}

// namedWindow is one loaded calendar.
type namedWindow struct {
	name    string
	kind    string // "zincati" or "demo"
	sources []string
	cfg     *zincati.Config
}

// namedWindows are the daemon's named calendars, ordered by name. They are
// read once at start-up and immutable afterwards; a nil *namedWindows has
// none.
type namedWindows struct{ list []namedWindow }

// demoWindowFiles are the windows `serve --demo` adds, in Zincati's format.
var demoWindowFiles = []struct{ name, toml string }{
	{"weekend-maintenance", `
[updates]
strategy = "periodic"

[[updates.periodic.window]]
days = ["Sat", "Sun"]
start_time = "00:00"
length_minutes = 1440
`},
	{"nightly", `
[updates]
strategy = "periodic"

[updates.periodic]
time_zone = "Europe/Berlin"

[[updates.periodic.window]]
days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
start_time = "01:00"
length_minutes = 180
`},
}

// loadNamedWindows reads every --windows item and, with demo, the demo
// windows whose names no item took. Two items of one name are an error.
// DemoWindows returns the named windows serve --demo defines, as GET
// /api/v1/windows serves them.
func DemoWindows() (httpapi.WindowSource, error) {
	return loadNamedWindows(nil, true)
}

func loadNamedWindows(args []windowArg, demo bool) (*namedWindows, error) {
	nw := &namedWindows{}
	seen := map[string]string{}
	for _, a := range args {
		if prev, dup := seen[a.name]; dup {
			return nil, usagef("serve: --windows: two windows named %q (%s and %s); give one a name with NAME=FILE", a.name, prev, a.path)
		}
		seen[a.name] = a.path
		cfg, err := zincati.Load(a.path)
		if err != nil {
			return nil, usagef("serve: --windows %s: %v", a.name, err)
		}
		nw.list = append(nw.list, namedWindow{name: a.name, kind: "zincati", sources: []string{a.path}, cfg: cfg})
	}
	if demo {
		for _, d := range demoWindowFiles {
			if _, taken := seen[d.name]; taken {
				continue
			}
			file := "demo:" + d.name + ".toml"
			f, err := zincati.Parse(file, []byte(d.toml))
			if err != nil {
				return nil, fmt.Errorf("demo window %s: %w", d.name, err)
			}
			cfg, err := zincati.Merge(f)
			if err != nil {
				return nil, fmt.Errorf("demo window %s: %w", d.name, err)
			}
			nw.list = append(nw.list, namedWindow{name: d.name, kind: "demo", sources: []string{file}, cfg: cfg})
		}
	}
	slices.SortFunc(nw.list, func(a, b namedWindow) int { return cmp.Compare(a.name, b.name) })
	return nw, nil
}

// Windows implements httpapi.WindowSource.
func (nw *namedWindows) Windows(_ context.Context, at time.Time) ([]apitype.Window, error) {
	if nw == nil {
		return nil, nil
	}
	out := make([]apitype.Window, 0, len(nw.list))
	for _, w := range nw.list {
		cal := w.cfg.Calendar
		loc := cal.Location()
		aw := apitype.Window{Name: w.name, Kind: w.kind, Sources: w.sources, Inside: cal.Contains(at),
			WeeklyMinutes: cal.WeeklyMinutes(), TimeZone: w.cfg.TimeZone, Windows: []apitype.WindowSpan{}}
		if aw.Inside {
			if end, ok := cal.CurrentEnd(at); ok {
				end = end.In(loc)
				aw.WindowEnd = &end
			}
		} else if next, ok := cal.NextOpen(at); ok {
			next = next.In(loc)
			aw.NextStart = &next
		}
		for _, iv := range cal.JoinedIntervals() {
			aw.Windows = append(aw.Windows, apitype.WindowSpan{
				Start: weekClock(iv.Start), End: weekClock(iv.End), StartMinute: iv.Start, EndMinute: iv.End})
		}
		out = append(out, aw)
	}
	return out, nil
}

// weekMinutes is the number of minutes in a week.
const weekMinutes = 7 * 24 * 60

// weekClock reads a minute of the week (taken modulo a week) as "Sat 23:30".
func weekClock(m int) string {
	m %= weekMinutes
	days := [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	return fmt.Sprintf("%s %02d:%02d", days[m/(24*60)], m/60%24, m%60)
}

// uiWindows lists the named windows for the web UI, open state at now.
func (nw *namedWindows) uiWindows(_ context.Context, now time.Time) ([]webui.Window, error) {
	if nw == nil {
		return nil, nil
	}
	out := make([]webui.Window, 0, len(nw.list))
	for _, w := range nw.list {
		v := webui.WeeklyWindow(w.name, w.kind, w.cfg.Calendar, now)
		v.Zone = w.cfg.TimeZone
		v.Description = "From " + strings.Join(w.sources, ", ") + "."
		out = append(out, v)
	}
	return out, nil
}

// WindowsFlag registers --windows on fs, read as serve reads it, for
// commands that check manifests against the daemon's named windows
// (validate). The function it returns loads them once the flags are
// parsed, as gates by name (nil when none were given); cmd names the
// command in errors.
func WindowsFlag(fs *flag.FlagSet) func(cmd string) (job.GateFunc, error) {
	var f windowFlag
	addWindowFlags(fs, &f)
	return func(cmd string) (job.GateFunc, error) {
		if len(f) == 0 {
			return nil, nil
		}
		nw, err := loadNamedWindows(f, false)
		if err != nil {
			return nil, usagef("%s", strings.Replace(err.Error(), "serve:", cmd+":", 1))
		}
		return newGateRegistry(nw).window, nil
	}
}
