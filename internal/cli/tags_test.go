package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/fleet"
)

func TestTagsGolden(t *testing.T) {
	seed := []string{
		"prosperops-schedule-power-on=mon0900_tue0900_wed0900_thu0900_fri0900",
		"prosperops-schedule-power-off=mon1215_tue1215_wed1215_thu1700_fri1800",
		"prosperops-schedule-timezone=america-new_york",
		"prosperops-schedule-notify=prosper.bot@prosperops.com",
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"seed example", append([]string{"--at", "2024-11-01T14:00:00Z"}, seed...), `scheduled:  yes
time zone:  America/New_York
start:      mon0900_tue0900_wed0900_thu0900_fri0900
stop:       mon1215_tue1215_wed1215_thu1700_fri1800
notify:     prosper.bot@prosperops.com
next start: 2024-11-04T09:00:00-05:00
next stop:  2024-11-01T18:00:00-04:00
`},
		{"seed example json", append([]string{"--json", "--at", "2024-11-01T14:00:00Z"}, seed...),
			`{"scheduled":true,"errors":[],"warnings":[],"next_start":"2024-11-04T09:00:00-05:00","next_stop":"2024-11-01T18:00:00-04:00"}
`},
		{"unscheduled", []string{"--json", "--at", "2024-11-01T14:00:00Z", "Name=web-1"},
			`{"scheduled":false,"errors":[],"warnings":[],"next_start":null,"next_stop":null}
`},
		{"errors block actions", []string{"--at", "2024-11-01T14:00:00Z",
			"almanac-schedule-start=mon0800_tue0800", "almanac-schedule-stop=tue0800",
			"almanac-schedule-timezone=utc", "almanac-schedule-notify=nobody",
			"almanac-schedule-stop-hibernate=maybe", "--hibernation-supported"}, `scheduled:  no: the errors below prevent scheduling
time zone:  UTC
start:      mon0800_tue0800
stop:       tue0800
error:      almanac-schedule-start and almanac-schedule-stop have the same time value: tue0800
error:      almanac-schedule-stop-hibernate is an invalid value (want true or false): maybe
warning:    almanac-schedule-notify is an invalid email address: nobody
`},
		{"errors json", []string{"--json", "--at", "2024-11-01T14:00:00Z", "almanac-schedule-start=mon0900_tue2500"},
			`{"scheduled":false,"errors":["almanac-schedule-timezone is missing","almanac-schedule-start is an invalid schedule: mon0900_tue2500 (\"tue2500\" at offset 9: hour 25 out of range)"],"warnings":[],"next_start":null,"next_stop":null}
`},
		// Each of the four errors that prevent scheduling makes "scheduled"
		// false while the valid parts are still reported.
		{"error 1 json: bad start beside a good stop", []string{"--json", "--at", "2024-11-01T14:00:00Z",
			"almanac-schedule-start=mon0900_tue2500", "almanac-schedule-stop=mon1700", "almanac-schedule-timezone=utc"},
			`{"scheduled":false,"errors":["almanac-schedule-start is an invalid schedule: mon0900_tue2500 (\"tue2500\" at offset 9: hour 25 out of range)"],"warnings":[],"next_start":null,"next_stop":null}
`},
		{"error 3 json: same time", []string{"--json", "--at", "2024-11-01T14:00:00Z",
			"almanac-schedule-start=mon0800", "almanac-schedule-stop=mon0800", "almanac-schedule-timezone=utc"},
			`{"scheduled":false,"errors":["almanac-schedule-start and almanac-schedule-stop have the same time value: mon0800"],"warnings":[],"next_start":null,"next_stop":null}
`},
		{"error 4 json: bad hibernate", []string{"--json", "--at", "2024-11-01T14:00:00Z", "--hibernation-supported",
			"almanac-schedule-stop=fri1800", "almanac-schedule-timezone=utc", "almanac-schedule-stop-hibernate=maybe"},
			`{"scheduled":false,"errors":["almanac-schedule-stop-hibernate is an invalid value (want true or false): maybe"],"warnings":[],"next_start":null,"next_stop":null}
`},
		{"hibernate and warnings", []string{"--at", "2024-11-01T14:00:00Z", "--hibernation-supported",
			"almanac-schedule-stop=fri1800", "almanac-schedule-timezone=Europe/Berlin", "almanac-schedule-stop-hibernate=true"}, `scheduled:  yes
time zone:  Europe/Berlin
stop:       fri1800 (hibernate)
next stop:  2024-11-01T18:00:00+01:00
`},
		{"hibernate unsupported", []string{"--json", "--at", "2024-11-01T14:00:00Z",
			"almanac-schedule-stop=fri1800", "almanac-schedule-timezone=Europe/Berlin", "prosperops-schedule-power-off-hibernate=true"},
			`{"scheduled":true,"errors":[],"warnings":["prosperops-schedule-power-off-hibernate is enabled but instance does not support hibernation"],"next_start":null,"next_stop":"2024-11-01T18:00:00+01:00"}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"tags"}, tt.args...)...)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if out != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.want)
			}
			if strings.HasPrefix(out, "{") {
				var v map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 5 {
					t.Errorf("JSON %q: %v (%d keys)", out, err, len(v))
				}
			}
		})
	}
}

func TestTagsUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "tags: no tags given (want KEY=VALUE...)"},
		{[]string{"novalue"}, `tags: "novalue" is not KEY=VALUE`},
		{[]string{"=x"}, `tags: "=x" has an empty key`},
		{[]string{"a=1", "a=2"}, `tags: key "a" given twice`},
		{[]string{"--at", "tomorrow", "a=1"}, `tags: --at "tomorrow" is not an RFC 3339 time`},
		{[]string{"--bogus", "a=1"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"tags"}, tt.args...)...)
			if code != exitUsage || out != "" {
				t.Fatalf("exit %d stdout %q, want exit 2 and no output", code, out)
			}
			if !strings.HasPrefix(errOut, "almanac: ") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", errOut, tt.want)
			}
		})
	}
}

func TestTagsEmptyValueIsAbsent(t *testing.T) {
	out, _, code := runCLI(t, "tags", "--json", "almanac-schedule-start=", "almanac-schedule-timezone=utc")
	if code != exitOK || !strings.Contains(out, `"scheduled":false,"errors":[]`) {
		t.Fatalf("exit %d, %s", code, out)
	}
}

// TestTagsIgnoredKeys checks that the text output explains keys that look
// like schedule tags but are ignored, and that the JSON does not change.
func TestTagsIgnoredKeys(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"misspelt", []string{"almanac-schedule-strat=mon0900"},
			"scheduled:  no\nignored:    almanac-schedule-strat is not a schedule key (did you mean almanac-schedule-start?)\n"},
		{"upper case", []string{"Prosperops-Schedule-Power-On=mon0900"},
			"scheduled:  no\nignored:    Prosperops-Schedule-Power-On is not a schedule key: keys are lower case (prosperops-schedule-power-on)\n"},
		{"far off", []string{"almanac-schedule-owner=ops", "Name=web"},
			"scheduled:  no\nignored:    almanac-schedule-owner is not a schedule key\n"},
		{"valid keys and others are quiet", []string{"--at", "2024-11-01T14:00:00Z", "almanac-schedule-stop=fri1800", "almanac-schedule-timezone=utc", "env=prod"},
			"scheduled:  yes\ntime zone:  UTC\nstop:       fri1800\nnext stop:  2024-11-01T18:00:00Z\n"},
		{"json unchanged", []string{"--json", "almanac-schedule-strat=mon0900"},
			`{"scheduled":false,"errors":[],"warnings":[],"next_start":null,"next_stop":null}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"tags"}, tt.args...)...)
			if code != exitOK || errOut != "" || out != tt.want {
				t.Fatalf("code %d stderr %q stdout\n%s\nwant\n%s", code, errOut, out, tt.want)
			}
		})
	}
	for _, s := range scheduleSuffixes {
		if !fleet.IsScheduleKey(fleet.PrefixAlmanac + s) {
			t.Errorf("suffix %q is not a schedule key", s)
		}
	}
}
