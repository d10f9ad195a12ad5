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
		"MaxWindowEntries":   "at most " + strconv.Itoa(MaxWindowEntries) + " entries",
		"MaxGateNameLen":     "window name of at most " + strconv.Itoa(MaxGateNameLen) + " bytes",
		"MaxWaveFailures":    "0 (never stop) to " + strconv.Itoa(MaxWaveFailures),
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

// TestValidateWave covers the fields of fan-out and rolling waves: each
// mistake is one error naming its field, and the wave fields need a nodes
// selector that fans out.
func TestValidateWave(t *testing.T) {
	base := func(f func(*store.JobSpec)) store.JobSpec {
		s := store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: "role=db"}
		f(&s)
		return s
	}
	many := map[string]string{}
	for i := range MaxWindowEntries + 1 {
		many["n"+strconv.Itoa(i)] = "w"
	}
	tests := []struct {
		name string
		spec store.JobSpec
		want string // the whole error; empty = valid
	}{
		{"all fields", base(func(s *store.JobSpec) {
			s.Window = map[string]string{"role=db,zone=eu": "db-weekend", "default": "anytime", "db-1": "night"}
			s.MaxParallel, s.MaxFailures, s.WaveOrder = "25%", 2, "random"
		}), ""},
		{"count and name order", base(func(s *store.JobSpec) { s.MaxParallel, s.WaveOrder = "3", "name" }), ""},
		{"reboot group", base(func(s *store.JobSpec) { s.RebootGroup = "db.eu-1" }), ""},
		{"reboot group bad name", base(func(s *store.JobSpec) { s.RebootGroup = "db/eu" }),
			`job "a": reboot_group: "db/eu" is not a reboot group name: letters, digits, '.' and '-', at most 128 characters, as FleetLock clients send it`},
		{"reboot group without nodes", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RebootGroup: "db"},
			`job "a": reboot_group: applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any)`},
		{"nodes all", base(func(s *store.JobSpec) { s.Nodes, s.MaxParallel = "all", "1" }), ""},
		{"paused without nodes", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", WavePaused: true}, ""},
		{"window without nodes", base(func(s *store.JobSpec) { s.Nodes, s.Window = "", map[string]string{"default": "w"} }),
			`job "a": window: applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any)`},
		{"wave fields with nodes any", base(func(s *store.JobSpec) { s.Nodes, s.MaxParallel, s.MaxFailures, s.WaveOrder = "any", "2", 1, "name" }),
			`job "a": max_parallel: applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any); ` +
				`max_failures: applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any); ` +
				`wave_order: applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any)`},
		{"window key any", base(func(s *store.JobSpec) { s.Window = map[string]string{"any": "w"} }),
			`job "a": window[any]: "any" would be every node: use the key "default" for the nodes no other key matches`},
		{"window key all", base(func(s *store.JobSpec) { s.Window = map[string]string{" all ": "w"} }),
			`job "a": window[all]: "all" would be every node: use the key "default" for the nodes no other key matches`},
		{"window key bad selector", base(func(s *store.JobSpec) { s.Window = map[string]string{"role=db zone=eu": "w"} }),
			`job "a": window[role=db zone=eu]: col 9: want ',' between terms, found 'z'`},
		{"window key empty", base(func(s *store.JobSpec) { s.Window = map[string]string{" ": "w"} }),
			`job "a": window: a key is empty: want "default" or a label selector such as role=db`},
		{"window key too long", base(func(s *store.JobSpec) { s.Window = map[string]string{strings.Repeat("a", 1025): "w"} }),
			`job "a": window: a key is 1025 bytes long; the limit is 1024`},
		{"window value empty", base(func(s *store.JobSpec) { s.Window = map[string]string{"default": " "} }),
			`job "a": window[default]: the window name is empty`},
		{"window value too long", base(func(s *store.JobSpec) { s.Window = map[string]string{"default": strings.Repeat("w", 257)} }),
			`job "a": window[default]: the window name is 257 bytes long; the limit is 256`},
		{"window value control", base(func(s *store.JobSpec) { s.Window = map[string]string{"default": "a\x1bb"} }),
			`job "a": window[default]: the window name "a\x1bb" contains a control character`},
		{"window keys equal once trimmed", base(func(s *store.JobSpec) { s.Window = map[string]string{"role=db": "a", "role=db ": "b"} }),
			`job "a": window[role=db]: keys "role=db" and "role=db " are the same once trimmed`},
		{"too many windows", base(func(s *store.JobSpec) { s.Window = many }),
			`job "a": window: 65 entries; the limit is 64`},
		{"max_parallel zero", base(func(s *store.JobSpec) { s.MaxParallel = "0" }),
			`job "a": max_parallel: want a positive count or a percentage such as 25%, got "0"`},
		{"max_parallel over 100%", base(func(s *store.JobSpec) { s.MaxParallel = "150%" }),
			`job "a": max_parallel: a percentage is at most 100%, got "150%"`},
		{"max_parallel long", base(func(s *store.JobSpec) { s.MaxParallel = strings.Repeat("9", 40) }),
			`job "a": max_parallel: 40 bytes long; want a count or a percentage such as 25%`},
		{"max_failures negative", base(func(s *store.JobSpec) { s.MaxFailures = -1 }),
			`job "a": max_failures: must be between 0 (never stop) and 1048576, not -1`},
		{"catch_up bad", base(func(s *store.JobSpec) { s.CatchUp = "some" }),
			`job "a": catch_up: "some" is not one of latest, all, none`},
		{"wave_order bad", base(func(s *store.JobSpec) { s.WaveOrder = "alphabetical" }),
			`job "a": wave_order: "alphabetical" is not one of name, random`},
		{"bad nodes alone", base(func(s *store.JobSpec) { s.Nodes, s.MaxParallel = "db-1,db-2", "2" }),
			`job "a": nodes: col 6: a second node name "db-2": terms are ANDed, so two names match no node`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			err := Validate(&s, parseEvery)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate = %v, want ok", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("Validate = %v\nwant         %s", err, tc.want)
			}
		})
	}
}

