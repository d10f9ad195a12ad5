package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestContractApply runs `almanac apply` with the flags the CLI contract fixes and
// checks its exit codes (docs/apply.md): 0 / 2 changes / 4 failures / 6 both with
// --detailed-exitcodes, 1 for a compile error or a cycle.
func TestContractApply(t *testing.T) {
	t.Parallel()
	manifest := func(t *testing.T, src string) (dir, file string) {
		t.Helper()
		dir = t.TempDir()
		file = filepath.Join(dir, "site.pp")
		src = strings.ReplaceAll(src, "DIR", dir)
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, file
	}
	const now = "2026-06-01T03:00:00Z"

	tests := []struct {
		name string
		src  string
		args []string // before the file
		code int
		out  []string // lines stdout must contain
		// created: a file under DIR the run must (true) or must not (false) leave behind
		created map[string]bool
	}{
		{
			name:    "changes",
			src:     "file { 'DIR/out': ensure => file, content => \"hi\\n\" }\n",
			args:    []string{"--detailed-exitcodes"},
			code:    2,
			out:     []string{"Notice: File[DIR/out]/ensure: defined content as '{sha256}"},
			created: map[string]bool{"out": true},
		},
		{
			name:    "noop changes nothing and exits 0, as Puppet 7",
			src:     "file { 'DIR/out': ensure => file, content => \"hi\\n\" }\n",
			args:    []string{"--noop", "--detailed-exitcodes"},
			code:    0,
			out:     []string{"(noop)", "1 would change"},
			created: map[string]bool{"out": false},
		},
		{
			name: "failures",
			src:  "exec { 'fail': command => 'exit 3' }\nexec { 'after': command => 'touch DIR/after', require => Exec['fail'] }\n",
			args: []string{"--detailed-exitcodes"},
			code: 4,
			out:  []string{"Notice: Exec[after]: Dependency Exec[fail] has failures: true"},
			// A failed dependency skips its dependents.
			created: map[string]bool{"after": false},
		},
		{
			name:    "changes and failures",
			src:     "exec { 'fail': command => 'exit 1' }\nexec { 'ok': command => 'touch DIR/ok' }\n",
			args:    []string{"--detailed-exitcodes"},
			code:    6,
			created: map[string]bool{"ok": true},
		},
		{
			name: "failures without --detailed-exitcodes exit 0",
			src:  "exec { 'fail': command => 'exit 1' }\n",
			code: 0,
		},
		{
			name:    "refresh events are batched",
			src:     "exec { ['a', 'b']: command => '/bin/true', notify => Exec['r'] }\nexec { 'r': command => 'echo x >> DIR/r', refreshonly => true }\n",
			args:    []string{"--detailed-exitcodes"},
			code:    2,
			out:     []string{"Notice: Exec[r]: Triggered 'refresh' from 2 events"},
			created: map[string]bool{"r": true},
		},
		{
			name:    "--now inside the schedule applies",
			src:     "schedule { 'night': range => '02:00 - 04:00' }\nexec { 'gated': command => 'touch DIR/gated', schedule => 'night' }\n",
			args:    []string{"--now", now, "--tz", "UTC", "--detailed-exitcodes"},
			code:    2,
			created: map[string]bool{"gated": true},
		},
		{
			name:    "--now outside the schedule skips, not fails",
			src:     "schedule { 'night': range => '02:00 - 04:00' }\nexec { 'gated': command => 'touch DIR/gated', schedule => 'night' }\n",
			args:    []string{"--now", "2026-06-01T12:00:00Z", "--tz", "UTC", "--detailed-exitcodes"},
			code:    0,
			out:     []string{"1 skipped"},
			created: map[string]bool{"gated": false},
		},
		{
			name: "--tz moves the schedule's wall clock",
			src:  "schedule { 'night': range => '02:00 - 04:00' }\nexec { 'gated': command => 'touch DIR/gated', schedule => 'night' }\n",
			// 03:00 UTC is 23:00 the day before in New York.
			args:    []string{"--now", now, "--tz", "America/New_York", "--detailed-exitcodes"},
			code:    0,
			created: map[string]bool{"gated": false},
		},
		{
			name:    "jobs are left to the daemon",
			src:     "job { 'nightly': cron => '0 2 * * *', command => 'x' }\nfile { 'DIR/f': ensure => file, content => 'x' }\n",
			args:    []string{"--detailed-exitcodes"},
			code:    2,
			created: map[string]bool{"f": true},
		},
		{
			name: "--ordering title-hash is accepted",
			src:  "notify { 'hello': message => 'hi' }\n",
			args: []string{"--ordering", "title-hash", "--detailed-exitcodes"},
			code: 2,
			out:  []string{"Notice: Notify[hello]/message: defined 'message' as 'hi'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, file := manifest(t, tt.src)
			r := almanac(t, dir, nil, append(append([]string{"apply"}, tt.args...), file)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r)
			}
			for _, l := range tt.out {
				if l = strings.ReplaceAll(l, "DIR", dir); !strings.Contains(r.stdout, l) {
					t.Errorf("stdout lacks %q\n%s", l, r)
				}
			}
			for name, want := range tt.created {
				_, err := os.Stat(filepath.Join(dir, name))
				if got := err == nil; got != want {
					t.Errorf("%s exists = %v, want %v\n%s", name, got, want, r)
				}
			}
		})
	}

	t.Run("--state records checked times and feeds period schedules", func(t *testing.T) {
		t.Parallel()
		dir, file := manifest(t, "schedule { 'once-a-day': period => daily }\n"+
			"exec { 't': command => 'echo x >> DIR/count', schedule => 'once-a-day' }\n")
		state := filepath.Join(dir, "state.json")
		apply := func(at string) result {
			return almanac(t, dir, nil, "apply", "--now", at, "--state", state, "--detailed-exitcodes", file)
		}
		if r := apply(now); r.code != 2 {
			t.Fatalf("first apply: want exit 2\n%s", r)
		}
		b, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Resources map[string]struct {
				Checked string `json:"checked"`
				Synced  string `json:"synced"`
			} `json:"resources"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("state file is not JSON: %v\n%s", err, b)
		}
		if got := st.Resources["Exec[t]"].Checked; got != now {
			t.Errorf("Exec[t] checked = %q, want %q\n%s", got, now, b)
		}
		// An hour later the daily period has not passed: skipped.
		if r := apply("2026-06-01T04:00:00Z"); r.code != 0 {
			t.Errorf("second apply within the period: want exit 0\n%s", r)
		}
		// A day later it runs again.
		if r := apply("2026-06-02T04:00:00Z"); r.code != 2 {
			t.Errorf("apply after the period: want exit 2\n%s", r)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "count")); string(b) != "x\nx\n" {
			t.Errorf("the exec ran %q, want twice", b)
		}
	})

	t.Run("--graph writes the DOT files", func(t *testing.T) {
		t.Parallel()
		dir, file := manifest(t, "exec { 'a': command => '/bin/true' } -> exec { 'b': command => '/bin/true' }\n")
		graphs := filepath.Join(dir, "graphs")
		if err := os.Mkdir(graphs, 0o755); err != nil {
			t.Fatal(err)
		}
		if r := almanac(t, dir, nil, "apply", "--noop", "--graph", graphs, file); r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		entries, err := os.ReadDir(graphs)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if want := []string{"expanded_relationships.dot", "relationships.dot", "resources.dot"}; !reflect.DeepEqual(names, want) {
			t.Errorf("files %v, want %v", names, want)
		}
	})

	t.Run("cycle: nothing applied, exit 1", func(t *testing.T) {
		t.Parallel()
		dir, file := manifest(t, "exec { 'a': command => 'touch DIR/a', require => Exec['b'] }\n"+
			"exec { 'b': command => 'touch DIR/b', require => Exec['a'] }\nexec { 'c': command => 'touch DIR/c' }\n")
		r := almanac(t, dir, nil, "apply", "--detailed-exitcodes", file)
		if r.code != 1 {
			t.Fatalf("want exit 1\n%s", r)
		}
		if !strings.Contains(r.stderr, "Found 1 dependency cycle") {
			t.Errorf("stderr lacks the cycle report\n%s", r)
		}
		for _, f := range []string{"a", "b", "c"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s was applied despite the cycle", f)
			}
		}
	})

	t.Run("compile error: positioned, exit 1", func(t *testing.T) {
		t.Parallel()
		dir, file := manifest(t, "exec { 'a': command => 'x', require => Exec['nope'] }\n")
		r := almanac(t, dir, nil, "apply", "--detailed-exitcodes", file)
		if r.code != 1 || !strings.Contains(r.stderr, file+":1:") || !strings.Contains(r.stderr, "Exec[nope]") {
			t.Fatalf("want exit 1 and a positioned error\n%s", r)
		}
	})

	t.Run("a bad state file changes nothing", func(t *testing.T) {
		t.Parallel()
		dir, file := manifest(t, "exec { 'a': command => 'touch DIR/a' }\n")
		state := filepath.Join(dir, "state.json")
		if err := os.WriteFile(state, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := almanac(t, dir, nil, "apply", "--state", state, file)
		if r.code != 1 || !strings.Contains(r.stderr, state) {
			t.Fatalf("want exit 1 and an error naming the state file\n%s", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
			t.Error("the exec ran despite the unreadable state file")
		}
		if b, _ := os.ReadFile(state); string(b) != "{not json" {
			t.Errorf("the state file was rewritten: %q", b)
		}
	})

	usage := []struct {
		name      string
		args      []string
		fragments []string
	}{
		{"bad --now", []string{"apply", "--now", "3am", "x.pp"}, []string{"--now", "3am"}},
		{"bad --ordering", []string{"apply", "--ordering", "alphabetic", "x.pp"}, []string{"ordering", "alphabetic"}},
		{"bad --tz", []string{"apply", "--tz", "Nowhere/Land", "x.pp"}, []string{"--tz", "Nowhere/Land"}},
		{"no file", []string{"apply"}, []string{"no manifest"}},
		{"missing file", []string{"apply", "missing.pp"}, []string{"missing.pp"}},
	}
	for _, tt := range usage {
		t.Run("error/"+tt.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, almanac(t, t.TempDir(), nil, tt.args...), 2, tt.fragments...)
		})
	}
}
