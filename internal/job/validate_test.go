package job

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestRulesDocumented checks that docs/jobs.md states every bound the
// validator enforces, so the two cannot drift.
func TestRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/jobs.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for name, want := range map[string]string{
		"MaxNameLen":         "1 to " + strconv.Itoa(MaxNameLen) + " bytes",
		"MaxDurationSeconds": strconv.Itoa(MaxDurationSeconds) + " (366 days)",
		"MaxBackoffLimit":    "0 to " + strconv.Itoa(MaxBackoffLimit),
		"MaxHistoryLimit":    "0 to " + strconv.Itoa(MaxHistoryLimit),
		"MaxArgs":            strconv.Itoa(MaxArgs) + " arguments",
		"MaxCommandBytes":    strconv.Itoa(MaxCommandBytes) + " bytes",
		"MaxEnv":             strconv.Itoa(MaxEnv) + " variables",
		"MaxRefs":            strconv.Itoa(MaxRefs) + " valid job names",
		"MaxCalendarEvents":  "at most " + strconv.Itoa(MaxCalendarEvents) + " calendar events",
		"MinInstant":         MinInstant.Format(time.RFC3339),
		"MaxInstant":         MaxInstant.Format(time.RFC3339),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/jobs.md does not state %s as %q", name, want)
		}
	}
}

// FuzzValidate feeds arbitrary field values to Validate: it must not panic,
// and a spec it accepts (and normalises) must be accepted again unchanged.
func FuzzValidate(f *testing.F) {
	f.Add("backup", "0 3 * * *", int64(0), "Europe/Berlin", "/usr/bin/true", int64(60), 3, int64(30), "Forbid", "dump")
	f.Add("", "", int64(253402300799), "", "", int64(-1), -1, int64(-5), "x", "backup")
	f.Add(strings.Repeat("a", 129), "1m", int64(10000000000), "america-new_york", "a\x00b", int64(10000000000), 1000000, int64(1<<40), "allow", "")
	f.Fuzz(func(t *testing.T, name, cron string, atUnix int64, zone, cmd string, deadline int64, backoff int, timeout int64, policy, req string) {
		spec := store.JobSpec{Name: name, Cron: cron, TimeZone: zone, StartingDeadlineSeconds: &deadline,
			BackoffLimit: backoff, TimeoutSeconds: timeout, ConcurrencyPolicy: store.ConcurrencyPolicy(policy)}
		if atUnix != 0 {
			at := time.Unix(atUnix%(1<<40), 0)
			spec.At = &at
		}
		if cmd != "" {
			spec.Command = []string{cmd}
		}
		if req != "" {
			spec.Requires = []string{req}
		}
		if err := Validate(&spec, parseEvery); err != nil {
			return
		}
		again := spec
		if err := Validate(&again, parseEvery); err != nil {
			t.Fatalf("a normalised spec is refused: %v", err)
		}
		if *spec.StartingDeadlineSeconds > MaxDurationSeconds || spec.BackoffLimit > MaxBackoffLimit || len(spec.Name) > MaxNameLen {
			t.Fatalf("accepted out-of-bounds spec %+v", spec)
		}
	})
}
