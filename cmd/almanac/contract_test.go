package main

// Black-box tests of the stable CLI contract: the real binary is built once
// (servetest.Binary) and every test runs it as a separate process, exactly
// as a script outside this repository would, checking exit codes, the output
// formats the contract fixes and the behaviour on bad input.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/servetest"
)

func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// almanac runs the binary with args in dir (the repository root when empty)
// and the extra environment, and fails the test if it crashed.
func almanac(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, servetest.Binary(t), args...)
	if dir == "" {
		dir = repoRoot(t)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("almanac %q: %v", args, err)
	}
	noCrash(t, args, r)
	return r
}

// noCrash fails the test on a panic or a Go stack trace in the output.
func noCrash(t *testing.T, args []string, r result) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(r.stderr, s) || strings.Contains(r.stdout, s) {
			t.Fatalf("almanac %q printed %q (a crash or stack trace):\n%s", args, s, r)
		}
	}
}

// repoRoot is the repository's top directory (two levels above this package).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// wantUsageError checks the contract for bad input: the given exit code, a
// single line on stderr that mentions every fragment, nothing on stdout.
func wantError(t *testing.T, r result, code int, fragments ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\n%s", r.code, code, r)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty on error:\n%s", r)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || lines[0] == "" {
		t.Errorf("stderr has %d lines, want one:\n%s", len(lines), r)
	}
	for _, f := range fragments {
		if !strings.Contains(r.stderr, f) {
			t.Errorf("stderr does not mention %q:\n%s", f, r)
		}
	}
}

