package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// exampleWindows is a Zincati fragment of the repository's examples: Sat
// and Sun 23:30 for an hour, Wed 01:00 for 30 minutes.
const exampleWindows = "../../examples/zincati/55-updates-strategy.toml"

func TestWindowFlag(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []windowArg
		errRe  string
	}{
		{"base name", []string{"/etc/zincati/config.d/55-updates.toml"}, []windowArg{{"55-updates", "/etc/zincati/config.d/55-updates.toml"}}, ""},
		{"repeated and comma list", []string{"a.toml,b/c.conf", "d"}, []windowArg{{"a", "a.toml"}, {"c", "b/c.conf"}, {"d", "d"}}, ""},
		{"explicit name", []string{"reboots=/etc/zincati/config.d"}, []windowArg{{"reboots", "/etc/zincati/config.d"}}, ""},
		{"empty item", []string{"a.toml,,b.toml"}, nil, `empty item in "a.toml,,b.toml"`},
		{"no file", []string{"x="}, nil, `"x=" names no file`},
		{"bad name", []string{"a b=x.toml"}, nil, `window name "a b"`},
		{"hidden file", []string{".toml"}, nil, `window name ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f windowFlag
			var err error
			for _, v := range tt.values {
				if err = f.Set(v); err != nil {
					break
				}
			}
			if tt.errRe != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errRe) {
					t.Fatalf("err = %v, want %q", err, tt.errRe)
				}
				return
			}
			if err != nil || !reflect.DeepEqual([]windowArg(f), tt.want) {
				t.Fatalf("got %v, %v; want %v", f, err, tt.want)
			}
		})
	}
}

func TestLoadNamedWindows(t *testing.T) {
	good, bad := exampleWindows, filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[updates]\nstrategy = \"periodic\"\n[[updates.periodic.window]]\ndays = [\"Funday\"]\nstart_time = \"01:00\"\nlength_minutes = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := func(nw *namedWindows) []string {
		var out []string
		for _, w := range nw.list {
			out = append(out, w.name+":"+w.kind)
		}
		return out
	}
	tests := []struct {
		name  string
		args  []windowArg
		demo  bool
		want  []string
		errRe string
	}{
		{"none", nil, false, nil, ""},
		{"one file", []windowArg{{"reboots", good}}, false, []string{"reboots:zincati"}, ""},
		{"demo", nil, true, []string{"nightly:demo", "weekend-maintenance:demo"}, ""},
		{"a file takes a demo name", []windowArg{{"nightly", good}}, true, []string{"nightly:zincati", "weekend-maintenance:demo"}, ""},
		{"duplicate", []windowArg{{"r", good}, {"r", good}}, false, nil, `two windows named "r"`},
		{"bad fragment", []windowArg{{"bad", bad}}, false, nil, `--windows bad: .*bad.toml.*Funday`},
		{"missing file", []windowArg{{"gone", filepath.Join(t.TempDir(), "gone.toml")}}, false, nil, `--windows gone: .*gone.toml: no such file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nw, err := loadNamedWindows(tt.args, tt.demo)
			if tt.errRe != "" {
				var ue *UsageError
				if err == nil || !regexp.MustCompile(tt.errRe).MatchString(err.Error()) || !errors.As(err, &ue) {
					t.Fatalf("err = %v, want a usage error matching %q", err, tt.errRe)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(names(nw), tt.want) {
				t.Fatalf("got %v, %v; want %v", names(nw), err, tt.want)
			}
		})
	}
}

