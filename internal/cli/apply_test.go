package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// applyManifest writes src (with DIR replaced by a fresh temp dir) and returns
// the manifest path and the dir.
func applyManifest(t *testing.T, src string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(src, "DIR", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, dir
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each exec appends its name to DIR/order, so the file records what ran.
const chainPP = `
exec { 'c': command => 'echo c >> DIR/order', refreshonly => true }
exec { 'a': command => 'echo a >> DIR/order' }
exec { 'b': command => 'echo b >> DIR/order' }
Exec['a'] ~> Exec['c']
Exec['b'] -> Exec['a']
notify { 'hello': message => 'hi there', require => Exec['c'] }
`

func TestApplyOrderAndRefresh(t *testing.T) {
	pp, dir := applyManifest(t, chainPP)
	out, errOut, code := runCLI(t, "apply", "--detailed-exitcodes", pp)
	if code != 2 || errOut != "" {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	if got := read(t, filepath.Join(dir, "order")); got != "b\na\nc\n" {
		t.Fatalf("order %q", got)
	}
	want := `Notice: Exec[b]/returns: executed successfully
Notice: Exec[a]/returns: executed successfully
Notice: Exec[c]: Triggered 'refresh' from 1 event
Notice: hi there
Notice: Notify[hello]/message: defined 'message' as 'hi there'
Notice: Applied catalog in `
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "Notice: Summary: 4 resources, 4 changed, 0 failed, 0 skipped, 1 refreshed\n") {
		t.Fatalf("stdout:\n%s", out)
	}
	// Without --detailed-exitcodes a run that changed things exits 0.
	if _, _, code := runCLI(t, "apply", pp); code != 0 {
		t.Fatalf("code %d", code)
	}
}

func TestApplyNoopChangesNothing(t *testing.T) {
	pp, dir := applyManifest(t, chainPP)
	out, _, code := runCLI(t, "apply", "--noop", "--detailed-exitcodes", pp)
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "order")); err == nil {
		t.Fatal("noop ran a command")
	}
	for _, l := range []string{
		"Notice: Exec[a]/returns: current_value 'notrun', should be ['0'] (noop)",
		"Notice: Exec[c]: Would have triggered 'refresh' from 1 event",
		"Notice: Class[Main]: Would have triggered 'refresh' from 4 events",
	} {
		if !strings.Contains(out, l+"\n") {
			t.Errorf("missing %q in\n%s", l, out)
		}
	}
}

func TestApplyFailedDependencies(t *testing.T) {
	pp, dir := applyManifest(t, `
exec { 'fail': command => '/bin/false' }
exec { 'after_fail': command => 'echo after_fail >> DIR/order', require => Exec['fail'] }
exec { 'after_after': command => 'echo after_after >> DIR/order', require => Exec['after_fail'] }
exec { 'free': command => 'echo free >> DIR/order' }
`)
	out, errOut, code := runCLI(t, "apply", "--detailed-exitcodes", pp)
	if code != 6 {
		t.Fatalf("code %d", code)
	}
	if got := read(t, filepath.Join(dir, "order")); got != "free\n" {
		t.Fatalf("order %q", got)
	}
	wantErr := `Error: '/bin/false' returned 1 instead of one of [0]
Error: Exec[fail]/returns: change from 'notrun' to ['0'] failed: '/bin/false' returned 1 instead of one of [0]
Warning: Exec[after_fail]: Skipping because of failed dependencies
Warning: Exec[after_after]: Skipping because of failed dependencies
`
	if errOut != wantErr || !strings.Contains(out, "Notice: Exec[after_fail]: Dependency Exec[fail] has failures: true\n") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	// Only failures: exit 4.
	pp2, _ := applyManifest(t, `exec { 'fail': command => '/bin/false' }`)
	if _, _, code := runCLI(t, "apply", "--detailed-exitcodes", pp2); code != 4 {
		t.Fatalf("code %d", code)
	}
}

