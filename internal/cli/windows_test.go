package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon"
)

// writeFragments writes name -> content into a temporary directory and
// returns the paths in the order given.
func writeFragments(t *testing.T, files ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

const docWindows = `[updates]
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

func TestWindowsJSON(t *testing.T) {
	utc := writeFragments(t, "a.toml", docWindows)[0]
	ny := writeFragments(t, "b.toml", "[updates.periodic]\ntime_zone = \"america-new_york\"\n"+
		"[[updates.periodic.window]]\ndays = [\"Sun\"]\nstart_time = \"01:30\"\nlength_minutes = 60\n")[0]
	full := writeFragments(t, "c.toml", "[[updates.periodic.window]]\ndays = [\"Mon\"]\nstart_time = \"00:00\"\nlength_minutes = 10080\n")[0]
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"outside", []string{utc, "--at", "2025-06-07T12:00:00Z"},
			`{"inside":false,"window_end":null,"next_start":"2025-06-07T23:30:00Z","weekly_minutes":150,"time_zone":"UTC"}`},
		{"inside across the week boundary", []string{"--at", "2025-06-08T23:45:00Z", utc},
			`{"inside":true,"window_end":"2025-06-09T00:30:00Z","next_start":null,"weekly_minutes":150,"time_zone":"UTC"}`},
		{"end minute is outside", []string{utc, "--at", "2025-06-11T01:30:00Z"},
			`{"inside":false,"window_end":null,"next_start":"2025-06-14T23:30:00Z","weekly_minutes":150,"time_zone":"UTC"}`},
		{"answers in the calendar's zone", []string{utc, "--at", "2025-06-07T19:40:00-04:00"},
			`{"inside":true,"window_end":"2025-06-08T00:30:00Z","next_start":null,"weekly_minutes":150,"time_zone":"UTC"}`},
		{"fall-back Sunday in New York", []string{ny, "--at", "2025-11-02T06:10:00Z"},
			`{"inside":true,"window_end":"2025-11-02T02:30:00-05:00","next_start":null,"weekly_minutes":60,"time_zone":"America/New_York"}`},
		{"spring-forward Sunday in New York", []string{ny, "--at", "2025-03-09T06:45:00Z"},
			`{"inside":true,"window_end":"2025-03-09T03:00:00-04:00","next_start":null,"weekly_minutes":60,"time_zone":"America/New_York"}`},
		{"zone of the later fragment wins", []string{utc, ny, "--at", "2025-06-07T23:45:00Z"},
			`{"inside":false,"window_end":null,"next_start":"2025-06-07T23:30:00-04:00","weekly_minutes":210,"time_zone":"America/New_York"}`},
		{"whole week never closes", []string{full, "--at", "2025-06-07T12:00:00Z"},
			`{"inside":true,"window_end":null,"next_start":null,"weekly_minutes":10080,"time_zone":"UTC"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"windows", "--json"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := strings.TrimSpace(out); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 5 {
				t.Errorf("output is not the five-key object: %v %v", v, err)
			}
		})
	}
}

// runCLIAt runs one command like Main, with the clock stopped at now.
func runCLIAt(t *testing.T, now time.Time, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, clock: clock.NewFake(now)}
	code := report(&errb, commands[args[0]].run(context.Background(), e, args[1:]))
	return out.String(), errb.String(), code
}

func TestWindowsDefaultsToClock(t *testing.T) {
	f := writeFragments(t, "a.toml", docWindows)[0]
	out, errOut, code := runCLIAt(t, time.Date(2025, 6, 11, 1, 10, 0, 0, time.UTC), "windows", "--json", f)
	want := `{"inside":true,"window_end":"2025-06-11T01:30:00Z","next_start":null,"weekly_minutes":150,"time_zone":"UTC"}`
	if code != exitOK || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d out %s err %s", code, out, errOut)
	}
}

