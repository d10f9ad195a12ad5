package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// importRoot is a copy of a Debian host's units: the timers and services
// of apt, dpkg, e2fsprogs, util-linux, logrotate, man-db and
// postgresql-common's pg_dump@ template under lib/systemd/system, enabled
// by absolute links in etc/systemd/system/timers.target.wants (a
// pg_dump@15-main instance among them), drop-ins in etc/ and run/, and a
// timer whose Unit= is a target.
const importRoot = "../../testdata/import-root"

// jobBlock returns the job resource named name in a manifest.
func jobBlock(t *testing.T, manifest, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?ms)(?:^#[^\n]*\n)*^job \{ '` + regexp.QuoteMeta(name) + `':\n.*?^\}\n`).FindString(manifest)
	if m == "" {
		t.Fatalf("no job %s in\n%s", name, manifest)
	}
	return m
}

// TestImportEnabledTimers imports the enabled timers, the directory
// timers.target.wants, as systemd would run them: links followed, each
// service found in the unit search path (an instance's in its template,
// specifiers expanded), the drop-ins of /etc and /run applied in
// systemd's order, and the timer that starts a target refused as such.
func TestImportEnabledTimers(t *testing.T) {
	wants := filepath.Join(importRoot, "etc/systemd/system/timers.target.wants")
	out, errOut, code := runCLI(t, "import", "timer", "--root", importRoot, "--tz", "UTC", wants)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := strings.Count(out, "\njob { "); n != 8 {
		t.Errorf("%d jobs imported, want the 8 enabled timers that start a service\n%s", n, errOut)
	}
	for _, want := range []string{
		"cron-daily.timer:6: Unit=cron-daily.target: a target unit is not a command",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	checks := []struct {
		job       string
		want, not []string
	}{
		// override.conf resets OnCalendar= and the delay; 50-persist.conf
		// in /run (before override.conf by name) turns Persistent= off;
		// /run's override.conf is hidden by /etc's.
		{"apt-daily", []string{"on_calendar               => '*-*-* 03:00'", "starting_deadline_seconds => 60",
			"# with the drop-in " + importRoot + "/run/systemd/system/apt-daily.timer.d/50-persist.conf",
			"# with the drop-in " + importRoot + "/etc/systemd/system/apt-daily.timer.d/override.conf"},
			[]string{"6,18", "04:00", "randomized_delay"}},
		{"logrotate", []string{"command                   => ['/usr/sbin/logrotate', '--verbose', '/etc/logrotate.conf']"}, nil},
		{"pg_dump-15-main", []string{"starting " + importRoot + "/lib/systemd/system/pg_dump@.service",
			"/usr/bin/pg_backupcluster 15-main dump", "run_as                    => 'postgres'",
			"AssertPathExists=/etc/postgresql/15/main/postgresql.conf"}, nil},
		{"fstrim", []string{"on_calendar"}, nil},
	}
	for _, c := range checks {
		b := jobBlock(t, out, c.job)
		flat := strings.Join(strings.Fields(b), " ") // attributes' alignment aside
		for _, w := range c.want {
			if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
				t.Errorf("job %s lacks %q:\n%s", c.job, w, b)
			}
		}
		for _, w := range c.not {
			if strings.Contains(b, w) {
				t.Errorf("job %s has %q:\n%s", c.job, w, b)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "timers.pp")
	if err := os.WriteFile(p, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, verr, vcode := runCLI(t, "validate", p); vcode != 0 {
		t.Fatalf("validate of the import: exit %d\n%s", vcode, verr)
	}

	// An instance named alone is found in the search path, in its template.
	out, errOut, code = runCLI(t, "import", "timer", "--root", importRoot, "--tz", "UTC", "pg_dump@15-main.timer")
	if code != 0 || !strings.Contains(out, "job { 'pg_dump-15-main':") {
		t.Fatalf("import of an instance by name: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code = runCLI(t, "import", "timer", "--root", importRoot, "nope.timer"); code != exitUsage || !strings.Contains(errOut, "nope.timer: no such file here or in the unit search path") {
		t.Errorf("a timer that is nowhere: exit %d, %q", code, errOut)
	}
}

// TestImportDropInOrderAsSystemd compares the drop-ins the import applies,
// and their order, with what systemd-analyze cat-config lists for the same
// root.
func TestImportDropInOrderAsSystemd(t *testing.T) {
	analyze := testenv.LookPath(t, "systemd-analyze", "install Debian's systemd (scripts/test.d/systemd.sh)", "systemd-analyze")
	root, err := filepath.Abs(importRoot)
	if err != nil {
		t.Fatal(err)
	}
	p := unitPath{root: root}
	for _, unit := range []string{"apt-daily.timer", "logrotate.service", "fstrim.timer"} {
		t.Run(unit, func(t *testing.T) {
			out, err := exec.Command(analyze, "--root="+root, "cat-config", "systemd/system/"+unit).CombinedOutput()
			if err != nil {
				t.Fatalf("systemd-analyze cat-config: %v\n%s", err, out)
			}
			var want []string
			for _, line := range strings.Split(string(out), "\n") {
				if f, ok := strings.CutPrefix(line, "# "+root+"/"); ok && strings.HasSuffix(f, ".conf") {
					want = append(want, f)
				}
			}
			dropIns, err := p.dropIns(unit, p.dirs())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range dropIns {
				got = append(got, strings.TrimPrefix(d.Path, root+"/"))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("drop-ins %v, systemd applies %v", got, want)
			}
		})
	}
}