func TestApplySchedulesAndState(t *testing.T) {
	pp, dir := applyManifest(t, `
schedule { 'night': range => '1 - 4', period => 'daily' }
exec { 'backup': command => 'echo backup >> DIR/order', schedule => 'night' }
exec { 'hourly': command => 'echo hourly >> DIR/order', schedule => 'hourly' }
exec { 'after': command => 'echo after >> DIR/order', require => Exec['backup'] }
`)
	state := filepath.Join(dir, "state.json")
	run := func(now string, extra ...string) int {
		args := append([]string{"apply", "--tz", "UTC", "--state", state, "--now", now, "--detailed-exitcodes"}, extra...)
		_, _, code := runCLI(t, append(args, pp)...)
		return code
	}
	// 03:00 is inside the range and nothing was ever checked: all run.
	if code := run("2024-06-01T03:00:00Z"); code != 2 {
		t.Fatalf("code %d", code)
	}
	// 03:30: daily and hourly already done; only the unscheduled one runs.
	run("2024-06-01T03:30:00Z")
	// 12:00 next day: outside the range, hourly due again.
	run("2024-06-02T12:00:00Z")
	// A noop run inside the window marks backup checked...
	run("2024-06-03T02:00:00Z", "--noop")
	// ...so an hour later it does not run (Puppet's behaviour).
	run("2024-06-03T03:00:00Z")
	want := "backup\nhourly\nafter\nafter\nhourly\nafter\nhourly\nafter\n"
	if got := read(t, filepath.Join(dir, "order")); got != want {
		t.Fatalf("order %q want %q", got, want)
	}
	var st struct {
		Resources map[string]map[string]string `json:"resources"`
	}
	if err := json.Unmarshal([]byte(read(t, state)), &st); err != nil {
		t.Fatal(err)
	}
	if b := st.Resources["Exec[backup]"]; b["checked"] != "2024-06-03T02:00:00Z" || b["synced"] != "2024-06-01T03:00:00Z" {
		t.Fatalf("state %v", st.Resources)
	}
	// statettl prunes entries not checked for that long.
	run("2024-06-03T05:00:00Z", "--statettl", "1h")
	st.Resources = nil
	if err := json.Unmarshal([]byte(read(t, state)), &st); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Resources["Exec[backup]"]; ok {
		t.Fatalf("stale entry kept: %v", st.Resources)
	}
}

func TestApplyMissingSchedule(t *testing.T) {
	pp, dir := applyManifest(t, `
exec { 'first': command => 'echo first >> DIR/order' }
exec { 'b': command => '/bin/true', schedule => 'nosuch' }
exec { 'c': command => 'echo c >> DIR/order' }
`)
	_, errOut, code := runCLI(t, "apply", "--detailed-exitcodes", pp)
	// Puppet 7.23 applies Exec[first] and then aborts with "Failed to apply
	// catalog: Could not find schedule nosuch"; almanac's compiler already
	// rejects the reference, with its position, so nothing is applied.
	if code != 1 || !strings.HasPrefix(errOut, pp+":3:37: Could not find schedule nosuch\n") {
		t.Fatalf("code %d stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "order")); err == nil {
		t.Fatal("something was applied")
	}
}

func TestApplyCycles(t *testing.T) {
	pp, dir := applyManifest(t, `
exec { 'p': command => 'echo p >> DIR/order', require => Exec['q'] }
exec { 'q': command => 'echo q >> DIR/order', require => Exec['p'] }
exec { 'free': command => 'echo free >> DIR/order' }
`)
	graphs := filepath.Join(dir, "graphs")
	_, errOut, code := runCLI(t, "apply", "--graph", graphs, pp)
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "order")); err == nil {
		t.Fatal("something ran despite the cycle")
	}
	want := "Error: Found 1 dependency cycle:\n(Exec[p] => Exec[q] => Exec[p])\\nCycle graph written to " + filepath.Join(graphs, "cycles.dot") + ".\n"
	if !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, "Error: Failed to apply catalog: One or more resource dependency cycles detected in graph\n") {
		t.Fatalf("stderr:\n%s", errOut)
	}
	if !strings.Contains(errOut, "site.pp:2:") {
		t.Errorf("no manifest position in %s", errOut)
	}
	if got := read(t, filepath.Join(graphs, "cycles.dot")); !strings.Contains(got, `"Exec[p]" -> "Exec[q]" -> "Exec[p]"`) {
		t.Fatalf("cycles.dot:\n%s", got)
	}
}

