package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifestdir"
)

// scheduleSite declares one schedule of each shape the windows list draws.
const scheduleSite = `schedule { 'weekend-nights':
  range     => '02:00 - 04:00',
  weekday   => ['Sat', 'Sun'],
  time_zone => 'Europe/Berlin',
}
schedule { 'late':
  range     => '22:00 - 02:00',
  period    => daily,
  time_zone => 'UTC',
}
schedule { 'off':
  period => never,
}
schedule { 'office':
  time_zone => 'America/New_York',
  windows   => [{ days => ['Mon', 'Tue'], start_time => '09:00', length_minutes => 90 }],
}
exec { 'vacuum':
  command  => '/bin/true',
  schedule => 'weekend-nights',
}
`

// loadScheduleSite compiles manifest text and returns its schedules.
func loadScheduleSite(t *testing.T, text string) *manifestSchedules {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := manifestdir.CompileDir(dir, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms := newManifestSchedules(time.UTC)
	ms.load(cat)
	return ms
}

func TestManifestSchedulesAnswer(t *testing.T) {
	ms := loadScheduleSite(t, scheduleSite)
	nw, err := loadNamedWindows(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	dw := daemonWindows{nw, ms}
	stamp := func(p *time.Time) string {
		if p == nil {
			return "null"
		}
		return p.Format(time.RFC3339)
	}
	type want struct {
		inside    bool
		end, next string
		minutes   int
		spans     [][2]int
	}
	daily := func(start, length int) [][2]int {
		var out [][2]int
		for d := range 7 {
			out = append(out, [2]int{d*1440 + start, d*1440 + start + length})
		}
		return out
	}
	tests := []struct {
		name string
		at   time.Time
		want map[string]want
	}{
		{"saturday noon", time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC), map[string]want{
			"weekend-nights": {false, "null", "2030-06-02T02:00:00+02:00", 240, [][2]int{{7320, 7440}, {8760, 8880}}},
			"late":           {false, "null", "2030-06-01T22:00:00Z", 7 * 240, daily(1320, 240)},
			"off":            {false, "null", "null", 0, nil},
			"office":         {false, "null", "2030-06-03T09:00:00-04:00", 180, [][2]int{{540, 630}, {1980, 2070}}},
		}},
		{"saturday 02:30 in Berlin", time.Date(2030, 6, 1, 0, 30, 0, 0, time.UTC), map[string]want{
			"weekend-nights": {true, "2030-06-01T04:00:00+02:00", "null", 240, [][2]int{{7320, 7440}, {8760, 8880}}},
			"late":           {true, "2030-06-01T02:00:00Z", "null", 7 * 240, daily(1320, 240)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := dw.Windows(context.Background(), tt.at)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			byName := map[string]apitype.Window{}
			for _, w := range ws {
				names = append(names, w.Name+":"+w.Kind)
				byName[w.Name] = w
			}
			if got := strings.Join(names, " "); got != "late:schedule nightly:demo off:schedule office:schedule weekend-maintenance:demo weekend-nights:schedule" {
				t.Fatalf("windows = %s", got)
			}
			for name, w := range tt.want {
				g := byName[name]
				var spans [][2]int
				for _, s := range g.Windows {
					spans = append(spans, [2]int{s.StartMinute, s.EndMinute})
				}
				if g.Inside != w.inside || stamp(g.WindowEnd) != w.end || stamp(g.NextStart) != w.next ||
					g.WeeklyMinutes != w.minutes || !reflect.DeepEqual(spans, w.spans) {
					t.Errorf("%s: inside %v end %s next %s minutes %d spans %v", name, g.Inside, stamp(g.WindowEnd), stamp(g.NextStart), g.WeeklyMinutes, spans)
				}
			}
		})
	}

	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	ws, _ := dw.Windows(context.Background(), at)
	for _, w := range ws {
		switch w.Name {
		case "weekend-nights":
			if w.Summary != "range 02:00 - 04:00; weekday Sat, Sun; time_zone Europe/Berlin" || w.TimeZone != "Europe/Berlin" ||
				len(w.Sources) != 1 || !strings.HasSuffix(w.Sources[0], "site.pp:1:12") || w.Attributes["range"] != "02:00 - 04:00" {
				t.Errorf("weekend-nights = %+v", w)
			}
			if w.Windows[0].Start != "Sat 02:00" || w.Windows[0].End != "Sat 04:00" {
				t.Errorf("weekend-nights first span = %+v", w.Windows[0])
			}
		case "office":
			if w.Summary != "windows Mon+Tue from 09:00 for 90 min; time_zone America/New_York" {
				t.Errorf("office summary = %q", w.Summary)
			}
		case "late":
			if last := w.Windows[6]; last.Start != "Sun 22:00" || last.EndMinute != 10080+120 {
				t.Errorf("late: the range across the week's end = %+v", last)
			}
		}
	}
	var none daemonWindows
	if ws, err := none.Windows(context.Background(), at); len(ws) != 0 || err != nil {
		t.Errorf("no windows and no schedules: %v %v", ws, err)
	}
}

// TestManifestSchedulesDefaultZone checks that a schedule without
// time_zone reads wall-clock time in the agent's zone.
func TestManifestSchedulesDefaultZone(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.pp"), []byte("schedule { 'n': range => '01:00 - 02:00' }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := manifestdir.CompileDir(dir, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	ms := newManifestSchedules(tokyo)
	ms.load(cat)
	ws, _ := daemonWindows{schedules: ms}.Windows(context.Background(), time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC))
	if len(ws) != 1 || ws[0].TimeZone != "Asia/Tokyo" || ws[0].NextStart == nil || ws[0].NextStart.Format(time.RFC3339) != "2030-06-02T01:00:00+09:00" {
		t.Fatalf("windows = %+v", ws)
	}
}

// TestManifestSchedulesHTTP serves GET /api/v1/windows and the web UI's
// overview and Windows page over the daemon's wiring.
func TestManifestSchedulesHTTP(t *testing.T) {
	at, clk, st, nw := demoSetup(t)
	windows := daemonWindows{nw, loadScheduleSite(t, scheduleSite)}
	ctrl := &apitest.Controller{St: st, Now: at}
	api := httpapi.New(httpapi.Config{Store: st, Controller: ctrl, Clock: clk})
	api.Handle("GET /api/v1/windows", httpapi.WindowsHandler(windows, clk))
	h, err := withWebUI(webUIParts{api: api, store: st, jobs: ctrl, waves: ctrl, cluster: &clusterNode{self: "n", addr: "127.0.0.1:8080", clk: clk},
		windows: windows, clk: clk, log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	get := getter(t, h)

	t.Run("api", func(t *testing.T) {
		var l apitype.WindowList
		if err := json.Unmarshal([]byte(get("/api/v1/windows?at=2030-06-01T00:30:00Z")), &l); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]string{}
		for _, w := range l.Items {
			kinds[w.Name] = w.Kind
			if w.Name == "weekend-nights" && (!w.Inside || len(w.Windows) != 2 || w.Summary == "") {
				t.Errorf("weekend-nights = %+v", w)
			}
		}
		if kinds["weekend-nights"] != "schedule" || kinds["nightly"] != "demo" || len(kinds) != 6 {
			t.Errorf("kinds = %v", kinds)
		}
	})

	t.Run("overview", func(t *testing.T) {
		page := get("/")
		for _, want := range []string{`data-window="weekend-nights" data-open="false"`, `data-window="weekend-maintenance" data-open="true"`} {
			if !strings.Contains(page, want) {
				t.Errorf("overview lacks %s", want)
			}
		}
	})

	t.Run("windows page", func(t *testing.T) {
		page := get("/windows")
		for name, blocks := range map[string]int{"weekend-nights": 2, "late": 7, "office": 2, "off": 0, "nightly": 7} {
			i := strings.Index(page, `data-window="`+name+`"`)
			if i < 0 {
				t.Fatalf("windows page has no %s", name)
			}
			article := page[i:]
			article = article[:strings.Index(article, "</article>")]
			if n := strings.Count(article, `class="block"`); n != blocks {
				t.Errorf("%s: %d blocks, want %d", name, n, blocks)
			}
			if name == "weekend-nights" {
				for _, want := range []string{"Europe/Berlin", "schedule", "range 02:00 - 04:00; weekday Sat, Sun", `class="now"`} {
					if !strings.Contains(article, want) {
						t.Errorf("weekend-nights lacks %q:\n%s", want, article)
					}
				}
			}
			if name == "off" && !strings.Contains(article, "never matches") {
				t.Errorf("off does not say it never matches:\n%s", article)
			}
		}
	})
}

// BenchmarkScheduleWeek measures drawing one schedule's week from scratch
// (a Match per minute of the week), the cost of the first request of a week.
func BenchmarkScheduleWeek(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(scheduleSite), 0o644); err != nil {
		b.Fatal(err)
	}
	cat, err := manifestdir.CompileDir(dir, catalog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ms := newManifestSchedules(time.UTC)
	ms.load(cat)
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range ms.all() {
		b.Run(s.title, func(b *testing.B) {
			for b.Loop() {
				s.hasWeek = false
				s.weekIntervals(at)
			}
		})
	}
}

func TestZoneLabel(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	tests := []struct {
		tz   string
		loc  *time.Location
		want string
	}{
		{"", berlin, "Europe/Berlin"},
		{"Asia/Tokyo", time.Local, "Asia/Tokyo"},
		{":America/New_York", time.Local, "America/New_York"},
		{"Nowhere/Bogus", time.Local, "Local"},
	}
	for _, tt := range tests {
		t.Run(tt.tz, func(t *testing.T) {
			t.Setenv("TZ", tt.tz)
			if got := zoneLabel(tt.loc); got != tt.want {
				t.Errorf("zoneLabel = %q, want %q", got, tt.want)
			}
		})
	}
}