func TestNamedWindowsAnswer(t *testing.T) {
	good := exampleWindows
	nw, err := loadNamedWindows([]windowArg{{"reboots", good}}, true)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC) // a Saturday
	ws, err := nw.Windows(context.Background(), at)
	if err != nil || len(ws) != 3 {
		t.Fatalf("%d windows, %v", len(ws), err)
	}
	byName := map[string]apitype.Window{}
	for _, w := range ws {
		byName[w.Name] = w
	}
	stamp := func(p *time.Time) string {
		if p == nil {
			return "null"
		}
		return p.Format(time.RFC3339)
	}
	tests := []struct {
		name              string
		inside            bool
		end, next, zone   string
		minutes, nWindows int
		first             apitype.WindowSpan
	}{
		{"weekend-maintenance", true, "2030-06-03T00:00:00Z", "null", "UTC", 2880, 1, apitype.WindowSpan{Start: "Sat 00:00", End: "Mon 00:00", StartMinute: 7200, EndMinute: 10080}},
		{"nightly", false, "null", "2030-06-02T01:00:00+02:00", "Europe/Berlin", 7 * 180, 7, apitype.WindowSpan{Start: "Mon 01:00", End: "Mon 04:00", StartMinute: 60, EndMinute: 240}},
		// exampleWindows: Wed 01:00 for 30 min, Sat and Sun 23:30 for an hour;
		// Sunday's runs over the week's end and is shown as one period.
		{"reboots", false, "null", "2030-06-01T23:30:00Z", "UTC", 150, 3, apitype.WindowSpan{Start: "Wed 01:00", End: "Wed 01:30", StartMinute: 2940, EndMinute: 2970}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := byName[tt.name]
			if w.Inside != tt.inside || stamp(w.WindowEnd) != tt.end || stamp(w.NextStart) != tt.next || w.TimeZone != tt.zone ||
				w.WeeklyMinutes != tt.minutes || len(w.Windows) != tt.nWindows || w.Windows[0] != tt.first {
				t.Errorf("got %+v (end %s, next %s)", w, stamp(w.WindowEnd), stamp(w.NextStart))
			}
		})
	}
	if last := byName["reboots"].Windows[2]; last != (apitype.WindowSpan{Start: "Sun 23:30", End: "Mon 00:30", StartMinute: 10050, EndMinute: 10110}) {
		t.Errorf("window across the week's end = %+v", last)
	}
	var none *namedWindows
	if ws, err := none.Windows(context.Background(), at); ws != nil || err != nil {
		t.Errorf("nil set: %v %v", ws, err)
	}
}

// TestWebUIDaemonPages renders the daemon's UI over a real store and checks
// the named windows appear on the overview and as calendars, and the
// single-node cluster on its page.
func TestWebUIDaemonPages(t *testing.T) {
	at, clk, st, nw := demoSetup(t)
	log := slog.New(slog.DiscardHandler)
	api := httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: at}, Clock: clk})
	ctrl := &apitest.Controller{St: st, Now: at}
	h, err := withWebUI(webUIParts{api: api, store: st, jobs: ctrl, waves: ctrl,
		cluster: &clusterNode{self: "test-node", addr: "127.0.0.1:8080", clk: clk}, windows: daemonWindows{named: nw}, clk: clk, log: log})
	if err != nil {
		t.Fatal(err)
	}
	get := getter(t, h)
	overview := get("/")
	for _, want := range []string{`data-window="weekend-maintenance" data-open="true"`, `data-window="nightly" data-open="false"`} {
		if !strings.Contains(overview, want) {
			t.Errorf("overview lacks %s", want)
		}
	}
	page := get("/windows")
	for name, blocks := range map[string]int{"weekend-maintenance": 1, "nightly": 7} {
		i := strings.Index(page, `data-window="`+name+`"`)
		if i < 0 {
			t.Fatalf("windows page has no %s", name)
		}
		article := page[i:]
		article = article[:strings.Index(article, "</article>")]
		if n := strings.Count(article, `class="block"`); n != blocks {
			t.Errorf("%s: %d blocks, want %d", name, n, blocks)
		}
	}
	if !strings.Contains(page, "Europe/Berlin") {
		t.Error("the nightly window's zone is not shown")
	}
	if c := get("/cluster"); !strings.Contains(c, "One node, <strong>test-node</strong>") || !strings.Contains(c, `data-node="test-node" data-leader="true"`) {
		t.Errorf("cluster page:\n%s", c)
	}
}

// demoSetup gives a test the daemon's pieces at a fixed instant: a SQLite
// store on a fake clock and the demo's named windows.
func demoSetup(t *testing.T) (time.Time, *clock.Fake, store.Store, *namedWindows) {
	t.Helper()
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(at)
	st, err := openSQLite(context.Background(), t.TempDir(), clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	nw, err := loadNamedWindows(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	return at, clk, st, nw
}

// getter returns a function that GETs a path from h and fails the test
// unless the answer is 200, returning the body.
func getter(t *testing.T, h http.Handler) func(path string) string {
	return func(path string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, body)
		}
		return string(body)
	}
}
