package importer_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/importer"
)

const timerDir = "../../testdata/import-timer"

// timerDirImport imports every *.timer in dir, with the services beside
// them, as `almanac import timer DIR` does.
func timerDirImport(t *testing.T, dir string, opts importer.TimerOptions) importer.Result {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.timer"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no timers in %s: %v", dir, err)
	}
	sort.Strings(paths)
	var timers []importer.UnitSource
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		timers = append(timers, importer.UnitSource{Path: filepath.Base(p), Data: b})
	}
	load := func(_ importer.UnitSource, name string) (importer.UnitSource, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return importer.UnitSource{}, fmt.Errorf("%s: no such unit", name)
		}
		return importer.UnitSource{Path: name, Data: b}, nil
	}
	res, err := importer.Timers(timers, load, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTimerGolden imports the sample units (Debian's apt-daily and
// fstrim, a backup with every mapped setting, a monotonic timer, a
// template, a timer naming its service with Unit=) and compares the
// manifest and warnings with the golden files.
func TestTimerGolden(t *testing.T) {
	res := timerDirImport(t, timerDir, importer.TimerOptions{Zone: "America/New_York"})
	checkParses(t, res)
	golden(t, filepath.Join(timerDir, "all.pp"), res.Manifest)
	golden(t, filepath.Join(timerDir, "all.warnings"), strings.Join(res.Warnings, "\n")+"\n")
	if res.Jobs != 4 {
		t.Errorf("%d jobs, want 4", res.Jobs)
	}
}

// TestTimerMapping checks the mappings one at a time.
func TestTimerMapping(t *testing.T) {
	tests := []struct {
		name    string
		timer   string
		service string
		opts    importer.TimerOptions
		want    []string
		notWant []string
		warning string
		errs    int
		// path is the timer's (t.timer when empty); the drop-ins are
		// NAME.d/0.conf, 1.conf, …
		path                         string
		timerDropIns, serviceDropIns []string
	}{
		{name: "several OnCalendar are a union", timer: "[Timer]\nOnCalendar=daily\nOnCalendar=Sat 12:00\n",
			service: "[Service]\nExecStart=/bin/true\n", want: []string{"on_calendar                => ['daily', 'Sat 12:00']"}},
		{name: "an empty OnCalendar resets", timer: "[Timer]\nOnCalendar=daily\nOnCalendar=\nOnCalendar=weekly\n",
			service: "[Service]\nExecStart=/bin/true\n", want: []string{"on_calendar                => 'weekly'"}},
		{name: "not persistent: deadline of the accuracy", timer: "[Timer]\nOnCalendar=daily\nAccuracySec=5min\n",
			service: "[Service]\nExecStart=/bin/true\n", want: []string{"starting_deadline_seconds  => 300"}},
		{name: "persistent: no deadline", timer: "[Timer]\nOnCalendar=daily\nPersistent=yes\n",
			service: "[Service]\nExecStart=/bin/true\n", notWant: []string{"starting_deadline_seconds"}},
		{name: "randomized delay rounds up", timer: "[Timer]\nOnCalendar=daily\nRandomizedDelaySec=1.5s\n",
			service: "[Service]\nExecStart=/bin/true\n", want: []string{"randomized_delay           => 2"}},
		{name: "host zone", timer: "[Timer]\nOnCalendar=daily\n", opts: importer.TimerOptions{Zone: "Asia/Tokyo", Prefix: "host1"},
			service: "[Service]\nExecStart=/bin/true\n", want: []string{"time_zone                  => 'Asia/Tokyo'", "job { 'host1-t':"}},
		{name: "monotonic only", timer: "[Timer]\nOnBootSec=5min\nOnUnitActiveSec=1h\n",
			service: "[Service]\nExecStart=/bin/true\n", warning: "monotonic timer (OnBootSec=5min, OnUnitActiveSec=1h)"},
		{name: "Environment quoting and $ expansion", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nEnvironment=\"A=x y\" 'B=it\\'s' C=\\x41\nExecStart=/bin/echo $A ${A} pre${B}post $$A $NONE\n",
			want:    []string{`['/bin/echo', 'x', 'y', 'x y', 'preit\'spost', '$A']`, "'A' => 'x y'", "'C' => 'A'"}, warning: "$NONE"},
		{name: "text after a closing quote", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nEnvironment='B=it''s'\nExecStart=/bin/true\n", warning: "text right after a closing quote"},
		{name: ": prefix keeps $", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nEnvironment=A=1\nExecStart=:/bin/echo $A\n", want: []string{"['/bin/echo', '$A']"}},
		{name: "- prefix ignores failure", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nExecStart=-/bin/false 'a b'\n", want: []string{`'{ /bin/false \'a b\' || :; }'`}},
		{name: "oneshot with several commands", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nType=oneshot\nExecStart=/bin/a\nExecStart=/bin/b x\n", want: []string{"'/bin/a &&\n/bin/b x'"}},
		{name: "several commands without oneshot", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nExecStart=/bin/a\nExecStart=/bin/b\n", warning: "only Type=oneshot allows"},
		{name: "the | prefix", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nExecStart=|echo hi\n", warning: "not supported"},
		{name: "a host specifier", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nExecStart=/bin/echo %H\n", warning: "%H depends on the host"},
		{name: "User and Group", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=www-data\nGroup=adm\nExecStart=/bin/true\n", want: []string{"run_as                     => 'www-data:adm'"}},
		{name: "User= uid 2^32", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=4294967296\nExecStart=/bin/true\n", warning: "user id 4294967296 is out of range", notWant: []string{"run_as"}},
		{name: "User= uid 2^32+1", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=4294967297\nExecStart=/bin/true\n", warning: "user id 4294967297 is out of range", notWant: []string{"run_as"}},
		{name: "User= uid -1", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=-1\nExecStart=/bin/true\n", warning: `user "-1" is not a numeric id`, notWant: []string{"run_as"}},
		{name: "User= uid 2^63", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=9223372036854775808\nExecStart=/bin/true\n", warning: "user id 9223372036854775808 is out of range", notWant: []string{"run_as"}},
		{name: "Group= gid 2^32", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=65534\nGroup=4294967296\nExecStart=/bin/true\n", warning: "group id 4294967296 is out of range", notWant: []string{"run_as"}},
		{name: "Group= gid 2^32+1", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=65534\nGroup=4294967297\nExecStart=/bin/true\n", warning: "group id 4294967297 is out of range", notWant: []string{"run_as"}},
		{name: "Group= gid -1", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=65534\nGroup=-1\nExecStart=/bin/true\n", warning: `group "-1" is not a numeric id`, notWant: []string{"run_as"}},
		{name: "Group= gid 2^63", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=65534\nGroup=9223372036854775808\nExecStart=/bin/true\n", warning: "group id 9223372036854775808 is out of range", notWant: []string{"run_as"}},
		{name: "User= and Group= at the largest ids", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nUser=4294967294\nGroup=4294967294\nExecStart=/bin/true\n", want: []string{"run_as                     => '4294967294:4294967294'"}},
		{name: "oneshot start timeout is the run's", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nType=oneshot\nTimeoutStartSec=1min 30s\nExecStart=/bin/true\n", want: []string{"timeout                    => 90"}},
		{name: "infinite timeout", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nType=oneshot\nTimeoutStartSec=infinity\nExecStart=/bin/true\n", notWant: []string{"timeout"}},
		{name: "EnvironmentFile", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nEnvironmentFile=-/etc/default/x\nExecStart=/bin/true\n", warning: "EnvironmentFile=-/etc/default/x is not read"},
		{name: "relative WorkingDirectory", timer: "[Timer]\nOnCalendar=daily\n",
			service: "[Service]\nWorkingDirectory=~\nExecStart=/bin/true\n", warning: "only an absolute path", notWant: []string{"cwd"}},
		{name: "no service", timer: "[Timer]\nOnCalendar=daily\nUnit=other.service\n", warning: "other.service"},
		{name: "a target is not a command", timer: "[Timer]\nOnCalendar=daily\nUnit=cron-daily.target\n",
			warning: "t.timer:3: Unit=cron-daily.target: a target unit is not a command"},
		{name: "drop-ins reset and override", timer: "[Timer]\nOnCalendar=*-*-* 6,18:00\nRandomizedDelaySec=12h\nPersistent=true\n",
			timerDropIns: []string{"[Timer]\nPersistent=false\n", "[Timer]\nOnCalendar=\nOnCalendar=*-*-* 03:00\nRandomizedDelaySec=0\nWakeSystem=yes\n"},
			service:      "[Service]\nExecStart=/bin/a\n", serviceDropIns: []string{"[Service]\nExecStart=\nExecStart=/bin/b --verbose\nUser=backup\n"},
			want: []string{"on_calendar                => '*-*-* 03:00'", "starting_deadline_seconds  => 60", "['/bin/b', '--verbose']",
				"run_as                     => 'backup'", "# with the drop-in t.timer.d/1.conf"},
			notWant: []string{"6,18", "randomized_delay", "/bin/a"}, warning: "t.timer.d/1.conf:5: WakeSystem= has no almanac equivalent"},
		{name: "an instance's specifiers", timer: "[Timer]\nOnCalendar=weekly\n", path: "pg_dump@15-main.timer",
			service: "[Unit]\nAssertPathExists=/etc/postgresql/%I/postgresql.conf\n[Service]\nExecStart=/usr/bin/pg_backupcluster %i dump\n",
			want:    []string{"['/usr/bin/pg_backupcluster', '15-main', 'dump']", "AssertPathExists=/etc/postgresql/15/main/postgresql.conf"}},
		{name: "NUL in the service", timer: "[Timer]\nOnCalendar=daily\n", service: "[Service]\nExecStart=/bin/a\x00\n", errs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timerPath := tt.path
			if timerPath == "" {
				timerPath = "t.timer"
			}
			dropIns := func(unit string, texts []string) []importer.UnitSource {
				var out []importer.UnitSource
				for i, d := range texts {
					out = append(out, importer.UnitSource{Path: fmt.Sprintf("%s.d/%d.conf", unit, i), Data: []byte(d)})
				}
				return out
			}
			load := func(_ importer.UnitSource, name string) (importer.UnitSource, error) {
				if name != strings.TrimSuffix(timerPath, ".timer")+".service" || tt.service == "" {
					return importer.UnitSource{}, fmt.Errorf("%s: no such unit", name)
				}
				return importer.UnitSource{Path: name, Data: []byte(tt.service), DropIns: dropIns(name, tt.serviceDropIns)}, nil
			}
			res, err := importer.Timers([]importer.UnitSource{{Path: timerPath, Data: []byte(tt.timer), DropIns: dropIns(timerPath, tt.timerDropIns)}}, load, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, res)
			if len(res.Errors) != tt.errs {
				t.Fatalf("errors %q", res.Errors)
			}
			checkOutput(t, res, tt.want, tt.notWant, tt.warning)
		})
	}
}

func FuzzTimer(f *testing.F) {
	f.Add([]byte("[Timer]\nOnCalendar=daily\nPersistent=yes\n"), []byte("[Service]\nExecStart=/bin/true\n"))
	f.Add([]byte("[Timer]\nOnCalendar=Mon *-*-* 1:2 \\\n  UTC\nRandomizedDelaySec=1h 5m\n"),
		[]byte("[Service]\nType=oneshot\nEnvironment=\"A=b c\" D=\\x41\nExecStart=-@/bin/x y $A ${D} %n %%\nExecStart=/bin/z\nUser=u\nTimeoutStartSec=5\n"))
	f.Add([]byte("[Timer]\nOnBootSec=1\n"), []byte(""))
	f.Add([]byte("OnCalendar=x\n[Timer\n;c\n#d\n"), []byte("[Service]\nExecStart='unterminated\n"))
	f.Fuzz(func(t *testing.T, timer, service []byte) {
		load := func(importer.UnitSource, string) (importer.UnitSource, error) {
			return importer.UnitSource{Path: "t.service", Data: service}, nil
		}
		res, err := importer.Timers([]importer.UnitSource{{Path: "t.timer", Data: timer}}, load, importer.TimerOptions{})
		if err != nil {
			return
		}
		checkParses(t, res)
	})
}

// TestTimerScriptRuns runs the script a oneshot service with several
// commands becomes: a failing ExecStartPre= with - is ignored, quoting and
// $$ arrive as systemd passes them, and a failing command stops the rest.
func TestTimerScriptRuns(t *testing.T) {
	service := "[Service]\nType=oneshot\nExecStartPre=-/bin/sh -c \"exit 3\"\n" +
		"ExecStart=/bin/echo \"it's\" $$HOME '$(touch pwned)' \"a  b\"\nExecStart=/bin/sh -c 'echo second'\n" +
		"ExecStartPost=/bin/false\nExecStartPost=/bin/echo never\n"
	load := func(importer.UnitSource, string) (importer.UnitSource, error) {
		return importer.UnitSource{Path: "t.service", Data: []byte(service)}, nil
	}
	res, err := importer.Timers([]importer.UnitSource{{Path: "t.timer", Data: []byte("[Timer]\nOnCalendar=daily\n")}}, load, importer.TimerOptions{})
	if err != nil || res.Jobs != 1 {
		t.Fatalf("%v %v", err, res.Warnings)
	}
	script := importedCommand(t, res.Manifest)
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err == nil {
		t.Errorf("the failing ExecStartPost= did not fail the script:\n%s", script)
	}
	if want := "it's $HOME $(touch pwned) a  b\nsecond\n"; string(out) != want {
		t.Errorf("output %q, want %q\nscript:\n%s", out, want, script)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("an argument ran as a command")
	}
}