// jsonKeys decodes one JSON object and returns its sorted keys.
func jsonKeys(t *testing.T, s string, into any) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, s)
	}
	if err := json.Unmarshal([]byte(s), into); err != nil {
		t.Fatalf("decode %T: %v\n%s", into, err, s)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rfc3339Offset matches an RFC 3339 instant with a Z or numeric offset and no
// fractional seconds.
var rfc3339Offset = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$`)

func TestContractNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{
			// 02:00 on 2026-03-29 does not exist in Berlin: the fixed-time
			// job runs at the first instant after the gap.
			name: "cron in a zone across spring forward",
			args: []string{"next", "--tz", "Europe/Berlin", "--from", "2026-03-28T00:00:00Z", "-n", "3", "0 2 * * 6,0"},
			want: []string{"2026-03-28T02:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-04-04T02:00:00+02:00"},
		},
		{
			name: "strictly after --from",
			args: []string{"next", "--from", "2026-01-01T09:00:00Z", "-n", "2", "0 9 * * *"},
			want: []string{"2026-01-02T09:00:00Z", "2026-01-03T09:00:00Z"},
		},
		{
			name: "default count is 5",
			args: []string{"next", "--from", "2026-01-01T00:00:00Z", "@daily"},
			want: []string{"2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z"},
		},
		{
			name: "the expression's own zone wins over the default",
			args: []string{"next", "--from", "2026-07-01T00:00:00Z", "-n", "1", "CRON_TZ=America/New_York 30 6 * * *"},
			want: []string{"2026-07-01T06:30:00-04:00"},
		},
		{
			name: "no search horizon: Feb 29 after 2096 is in 2104",
			args: []string{"next", "--from", "2096-03-01T00:00:00Z", "-n", "1", "0 0 29 2 *"},
			want: []string{"2104-02-29T00:00:00Z"},
		},
		{
			name: "weekly event syntax, tag-form zone",
			args: []string{"next", "--tz", "europe-berlin", "--from", "2026-01-01T00:00:00Z", "-n", "3", "mon0900_fri1700"},
			want: []string{"2026-01-02T17:00:00+01:00", "2026-01-05T09:00:00+01:00", "2026-01-09T17:00:00+01:00"},
		},
		{
			name: "flags after the expression",
			args: []string{"next", "0 12 * * *", "-n", "1", "--from", "2026-01-01T00:00:00Z"},
			want: []string{"2026-01-01T12:00:00Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := almanac(t, "", nil, tt.args...)
			if r.code != 0 {
				t.Fatalf("want exit 0\n%s", r)
			}
			if got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := almanac(t, "", nil, "next", "--json", "--tz", "Europe/Berlin", "--from", "2026-10-24T00:00:00Z", "-n", "2", "30 2 * * *")
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		var got struct {
			Expression string   `json:"expression"`
			TimeZone   string   `json:"time_zone"`
			Next       []string `json:"next"`
		}
		keys := jsonKeys(t, r.stdout, &got)
		if want := []string{"expression", "next", "time_zone"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("keys %v, want %v", keys, want)
		}
		// 02:30 on 2026-10-25 happens twice in Berlin: once, the first time.
		want := []string{"2026-10-24T02:30:00+02:00", "2026-10-25T02:30:00+02:00"}
		if got.Expression != "30 2 * * *" || got.TimeZone != "Europe/Berlin" || !reflect.DeepEqual(got.Next, want) {
			t.Errorf("got %+v, want expression %q, zone Europe/Berlin, next %q", got, "30 2 * * *", want)
		}
	})

	t.Run("default --from is now", func(t *testing.T) {
		t.Parallel()
		before := time.Now()
		r := almanac(t, "", nil, "next", "-n", "3", "* * * * *")
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("want 3 lines\n%s", r)
		}
		for _, l := range lines {
			ts, err := time.Parse(time.RFC3339, l)
			if err != nil || !rfc3339Offset.MatchString(l) || !ts.After(before.Add(-time.Second)) || ts.Second() != 0 {
				t.Errorf("line %q: not a whole minute after the start of the test (%v)", l, err)
			}
		}
	})

	bad := []struct {
		name      string
		args      []string
		fragments []string
	}{
		{"never fires", []string{"next", "0 0 31 2 *"}, []string{"never fires", "February", "31"}},
		{"bad field", []string{"next", "0 25 * * *"}, []string{"hour", "25"}},
		{"bad weekly event", []string{"next", "mon2500"}, []string{"mon2500"}},
		{"unknown zone", []string{"next", "--tz", "Mars/Olympus", "* * * * *"}, []string{"--tz", "Mars/Olympus"}},
		{"bad --from", []string{"next", "--from", "yesterday", "* * * * *"}, []string{"--from", "yesterday"}},
		{"bad -n", []string{"next", "-n", "0", "* * * * *"}, []string{"-n"}},
		{"no expression", []string{"next"}, []string{"next"}},
		{"unquoted expression", []string{"next", "0", "9", "*", "*", "*"}, []string{"quote"}},
		{"unknown flag", []string{"next", "--bogus", "* * * * *"}, []string{"bogus"}},
	}
	for _, tt := range bad {
		t.Run("error/"+tt.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, almanac(t, "", nil, tt.args...), 2, tt.fragments...)
		})
	}
}

func TestContractWindows(t *testing.T) {
	t.Parallel()
	const strategy = "examples/zincati/55-updates-strategy.toml"
	const newYork = "examples/zincati/60-new-york.toml"
	type windowsOut struct {
		Inside        bool    `json:"inside"`
		WindowEnd     *string `json:"window_end"`
		NextStart     *string `json:"next_start"`
		WeeklyMinutes int     `json:"weekly_minutes"`
		TimeZone      string  `json:"time_zone"`
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		args  []string
		want  windowsOut
		human []string // lines the human output must contain
	}{
		{
			name:  "outside, UTC",
			args:  []string{"--at", "2026-11-28T23:00:00Z", strategy},
			want:  windowsOut{Inside: false, NextStart: str("2026-11-28T23:30:00Z"), WeeklyMinutes: 150, TimeZone: "UTC"},
			human: []string{"inside:         no", "weekly minutes: 150"},
		},
		{
			name:  "inside, across midnight",
			args:  []string{"--at", "2026-11-29T00:10:00Z", strategy},
			want:  windowsOut{Inside: true, WindowEnd: str("2026-11-29T00:30:00Z"), WeeklyMinutes: 150, TimeZone: "UTC"},
			human: []string{"inside:         yes"},
		},
		{
			name: "two fragments merge, the zone of the last wins",
			args: []string{"--at", "2026-11-28T23:00:00Z", strategy, newYork},
			want: windowsOut{Inside: false, NextStart: str("2026-11-28T23:30:00-05:00"), WeeklyMinutes: 210, TimeZone: "America/New_York"},
		},
		{
			name: "a config.d directory",
			args: []string{"--at", "2026-11-28T23:00:00Z", "examples/zincati"},
			want: windowsOut{Inside: false, NextStart: str("2026-11-28T23:30:00-05:00"), WeeklyMinutes: 210, TimeZone: "America/New_York"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := almanac(t, "", nil, append([]string{"windows", "--json"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("want exit 0\n%s", r)
			}
			var got windowsOut
			keys := jsonKeys(t, r.stdout, &got)
			if want := []string{"inside", "next_start", "time_zone", "weekly_minutes", "window_end"}; !reflect.DeepEqual(keys, want) {
				t.Errorf("keys %v, want %v", keys, want)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %s", r.stdout)
			}
			h := almanac(t, "", nil, append([]string{"windows"}, tt.args...)...)
			if h.code != 0 {
				t.Fatalf("human output: want exit 0\n%s", h)
			}
			for _, l := range tt.human {
				if !strings.Contains(h.stdout, l) {
					t.Errorf("human output lacks %q:\n%s", l, h.stdout)
				}
			}
		})
	}

	dir := t.TempDir()
	badTOML := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badTOML, []byte("[[updates.periodic.window]]\ndays = [\"Sat\"]\nstart_time = \"25:00\"\nlength_minutes = 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte("[updates\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name      string
		args      []string
		fragments []string
	}{
		{"bad start_time names file and line", []string{"windows", badTOML}, []string{badTOML + ":3:", "25:00"}},
		{"broken TOML names file and line", []string{"windows", broken}, []string{broken + ":"}},
		{"missing file", []string{"windows", filepath.Join(dir, "nope.toml")}, []string{"nope.toml"}},
		{"bad --at", []string{"windows", "--at", "noon", strategy}, []string{"--at", "noon"}},
		{"no files", []string{"windows"}, []string{"windows"}},
	}
	for _, tt := range bad {
		t.Run("error/"+tt.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, almanac(t, "", nil, tt.args...), 2, tt.fragments...)
		})
	}
}

func TestContractTags(t *testing.T) {
	t.Parallel()
	type tagsOut struct {
		Scheduled bool     `json:"scheduled"`
		Errors    []string `json:"errors"`
		Warnings  []string `json:"warnings"`
		NextStart *string  `json:"next_start"`
		NextStop  *string  `json:"next_stop"`
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		args []string
		want tagsOut
	}{
		{
			name: "valid schedule",
			args: []string{"almanac-schedule-start=mon0900", "almanac-schedule-stop=fri1800", "almanac-schedule-timezone=europe-berlin"},
			want: tagsOut{Scheduled: true, Errors: []string{}, Warnings: []string{},
				NextStart: str("2026-01-05T09:00:00+01:00"), NextStop: str("2026-01-02T18:00:00+01:00")},
		},
		{
			name: "prosperops prefix, stop only",
			args: []string{"prosperops-schedule-stop=fri1800", "prosperops-schedule-timezone=utc"},
			want: tagsOut{Scheduled: true, Errors: []string{}, Warnings: []string{}, NextStop: str("2026-01-02T18:00:00Z")},
		},
		{
			name: "no schedule tags",
			args: []string{"team=payments"},
			want: tagsOut{Scheduled: false, Errors: []string{}, Warnings: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := almanac(t, "", nil, append([]string{"tags", "--json", "--at", "2026-01-01T00:00:00Z"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("want exit 0\n%s", r)
			}
			var got tagsOut
			keys := jsonKeys(t, r.stdout, &got)
			if want := []string{"errors", "next_start", "next_stop", "scheduled", "warnings"}; !reflect.DeepEqual(keys, want) {
				t.Errorf("keys %v, want %v", keys, want)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %s", r.stdout)
			}
		})
	}

	t.Run("validation errors are data, not a failure", func(t *testing.T) {
		t.Parallel()
		r := almanac(t, "", nil, "tags", "--json", "almanac-schedule-start=mon2500", "almanac-schedule-timezone=mars")
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		var got tagsOut
		jsonKeys(t, r.stdout, &got)
		if len(got.Errors) != 2 || got.NextStart != nil || got.NextStop != nil {
			t.Fatalf("want two errors and no next instants, got %s", r.stdout)
		}
		if all := strings.Join(got.Errors, "\n"); !strings.Contains(all, "mon2500") || !strings.Contains(all, "mars") {
			t.Errorf("errors do not name the bad values: %q", got.Errors)
		}
	})

	t.Run("hibernation", func(t *testing.T) {
		t.Parallel()
		args := []string{"tags", "--json", "--at", "2026-01-01T00:00:00Z", "almanac-schedule-stop=fri1800",
			"almanac-schedule-timezone=utc", "almanac-schedule-stop-hibernate=true"}
		var without, with tagsOut
		jsonKeys(t, almanac(t, "", nil, args...).stdout, &without)
		r := almanac(t, "", nil, append(args, "--hibernation-supported")...)
		jsonKeys(t, r.stdout, &with)
		if len(without.Warnings)+len(without.Errors) == 0 {
			t.Errorf("hibernate on a resource without hibernation support: want a warning or error, got %+v", without)
		}
		if len(with.Warnings)+len(with.Errors) != 0 {
			t.Errorf("--hibernation-supported: want no findings, got %s", r.stdout)
		}
	})

	bad := []struct {
		name      string
		args      []string
		fragments []string
	}{
		{"not KEY=VALUE", []string{"tags", "almanac-schedule-start"}, []string{"almanac-schedule-start", "KEY=VALUE"}},
		{"no tags", []string{"tags"}, []string{"tags"}},
		{"bad --at", []string{"tags", "--at", "soon", "a=b"}, []string{"--at", "soon"}},
	}
	for _, tt := range bad {
		t.Run("error/"+tt.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, almanac(t, "", nil, tt.args...), 2, tt.fragments...)
		})
	}
}

func TestContractValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.pp", "exec { 'a': command => '/bin/true' }\nexec { 'b': command => '/bin/true', require => Exec['a'] }\n")
	twoErrors := write("two.pp", "exec { 'a':\n  command => 'x',\n  bogus   => 1,\n}\nexec { 'b': command => 'y', require => Exec['nope'] }\n")
	cycle := write("cycle.pp", "exec { 'a': command => 'x', require => Exec['b'] }\nexec { 'b': command => 'y', require => Exec['a'] }\n")
	syntax := write("syntax.pp", "exec { 'a'\n  command => 'x' }\n")
	jobOnExec := write("job.pp", "exec { 'dump': command => 'x' }\njob { 'ship': cron => '0 3 * * *', command => 'y', require => Exec['dump'] }\n")
	badCron := write("cron.pp", "job { 'ship': cron => '0 0 31 2 *', command => 'y' }\n")

	r := almanac(t, "", nil, "validate", good)
	if r.code != 0 || r.stdout != "2 resources, 1 relationship\n" {
		t.Errorf("valid manifest: want exit 0 and a summary\n%s", r)
	}

	tests := []struct {
		name  string
		file  string
		lines []string // each must appear on stderr, in order
	}{
		{"every error, positioned", twoErrors, []string{twoErrors + ":3:3: ", "bogus", twoErrors + ":5:", "Could not find resource 'Exec[nope]' in parameter 'require'", "2 errors"}},
		{"cycle", cycle, []string{"Found 1 dependency cycle:", "Exec[a] => Exec[b] => Exec[a]"}},
		{"syntax", syntax, []string{syntax + ":2:"}},
		{"a job may only wait for jobs", jobOnExec, []string{jobOnExec + ":2:", "Job[ship]", "Exec[dump]", "only for other jobs"}},
		{"a job's cron must be able to fire", badCron, []string{badCron + ":1:", "never fires"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := almanac(t, "", nil, "validate", tt.file)
			if r.code != 1 {
				t.Fatalf("want exit 1\n%s", r)
			}
			rest := r.stderr
			for _, l := range tt.lines {
				i := strings.Index(rest, l)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order):\n%s", l, r)
				}
				rest = rest[i+len(l):]
			}
		})
	}
	t.Run("error/missing file", func(t *testing.T) {
		t.Parallel()
		wantError(t, almanac(t, "", nil, "validate", filepath.Join(dir, "nope.pp")), 2, "nope.pp")
	})
	t.Run("error/no file", func(t *testing.T) {
		t.Parallel()
		wantError(t, almanac(t, "", nil, "validate"), 2, "validate")
	})
}