func TestWindowsText(t *testing.T) {
	f := writeFragments(t, "a.toml", docWindows)[0]
	out, errOut, code := runCLI(t, "windows", f, "--at", "2025-06-07T12:00:00Z")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `at:             2025-06-07T12:00:00Z (Sat 12:00)
inside:         no, next window opens 2025-06-07T23:30:00Z (Sat 23:30), in 11h 30m
weekly minutes: 150
time zone:      UTC
windows:
  Wed 01:00 - Wed 01:30  (30m)
  Sat 23:30 - Sun 00:30  (1h 0m)
  Sun 23:30 - Mon 00:30  (1h 0m)
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out, _, _ = runCLI(t, "windows", f, "--at", "2025-06-08T00:00:00Z")
	if !strings.Contains(out, "inside:         yes, until 2025-06-08T00:30:00Z (Sun 00:30), 30m left\n") {
		t.Errorf("inside report missing:\n%s", out)
	}
	full := writeFragments(t, "c.toml", "[[updates.periodic.window]]\ndays = [\"Mon\"]\nstart_time = \"00:00\"\nlength_minutes = 10080\n")[0]
	out, _, _ = runCLI(t, "windows", full, "--at", "2025-06-08T00:00:00Z")
	if !strings.Contains(out, "inside:         yes, always") || !strings.Contains(out, "Mon 00:00 - Mon 00:00  (7d 0h 0m)") {
		t.Errorf("whole-week report:\n%s", out)
	}
}

func TestWindowsExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "zincati")
	out, errOut, code := runCLI(t, "windows", "--json", "--at", "2025-11-02T06:10:00Z", dir)
	want := `{"inside":true,"window_end":"2025-11-02T02:30:00-05:00","next_start":null,"weekly_minutes":210,"time_zone":"America/New_York"}`
	if code != exitOK || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d out %s err %s", code, out, errOut)
	}
}

func TestWindowsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFragments(t, "bad.toml", "[[updates.periodic.window]]\ndays = [\"Sat\"]\nstart_time = \"24:00\"\nlength_minutes = 60\n")[0]
	empty := writeFragments(t, "empty.toml", "[updates]\nstrategy = \"periodic\"\n")[0]
	immediate := writeFragments(t, "imm.toml", "[updates]\nstrategy = \"immediate\"\n")[0]
	good := writeFragments(t, "good.toml", docWindows)[0]
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no files", nil, "almanac: windows: no files given"},
		{"bad --at", []string{good, "--at", "tomorrow"}, `almanac: windows: --at "tomorrow" is not an RFC 3339 time`},
		{"unknown flag", []string{good, "--tz", "UTC"}, "almanac: windows: flag provided but not defined: -tz"},
		{"missing file", []string{filepath.Join(dir, "nope.toml")}, "nope.toml: no such file or directory"},
		{"bad start time", []string{bad}, `bad.toml:3:14: window 1: start_time "24:00": hour out of range`},
		{"no windows", []string{empty}, "empty.toml: no [[updates.periodic.window]] entries: nothing could ever run"},
		{"strategy not periodic", []string{good, immediate}, `imm.toml:2:1: updates.strategy is "immediate", not "periodic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"windows", "--at", "2025-06-07T12:00:00Z"}, tt.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", errOut, tt.want)
			}
		})
	}
}

func TestFmtSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:                "30s",
		time.Minute:                     "1m",
		61 * time.Second:                "2m",
		90 * time.Minute:                "1h 30m",
		49*time.Hour + 5*time.Minute:    "2d 1h 5m",
		7 * 24 * time.Hour:              "7d 0h 0m",
		24*time.Hour + 59*time.Second/2: "1d 0h 1m",
	} {
		if got := fmtSpan(d); got != want {
			t.Errorf("fmtSpan(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestGetWindows runs `almanac get windows` against the real API handler.
func TestGetWindows(t *testing.T) {
	nw, err := daemon.DemoWindows()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	st := apitest.NewMemStore()
	api := httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: at}, Clock: clock.NewFake(at)})
	api.Handle("GET /api/v1/windows", httpapi.WindowsHandler(nw, clock.NewFake(at)))
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)

	out, errOut, code := runCLI(t, "get", "windows", "--server="+ts.URL)
	if code != 0 {
		t.Fatalf("get windows: %d %s", code, errOut)
	}
	for _, re := range []string{
		`(?m)^NAME\s+ZONE\s+OPEN\s+UNTIL\s+NEXT OPEN\s+MIN/WEEK\s+WINDOWS$`,
		`(?m)^nightly\s+Europe/Berlin\s+false\s+-\s+2030-06-02T01:00:00\+02:00\s+1260\s+Mon 01:00-Mon 04:00, Tue 01:00`,
		`(?m)^weekend-maintenance\s+UTC\s+true\s+2030-06-03T00:00:00Z\s+-\s+2880\s+Sat 00:00-Mon 00:00$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	out, _, code = runCLI(t, "get", "windows", "-o", "json", "--server="+ts.URL)
	var l apitype.WindowList
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Items) != 2 || !l.At.Equal(at) {
		t.Fatalf("get windows -o json: %d %s", code, out)
	}
	if _, errOut, code = runCLI(t, "get", "windows", "--job", "x", "--server="+ts.URL); code != exitUsage || !strings.Contains(errOut, "--job") {
		t.Errorf("get windows --job: %d %q", code, errOut)
	}
}
