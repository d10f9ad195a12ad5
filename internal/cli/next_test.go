package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // stdout, lines joined by \n
	}{
		{"weekdays", []string{"next", "--from", "2025-06-20T08:00:00Z", "-n", "3", "0 9 * * 1-5"},
			"2025-06-20T09:00:00Z\n2025-06-23T09:00:00Z\n2025-06-24T09:00:00Z"},
		{"strictly after from", []string{"next", "-n", "2", "--from", "2025-06-20T09:00:00Z", "0 9 * * *"},
			"2025-06-21T09:00:00Z\n2025-06-22T09:00:00Z"},
		{"flags after expression", []string{"next", "30 2 * * *", "--tz", "Europe/Berlin", "--from", "2025-03-29T00:00:00Z", "-n", "2"},
			"2025-03-29T02:30:00+01:00\n2025-03-30T03:00:00+02:00"},
		{"tag form zone", []string{"next", "--tz", "america-new_york", "--from", "2025-11-01T12:00:00-04:00", "-n", "2", "30 1 * * *"},
			"2025-11-02T01:30:00-04:00\n2025-11-03T01:30:00-05:00"},
		{"prefix overrides tz", []string{"next", "--tz", "Asia/Tokyo", "--from", "2025-06-01T00:00:00Z", "-n", "1", "CRON_TZ=Europe/Berlin 0 12 * * *"},
			"2025-06-01T12:00:00+02:00"},
		{"default five", []string{"next", "--from", "2025-01-01T00:00:00Z", "@every 1h"},
			"2025-01-01T01:00:00Z\n2025-01-01T02:00:00Z\n2025-01-01T03:00:00Z\n2025-01-01T04:00:00Z\n2025-01-01T05:00:00Z"},
		{"leap day far", []string{"next", "--from", "2073-01-01T00:00:00Z", "-n", "1", "0 0 * 2 1#5"},
			"2112-02-29T00:00:00Z"},
		{"weekly events", []string{"next", "--from", "2025-06-16T00:00:00Z", "-n", "3", "--tz", "Europe/Berlin", "mon0900_fri1700"},
			"2025-06-16T09:00:00+02:00\n2025-06-20T17:00:00+02:00\n2025-06-23T09:00:00+02:00"},
		{"systemd detected", []string{"next", "--from", "2025-06-16T00:00:00Z", "-n", "2", "--tz", "Europe/Berlin", "Mon..Fri 09:00"},
			"2025-06-16T09:00:00+02:00\n2025-06-17T09:00:00+02:00"},
		{"systemd zone suffix", []string{"next", "--from", "2025-06-16T00:00:00Z", "-n", "1", "--dialect", "systemd", "quarterly America/New_York"},
			"2025-07-01T00:00:00-04:00"},
		{"events forced", []string{"next", "--from", "2025-06-16T00:00:00Z", "-n", "1", "--dialect", "events", "mon0900_fri1700"},
			"2025-06-16T09:00:00Z"},
		{"kubernetes", []string{"next", "--from", "2026-11-28T00:00:00Z", "-n", "2", "--dialect", "kubernetes", "0 0 */2 * 1"},
			"2026-11-29T00:00:00Z\n2026-11-30T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := strings.TrimSuffix(out, "\n"); got != tt.want {
				t.Errorf("stdout\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestNextJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "next", "--json", "--tz", "America/New_York", "--from", "2025-03-08T12:00:00-05:00", "-n", "2", "30 2 * * *")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `{"expression":"30 2 * * *","dialect":"cron","time_zone":"America/New_York","next":["2025-03-09T03:00:00-04:00","2025-03-10T02:30:00-04:00"]}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var v nextJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
}

func TestNextDefaultsToClock(t *testing.T) {
	out, errOut, code := runCLIAt(t, time.Date(2025, 6, 18, 10, 17, 23, 0, time.UTC), "next", "-n", "2", "*/15 * * * *")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "2025-06-18T10:30:00Z\n2025-06-18T10:45:00Z\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func TestNextErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no expression", []string{"next"}, "almanac: next: no schedule given"},
		{"unquoted", []string{"next", "0", "9", "*", "*", "*"}, "almanac: next: expected one schedule, got 5 arguments (quote the expression: almanac next '0 9 * * *')"},
		{"bad field", []string{"next", "0 0 32 * *"}, "almanac: next: cron: field 3 (day of month) at column 5: value 32 out of range 1-31"},
		{"never fires", []string{"next", "0 0 31 2 *"}, "almanac: next: cron: field 3 (day of month) at column 5: never fires: February has no day 31"},
		{"bad zone", []string{"next", "--tz", "Europe/Berlinn", "0 0 * * *"}, `almanac: next: --tz: unknown time zone "Europe/Berlinn" (did you mean "Europe/Berlin"?)`},
		{"bad prefix zone", []string{"next", "TZ=Nowhere 0 0 * * *"}, `almanac: next: cron: at column 4: unknown time zone "Nowhere"`},
		{"bad from", []string{"next", "--from", "2025-06-01 09:00", "0 0 * * *"}, `almanac: next: --from "2025-06-01 09:00" is not an RFC 3339 time with offset`},
		{"zero n", []string{"next", "-n", "0", "0 0 * * *"}, "almanac: next: -n 0 out of range 1-100000"},
		{"bad n", []string{"next", "-n", "x", "0 0 * * *"}, "almanac: next: invalid value"},
		{"bad flag", []string{"next", "--bogus", "0 0 * * *"}, "almanac: next: flag provided but not defined: -bogus"},
		{"bad weekly", []string{"next", "mon2500"}, "almanac: next: weekly:"},
		{"weekly with spaces", []string{"next", "mon0900 fri1700"}, "almanac: next: weekly events are joined with '_', not spaces (mon0900_fri1700)"},
		{"five weekly events", []string{"next", "mon0900 tue0900 wed0900 thu0900 fri0900"}, "almanac: next: weekly events are joined with '_'"},
		{"cron still cron", []string{"next", "0 9 * * mon tue"}, "almanac: next: cron: "},
		{"robfig panic input", []string{"next", "TZ=UTC"}, "almanac: next: cron: at column 7: expected a schedule after TZ=UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", code, exitUsage, errOut)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if !strings.HasPrefix(errOut, tt.want) {
				t.Errorf("stderr %q\nwant prefix %q", errOut, tt.want)
			}
			if strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut)
			}
		})
	}
}

// TestNextRunsOut checks that a schedule whose next fire times cannot be
// printed fails (exit 1) without printing a partial list.
func TestNextRunsOut(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"past year 9999", []string{"next", "--from", "9999-12-31T00:00:00Z", "0 9 * * *"}},
		{"last fire in 9999", []string{"next", "--from", "9999-12-30T00:00:00Z", "-n", "2", "0 9 31 12 *"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != exitFailure || out != "" || !strings.Contains(errOut, "no fire time after") || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("code %d stdout %q stderr %q", code, out, errOut)
			}
		})
	}
}

// TestNextDialectErrors: a forced dialect reports its own parse error, and
// an expression no dialect reads names the likeliest one.
func TestNextDialectErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"next", "--dialect", "systemd", "0 9 * * *"}, "oncalendar"},
		{[]string{"next", "--dialect", "cron", "daily"}, "cron"},
		{[]string{"next", "Mon..Fri 25:00"}, "hour: value 25 out of range"},
		{[]string{"next", "--dialect", "kubernetes", "0 0 * * 7"}, "out of range 0-6"},
		{[]string{"next", "--dialect", "kubernetes", "@every 1h"}, "creation"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