// TestValidateWindowTrimmed: keys and values are stored trimmed, in a new
// map (the caller's is left alone), and an empty map becomes nil.
func TestValidateWindowTrimmed(t *testing.T) {
	in := map[string]string{" role=db ": " db-weekend ", "default": "anytime"}
	s := store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: "all", Window: in}
	if err := Validate(&s, parseEvery); err != nil {
		t.Fatal(err)
	}
	if len(s.Window) != 2 || s.Window["role=db"] != "db-weekend" || s.Window["default"] != "anytime" {
		t.Errorf("window = %q", s.Window)
	}
	if _, ok := in[" role=db "]; !ok || len(in) != 2 {
		t.Errorf("the caller's map changed: %q", in)
	}
	e := store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Window: map[string]string{}}
	if err := Validate(&e, parseEvery); err != nil || e.Window != nil {
		t.Errorf("empty window = %v, %v", e.Window, err)
	}
}

// FuzzValidateWave: arbitrary wave fields never panic Validate, and a spec
// it accepts is accepted again unchanged.
func FuzzValidateWave(f *testing.F) {
	f.Add("role=db", " db-weekend", "25%", int64(1), "random", "all")
	f.Add("any", "", "0", int64(-1), "x", "")
	f.Add("k in (a,b", "w\x00", "101%", int64(1<<40), "name", "db-1")
	f.Fuzz(func(t *testing.T, key, val, maxParallel string, maxFailures int64, order, nodes string) {
		spec := store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: nodes, Window: map[string]string{key: val},
			MaxParallel: maxParallel, MaxFailures: int(maxFailures % (1 << 32)), WaveOrder: order}
		if err := Validate(&spec, parseEvery); err != nil {
			return
		}
		again := spec
		if err := Validate(&again, parseEvery); err != nil {
			t.Fatalf("a normalised spec is refused: %v", err)
		}
		if len(again.Window) != len(spec.Window) || again.Window[strings.TrimSpace(key)] != spec.Window[strings.TrimSpace(key)] {
			t.Fatalf("window changed on the second pass: %q then %q", spec.Window, again.Window)
		}
	})
}
