package zincati

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// docExample is the periodic configuration from Zincati's documentation.
const docExample = `[updates]
strategy = "periodic"

[[updates.periodic.window]]
days = [ "Sat", "Sun" ]
start_time = "23:30"
length_minutes = 60

[[updates.periodic.window]]
days = [ "Wed" ]
start_time = "01:00"
length_minutes = 30
`

func TestParseDocExample(t *testing.T) {
	f, err := Parse("a.toml", []byte(docExample))
	if err != nil {
		t.Fatal(err)
	}
	want := []weekly.Window{
		{Days: []time.Weekday{time.Saturday, time.Sunday}, Start: 23*60 + 30, Length: 60},
		{Days: []time.Weekday{time.Wednesday}, Start: 60, Length: 30},
	}
	if f.Strategy != "periodic" || f.TimeZone != "" || !reflect.DeepEqual(f.Windows, want) {
		t.Fatalf("got %+v", f)
	}
	c, err := Merge(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Calendar.WeeklyMinutes() != 150 || c.TimeZone != "UTC" || c.Calendar.Location() != time.UTC {
		t.Fatalf("calendar: %d minutes in %s", c.Calendar.WeeklyMinutes(), c.TimeZone)
	}
}

func TestParseAcceptsZincatiForms(t *testing.T) {
	tests := []struct {
		name, src string
		zone      string
		windows   int
	}{
		{"full Zincati sample with unrelated sections", `
[agent.timing]
steady_interval_secs = 35

[cincinnati]
base_url = "http://cincinnati.example.com:80/"

[identity]
group = "workers"
node_uuid = "27e3ac02af3946af995c9940e18b0cce"
rollout_wariness = 0.5

[updates]
allow_downgrade = true
enabled = false
strategy = "periodic"

[updates.fleet_lock]
base_url = "http://fleet-lock.example.com:8080/"

[updates.periodic]
time_zone = "America/Toronto"

[[updates.periodic.window]]
days = [ "Sat", "Sun" ]
start_time = "23:00"
length_minutes = 120
`, "America/Toronto", 1},
		{"tag-form zone", "[updates.periodic]\ntime_zone = \"america-new_york\"\n", "america-new_york", 0},
		{"inline array of tables", `updates.periodic.window = [
  { days = ["mon"], start_time = "1:00", length_minutes = 5 },
  { days = ["TUESDAY"], start_time = "02:00", length_minutes = 5 },
]`, "", 2},
		{"dotted keys", "updates.strategy = 'periodic'\nupdates.periodic.time_zone = 'UTC'\n", "UTC", 0},
		{"windows only", "[[updates.periodic.window]]\ndays=[\"fri\"]\nstart_time=\"22:00\"\nlength_minutes=10080\n", "", 1},
		{"empty file", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.toml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if f.TimeZone != tt.zone || len(f.Windows) != tt.windows {
				t.Fatalf("zone %q windows %d, want %q %d", f.TimeZone, len(f.Windows), tt.zone, tt.windows)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const head = "[updates]\nstrategy = \"periodic\"\n\n"
	window := func(body string) string { return head + "[[updates.periodic.window]]\n" + body }
	good := "days = [\"Sat\"]\nstart_time = \"23:30\"\nlength_minutes = 60\n"
	tests := []struct {
		name, src, want string
	}{
		{"unclosed table header", "[updates\nstrategy = \"periodic\"\n",
			`f.toml:1:9: expected '.' or ']' to end table name, but got '\n' instead`},
		// Keys are matched as Zincati matches them, letter case and all: a
		// key spelt otherwise is unknown, not folded onto the right one.
		{"key in other letter case", "[[updates.periodic.Window]]\n" + good,
			`f.toml:1:1: unknown key updates.periodic.Window`},
		{"key below a plain value", head + "allow_downgrade = { x = 1 }\n",
			`f.toml: unknown key updates.allow_downgrade.x`},
		{"bad day", window("days = [\"Sat\", \"Someday\"]\nstart_time = \"23:30\"\nlength_minutes = 60\n"),
			`f.toml:5:16: window 1: days[1] "Someday": unknown day (want Mon..Sun or Monday..Sunday)`},
		{"no days", window("days = []\nstart_time = \"23:30\"\nlength_minutes = 60\n"),
			`f.toml:5:8: window 1: days: at least one day is required`},
		{"hour 24", window("days = [\"Sat\"]\nstart_time = \"24:00\"\nlength_minutes = 60\n"),
			`f.toml:6:14: window 1: start_time "24:00": hour out of range`},
		{"hour 25 in the second window", window(good) + "\n[[updates.periodic.window]]\ndays = [\"Mon\"]\nstart_time = \"25:00\"\nlength_minutes = 5\n",
			`f.toml:11:14: window 2: start_time "25:00": hour out of range`},
		{"bad minute", window("days = [\"Sat\"]\nstart_time = \"10:75\"\nlength_minutes = 60\n"),
			`f.toml:6:14: window 1: start_time "10:75": minute out of range`},
		{"length 0", window("days = [\"Sat\"]\nstart_time = \"23:30\"\nlength_minutes = 0\n"),
			`f.toml:7:18: window 1: length_minutes 0: must be at least 1`},
		{"negative length", window("days = [\"Sat\"]\nstart_time = \"23:30\"\nlength_minutes = -5\n"),
			`f.toml:7:18: window 1: length_minutes -5: must be at least 1`},
		{"length as string", window("days = [\"Sat\"]\nstart_time = \"23:30\"\nlength_minutes = \"60\"\n"),
			`f.toml:7:18: window 1: length_minutes: want an integer, got string "60"`},
		{"length as float", window("days = [\"Sat\"]\nstart_time = \"23:30\"\nlength_minutes = 60.0\n"),
			`f.toml:7:18: window 1: length_minutes: want an integer, got float 60`},
		{"start as integer", window("days = [\"Sat\"]\nstart_time = 2330\nlength_minutes = 60\n"),
			`f.toml:6:14: window 1: start_time: want a string, got integer 2330`},
		{"days as string", window("days = \"Sat\"\nstart_time = \"23:30\"\nlength_minutes = 60\n"),
			`f.toml:5:8: window 1: days: want an array of day names, got string "Sat"`},
		{"day as integer", window("days = [6]\nstart_time = \"23:30\"\nlength_minutes = 60\n"),
			`f.toml:5:8: window 1: days[0]: want a day name, got integer 6`},
		{"missing start_time", window("days = [\"Sat\"]\nlength_minutes = 60\n"),
			`f.toml:4:1: window 1: missing start_time`},
		{"missing length", window("days = [\"Sat\"]\nstart_time = \"23:30\"\n"),
			`f.toml:4:1: window 1: missing length_minutes`},
		{"unknown key in window", window(good + "  lenght = 5\n"),
			`f.toml:8:3: window 1: unknown key lenght`},
		{"unknown key in updates", head + "stratgy = \"periodic\"\n",
			`f.toml:4:1: unknown key updates.stratgy`},
		{"misspelt table", "[updates.periodc]\ntime_zone = \"UTC\"\n",
			`f.toml:1:1: unknown key updates.periodc`},
		{"unknown top-level table", "[reboot]\nwindow = 1\n",
			`f.toml:1:1: unknown key reboot`},
		{"single table instead of array", head + "[updates.periodic.window]\n" + good,
			`f.toml:4:1: updates.periodic.window: want [[updates.periodic.window]] tables, got a table`},
		{"window as integer", head + "[updates.periodic]\nwindow = 5\n",
			`f.toml:5:1: updates.periodic.window: want [[updates.periodic.window]] tables, got integer 5`},
		{"updates as string", "updates = \"periodic\"\n",
			`f.toml:1:1: updates: want a table, got string "periodic"`},
		{"strategy as boolean", "[updates]\nstrategy = true\n",
			`f.toml:2:1: updates.strategy: want a string, got boolean true`},
		{"zone as integer", "[updates.periodic]\ntime_zone = 5\n",
			`f.toml:2:13: updates.periodic.time_zone: want a string, got integer 5`},
		{"syntax error", window("days = [\"Sat\"\nstart_time = \"23:30\"\n"),
			`f.toml:6:1: expected a comma (',') or array terminator (']'), but got 's'`},
		{"duplicate key", "[updates]\nstrategy = \"a\"\nstrategy = \"b\"\n",
			`f.toml:3:1: Key 'updates.strategy' has already been defined.`},
		{"unterminated string", "[updates]\nstrategy = \"periodic\n",
			`f.toml:2:21: strings cannot contain newlines`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			var ze *Error
			if !errors.As(err, &ze) || ze.File != "f.toml" {
				t.Errorf("error %#v is not a *zincati.Error for f.toml", err)
			}
		})
	}
}

func TestParseErrorWrapsFieldError(t *testing.T) {
	_, err := Parse("f.toml", []byte("[[updates.periodic.window]]\ndays=[\"x\"]\nstart_time=\"1:00\"\nlength_minutes=1\n"))
	var fe *weekly.FieldError
	if !errors.As(err, &fe) || fe.Field != "days" || fe.Index != 0 {
		t.Fatalf("error %v does not wrap the days FieldError", err)
	}
}

func frag(t *testing.T, name, src string) *Fragment {
	t.Helper()
	f, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMerge(t *testing.T) {
	usrlib := frag(t, "30-updates-strategy.toml", "[updates]\nstrategy = \"immediate\"\n")
	etc := frag(t, "55-periodic.toml", "[updates]\nstrategy = \"periodic\"\n[updates.periodic]\ntime_zone = \"Europe/Berlin\"\n"+
		"[[updates.periodic.window]]\ndays=[\"Sat\"]\nstart_time=\"22:00\"\nlength_minutes=60\n")
	more := frag(t, "60-more.toml", "[[updates.periodic.window]]\ndays=[\"Sat\"]\nstart_time=\"23:00\"\nlength_minutes=30\n")
	zone := frag(t, "70-zone.toml", "[updates.periodic]\ntime_zone = \"america-new_york\"\n")

	t.Run("later strategy and zone win, windows add up", func(t *testing.T) {
		c, err := Merge(usrlib, etc, more, zone)
		if err != nil {
			t.Fatal(err)
		}
		if c.Strategy != "periodic" || c.StrategyFile != "55-periodic.toml" || c.TimeZone != "America/New_York" {
			t.Fatalf("got %+v", c)
		}
		if got := c.Calendar.Intervals(); len(got) != 1 || got[0].End-got[0].Start != 90 {
			t.Fatalf("windows did not merge: %v", got)
		}
		if c.Calendar.Location().String() != "America/New_York" {
			t.Fatalf("zone %v", c.Calendar.Location())
		}
	})
	t.Run("a later non-periodic strategy disables the windows", func(t *testing.T) {
		_, err := Merge(etc, usrlib)
		want := `30-updates-strategy.toml:2:1: updates.strategy is "immediate", not "periodic": Zincati would not use reboot windows`
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %s", err, want)
		}
	})
	t.Run("no strategy anywhere is accepted", func(t *testing.T) {
		if _, err := Merge(more); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no windows", func(t *testing.T) {
		_, err := Merge(zone)
		if !errors.Is(err, ErrNoWindows) {
			t.Fatalf("error %v, want ErrNoWindows", err)
		}
	})
	t.Run("unknown zone is positioned", func(t *testing.T) {
		bad := frag(t, "z.toml", "[updates.periodic]\ntime_zone = \"Europe/Berln\"\n")
		_, err := Merge(more, bad)
		var uz *calendar.UnknownZoneError
		if err == nil || !strings.HasPrefix(err.Error(), `z.toml:2:13: updates.periodic.time_zone: unknown time zone "Europe/Berln"`) || !errors.As(err, &uz) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("localtime", func(t *testing.T) {
		saved := LocalZone
		defer func() { LocalZone = saved }()
		LocalZone = func() (string, error) { return "Asia/Tokyo", nil }
		c, err := Merge(more, frag(t, "l.toml", "[updates.periodic]\ntime_zone = \"localtime\"\n"))
		if err != nil || c.TimeZone != "Asia/Tokyo" {
			t.Fatalf("got %+v, %v", c, err)
		}
	})
}

func TestLoadDirectories(t *testing.T) {
	dir := t.TempDir()
	usrlib := filepath.Join(dir, "usr-lib")
	etc := filepath.Join(dir, "etc")
	write := func(path, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The distribution's default strategy, replaced by a same-named file in
	// /etc; a later-sorting /usr/lib file still applies after /etc's 10-*.
	write(filepath.Join(usrlib, "30-updates-strategy.toml"), "[updates]\nstrategy = \"immediate\"\n")
	write(filepath.Join(etc, "30-updates-strategy.toml"), "[updates]\nstrategy = \"periodic\"\n")
	write(filepath.Join(etc, "10-windows.toml"), "[[updates.periodic.window]]\ndays=[\"Sun\"]\nstart_time=\"03:00\"\nlength_minutes=60\n")
	write(filepath.Join(usrlib, "90-zone.toml"), "[updates.periodic]\ntime_zone = \"Europe/Berlin\"\n")
	write(filepath.Join(etc, "README"), "not a fragment")
	extra := filepath.Join(dir, "extra.conf")
	write(extra, "[updates.periodic]\ntime_zone = \"UTC\"\n")

	c, err := Load(usrlib, etc)
	if err != nil {
		t.Fatal(err)
	}
	if c.Strategy != "periodic" || c.TimeZone != "Europe/Berlin" || c.Calendar.WeeklyMinutes() != 60 {
		t.Fatalf("got %+v", c)
	}
	// A plain file applies after the directories, whatever its name.
	c, err = Load(extra, usrlib, etc)
	if err != nil || c.TimeZone != "UTC" {
		t.Fatalf("got %+v, %v", c, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Fatalf("missing file: %v", err)
	}
	// A directory without fragments is named in the error, which still
	// wraps ErrNoWindows.
	empty := filepath.Join(dir, "empty.d")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty); !errors.Is(err, ErrNoWindows) || !strings.HasPrefix(err.Error(), empty+": no *.toml") {
		t.Fatalf("empty directory: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(docExample)
	f.Add("[updates.periodic]\ntime_zone = \"america-new_york\"\n")
	f.Add("updates.periodic.window = [{ days = [\"mon\"], start_time = \"1:00\", length_minutes = 5 }]")
	f.Add("[[updates.periodic.window]]\ndays = [\"Sat\", 3]\nstart_time = \"24:00\"\nlength_minutes = -1\nx = 1\n")
	f.Add("[updates.periodic.window]\n")
	f.Add("[[updates.periodic.window]]\n[updates.periodic.window.x]\ny = '''\na = 1\n'''\n")
	f.Add("updates = [1, 2]\n[agent]\ntiming = 3\n")
	f.Add("[updates]\nstrategy = \"periodic\n")
	f.Fuzz(func(t *testing.T, src string) {
		frag, err := Parse("f.toml", []byte(src))
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.toml") || strings.Contains(msg, "\n") {
				t.Fatalf("badly formed error %q", msg)
			}
			var ze *Error
			if !errors.As(err, &ze) {
				t.Fatalf("error %T is not a *zincati.Error", err)
			}
			if ze.Line < 0 || ze.Col < 0 || ze.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("position %d:%d outside the input", ze.Line, ze.Col)
			}
			return
		}
		for _, w := range frag.Windows {
			if len(w.Days) == 0 || w.Length < 1 || w.Length > weekly.MaxWindowLength || w.Start < 0 || w.Start >= 1440 {
				t.Fatalf("invalid window %+v", w)
			}
		}
		_, _ = Merge(frag)
	})
}