func TestApplyGraphFiles(t *testing.T) {
	pp, dir := applyManifest(t, `class web { exec { 'a': command => '/bin/true' } }
include web
notify { 'n': }`)
	graphs := filepath.Join(dir, "g")
	if _, _, code := runCLI(t, "apply", "--noop", "--graph", graphs, pp); code != 0 {
		t.Fatal(code)
	}
	exp := read(t, filepath.Join(graphs, "expanded_relationships.dot"))
	if !strings.Contains(exp, `"Whit[Admissible_class[Web]]" -> "Exec[a]"`) || !strings.Contains(exp, `"Exec[a]" -> "Whit[Completed_class[Web]]"`) {
		t.Fatalf("expanded:\n%s", exp)
	}
	if res := read(t, filepath.Join(graphs, "resources.dot")); !strings.Contains(res, `"Class[Web]" -> "Exec[a]"`) {
		t.Fatalf("resources:\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(graphs, "relationships.dot")); err != nil {
		t.Fatal(err)
	}
}

func TestApplyRandomOrderingSeed(t *testing.T) {
	pp, _ := applyManifest(t, `notify { ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']: }`)
	out1, _, _ := runCLI(t, "apply", "--ordering", "random", "--seed", "42", pp)
	out2, _, _ := runCLI(t, "apply", "--ordering", "random", "--seed", "42", pp)
	strip := func(s string) string { return s[:strings.Index(s, "Notice: Applied")] }
	if !strings.HasPrefix(out1, "Notice: Ordering unrelated resources randomly with seed 42 (repeat with --seed 42)\n") || strip(out1) != strip(out2) {
		t.Fatalf("runs differ:\n%s\n%s", out1, out2)
	}
	out3, _, _ := runCLI(t, "apply", "--ordering", "title-hash", pp)
	out4, _, _ := runCLI(t, "apply", pp)
	if strip(out3) == strip(out4) {
		t.Fatal("title-hash gave manifest order")
	}
}

func TestApplyErrors(t *testing.T) {
	bad, _ := applyManifest(t, "exec { 'x': command => }\n")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"apply"}, 2, "no manifest"},
		{[]string{"apply", "--ordering", "alphabetical", "x.pp"}, 2, "invalid ordering"},
		{[]string{"apply", "--now", "noon", "x.pp"}, 2, "RFC 3339"},
		{[]string{"apply", "--tz", "Mars/Base", "x.pp"}, 2, "--tz"},
		{[]string{"apply", "--statettl", "soon", "x.pp"}, 2, "--statettl"},
		{[]string{"apply", bad}, 1, "site.pp:1:"},
		{[]string{"apply", filepath.Join(t.TempDir(), "gone.pp")}, 2, "apply: "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("code %d stderr %q", code, errOut)
			}
		})
	}
}

// Without --tz, schedule ranges are read in the machine's local zone, as
// Puppet reads them.
func TestApplyTZDefaultsToLocal(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err) // the binary embeds the tz database
	}
	saved := time.Local
	time.Local = ny
	defer func() { time.Local = saved }()
	pp, dir := applyManifest(t, `
schedule { 'night': range => '1 - 4' }
exec { 'backup': command => 'echo backup >> DIR/order', schedule => 'night' }
`)
	// 03:00 UTC is 23:00 in New York: outside the range there.
	if _, errOut, code := runCLI(t, "apply", "--now", "2024-06-01T03:00:00Z", pp); code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "order")); err == nil {
		t.Fatal("ran at 23:00 local time")
	}
	// 06:00 UTC is 02:00 in New York: inside.
	runCLI(t, "apply", "--now", "2024-06-01T06:00:00Z", pp)
	// --tz UTC overrides the local zone: 03:00 UTC is inside.
	runCLI(t, "apply", "--tz", "UTC", "--now", "2024-06-01T03:00:00Z", pp)
	if got := read(t, filepath.Join(dir, "order")); got != "backup\nbackup\n" {
		t.Fatalf("order %q", got)
	}
}
