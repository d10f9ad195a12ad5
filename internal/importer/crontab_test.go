package importer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/importer"
)

// TestCrontabMapping checks what each crontab construct becomes.
func TestCrontabMapping(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		opts    importer.CrontabOptions
		want    []string // in the manifest
		notWant []string
		warning string
		err     string
	}{
		{name: "user crontab runs as --user", src: "0 3 * * * /usr/bin/backup\n",
			opts: importer.CrontabOptions{User: "backup", System: importer.SystemNo},
			want: []string{"run_as             => 'backup'"}},
		{name: "user column runs as that user", src: "0 3 * * * postgres /usr/bin/vacuumdb --all\n",
			opts: importer.CrontabOptions{System: importer.SystemYes},
			want: []string{"run_as             => 'postgres'", "job { 'vacuumdb':", "command            => '/usr/bin/vacuumdb --all'"}},
		{name: "a user name run_as cannot hold", src: "0 3 * * * 'x y' /bin/true\n",
			opts: importer.CrontabOptions{System: importer.SystemYes}, warning: "not a user almanac can run a job as", err: ""},
		{name: "user column 4294967296", src: "0 3 * * * 4294967296 /bin/true\n",
			opts: importer.CrontabOptions{System: importer.SystemYes}, warning: "user id 4294967296 is out of range", notWant: []string{"run_as"}},
		{name: "--user 4294967296", src: "0 3 * * * /bin/true\n",
			opts: importer.CrontabOptions{User: "4294967296", System: importer.SystemNo}, err: "the crontab's owner: user id 4294967296 is out of range"},
		{name: "user column 4294967297", src: "0 3 * * * 4294967297 /bin/true\n",
			opts: importer.CrontabOptions{System: importer.SystemYes}, warning: "user id 4294967297 is out of range", notWant: []string{"run_as"}},
		{name: "--user 4294967297", src: "0 3 * * * /bin/true\n",
			opts: importer.CrontabOptions{User: "4294967297", System: importer.SystemNo}, err: "the crontab's owner: user id 4294967297 is out of range"},
		{name: "user column -1", src: "0 3 * * * -1 /bin/true\n",
			opts: importer.CrontabOptions{System: importer.SystemYes}, warning: "user \"-1\" is not a numeric id", notWant: []string{"run_as"}},
		{name: "--user -1", src: "0 3 * * * /bin/true\n",
			opts: importer.CrontabOptions{User: "-1", System: importer.SystemNo}, err: "the crontab's owner: user \"-1\" is not a numeric id"},
		{name: "user column 9223372036854775808", src: "0 3 * * * 9223372036854775808 /bin/true\n",
			opts: importer.CrontabOptions{System: importer.SystemYes}, warning: "user id 9223372036854775808 is out of range", notWant: []string{"run_as"}},
		{name: "--user 9223372036854775808", src: "0 3 * * * /bin/true\n",
			opts: importer.CrontabOptions{User: "9223372036854775808", System: importer.SystemNo}, err: "the crontab's owner: user id 9223372036854775808 is out of range"},
		{name: "MAILTO one address", src: "MAILTO=ops@example.com\n0 3 * * * /bin/true\n",
			want: []string{"notify             => 'mailto:ops@example.com'"}},
		{name: "MAILTO several addresses", src: "MAILTO=\"a@example.com, b@example.com\"\n0 3 * * * /bin/true\n",
			want: []string{"notify             => ['mailto:a@example.com', 'mailto:b@example.com']"}},
		{name: "MAILTO empty sends none", src: "MAILTO=\"\"\n0 3 * * * /bin/true\n",
			want: []string{"MAILTO is empty"}, notWant: []string{"notify             =>"}},
		{name: "MAILTO a local mailbox", src: "MAILTO=root\n0 3 * * * /bin/true\n",
			notWant: []string{"notify             =>"}, warning: "MAILTO root"},
		{name: "no CRON_TZ: the host's zone", src: "0 3 * * * /bin/true\n", opts: importer.CrontabOptions{Zone: "Asia/Tokyo"},
			want: []string{"time_zone          => 'Asia/Tokyo'", "read in Asia/Tokyo"}},
		{name: "no zone at all: UTC", src: "0 3 * * * /bin/true\n", want: []string{"time_zone          => 'UTC'"}},
		{name: "CRON_TZ followed, as cronie", src: "CRON_TZ=Europe/Berlin\n0 3 * * * /bin/true\n", opts: importer.CrontabOptions{Zone: "Asia/Tokyo"},
			want: []string{"time_zone          => 'Europe/Berlin'"}, warning: "Debian's cron ignores CRON_TZ"},
		{name: "CRON_TZ ignored, as Debian", src: "CRON_TZ=Europe/Berlin\n0 3 * * * /bin/true\n",
			opts: importer.CrontabOptions{Zone: "Asia/Tokyo", IgnoreCronTZ: true},
			want: []string{"time_zone          => 'Asia/Tokyo'", "'CRON_TZ' => 'Europe/Berlin'"}, warning: "ignored as Debian's cron does"},
		{name: "a system crontab read as a user one is refused", src: "SHELL=/bin/sh\n17 * * * * root cd / && run-parts /etc/cron.hourly\n",
			err: "f:2: the command starts with the user name root, as in the system format of /etc/crontab and /etc/cron.d; pass --system"},
		{name: "Debian's header comment is a sign", src: "# m h dom mon dow user\tcommand\n17 * * * * backup /bin/true\n", err: "--system"},
		{name: "--system=false reads it as a user crontab", src: "17 * * * * root cd /\n", opts: importer.CrontabOptions{System: importer.SystemNo},
			want: []string{"command            => 'root cd /'"}},
		{name: "NUL names its line and column", src: "0 3 * * * /bin/true\n0 4 * * * a\x00b\n", err: "f:2:12: a NUL byte"},
		{name: "prefix", src: "0 3 * * * /bin/true\n0 4 * * * /bin/true\n", opts: importer.CrontabOptions{Prefix: "web"},
			want: []string{"job { 'web-true':", "job { 'web-true-2':"}},
		{name: "no PATH line: cron's /usr/bin:/bin, not the daemon's PATH", src: "0 3 * * * backup\n",
			want: []string{"= { 'PATH' => '/usr/bin:/bin' }", "env                => $f_env_1"}},
		{name: "a PATH line replaces cron's", src: "PATH=/opt/bin\n0 3 * * * backup\n",
			want: []string{"= { 'PATH' => '/opt/bin' }"}, notWant: []string{"/usr/bin:/bin"}},
		{name: "MAILTO reaches the command's environment", src: "MAILTO=ops@example.com\n0 3 * * * /bin/true\n",
			want: []string{"'MAILTO' => 'ops@example.com'", "notify             => 'mailto:ops@example.com'"}},
		{name: "HOME is kept for the command", src: "HOME=/srv/app\n0 3 * * * ./bin/run\n", opts: importer.CrontabOptions{User: "web"},
			want: []string{"'HOME' => '/srv/app'", "run_as             => 'web'"}},
		{name: "an account of the host where the command would start is refused", src: "17 * * * * www-data /usr/bin/php /srv/cron.php\n",
			opts: importer.CrontabOptions{IsUser: func(n string) bool { return n == "www-data" }},
			err:  "f:1: the command starts with www-data, the name of an account on this host, as in the system format"},
		{name: "a program that is no account is a user crontab", src: "17 * * * * backup-all --quick\n",
			opts: importer.CrontabOptions{IsUser: func(n string) bool { return n == "www-data" }},
			want: []string{"command            => 'backup-all --quick'"}},
		{name: "SHELL other than sh", src: "SHELL=/bin/bash\n0 3 * * * echo $BASH\n",
			want: []string{"command            => ['/bin/bash', '-c', 'echo $BASH']"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := importer.Crontab("f", []byte(tt.src), tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, res)
			checkOutput(t, res, tt.want, tt.notWant, tt.warning)
		})
	}
}

// TestCrontabStdinIsData runs the imported command of entries whose
// standard input (after %) tries to become shell code, with /bin/sh as
// cron would, and checks the data arrives as data and nothing runs.
func TestCrontabStdinIsData(t *testing.T) {
	tests := []struct {
		line  string
		stdin string
	}{
		{"* * * * * cat %ALMANAC_STDIN%touch pwned%", "ALMANAC_STDIN\ntouch pwned\n"},
		{"* * * * * cat %ALMANAC_STDIN%ALMANAC_STDIN_2%touch pwned", "ALMANAC_STDIN\nALMANAC_STDIN_2\ntouch pwned\n"},
		{"* * * * * cat %ALMANAC_STDIN_d0c4ee0ad1b3bbd5%ALMANAC_STDIN%touch pwned", "ALMANAC_STDIN_d0c4ee0ad1b3bbd5\nALMANAC_STDIN\ntouch pwned\n"},
		{"* * * * * cat # a comment%touch pwned", "touch pwned\n"},
		{"* * * * * cat; cat%one%touch pwned", "one\ntouch pwned\n"},
		{"* * * * * cat%'; touch pwned; '", "'; touch pwned; '\n"},
		{`* * * * * printf '\%s' x; cat%$(touch pwned)`, "x$(touch pwned)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			res, err := importer.Crontab("f", []byte(tt.line+"\n"), importer.CrontabOptions{System: importer.SystemNo})
			if err != nil {
				t.Fatal(err)
			}
			script := importedCommand(t, res.Manifest)
			dir := t.TempDir()
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s\nscript:\n%s", err, out, script)
			}
			if string(out) != tt.stdin {
				t.Errorf("standard input %q, want %q\nscript:\n%s", out, tt.stdin, script)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Errorf("the data ran as a command:\n%s", script)
			}
		})
	}
}

// commandAttrRE finds a string command attribute.
var commandAttrRE = regexp.MustCompile(`\n  command +=> '`)

// importedCommand returns the command string of the only job in m,
// unquoted from the manifest's single-quoted syntax.
func importedCommand(t *testing.T, m string) string {
	t.Helper()
	loc := commandAttrRE.FindStringIndex(m)
	if loc == nil {
		t.Fatalf("no string command in\n%s", m)
	}
	rest := m[loc[1]:]
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '\\' && i+1 < len(rest) && (rest[i+1] == '\'' || rest[i+1] == '\\'):
			b.WriteByte(rest[i+1])
			i++
		case rest[i] == '\'':
			return b.String()
		default:
			b.WriteByte(rest[i])
		}
	}
	t.Fatalf("unterminated command in\n%s", m)
	return ""
}

// TestCrontabBounded imports crontabs built so that every job would copy a
// large environment (620 KB of env lines and entries, in two orders) and
// checks the import fails with a message instead of growing, allocating
// little; a large ordinary crontab (20,000 entries) still imports, within
// the output bound.
func TestCrontabBounded(t *testing.T) {
	var envFirst, alternating, ordinary strings.Builder
	for i := range 10000 {
		line := "V" + strconv.Itoa(i) + "=" + strings.Repeat("x", 40) + "\n"
		envFirst.WriteString(line)
		alternating.WriteString(line)
		alternating.WriteString("* * * * * /bin/true\n")
	}
	for range 10000 {
		envFirst.WriteString("* * * * * /bin/true\n")
	}
	ordinary.WriteString("PATH=/usr/bin:/bin\nMAILTO=ops@example.com\n")
	for i := range 20000 {
		ordinary.WriteString("*/5 * * * * /usr/local/bin/task --id " + strconv.Itoa(i) + "\n")
	}
	for _, tt := range []struct {
		name string
		src  string
		ok   bool
	}{{"env first", envFirst.String(), false}, {"alternating", alternating.String(), false}, {"ordinary", ordinary.String(), true}} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.src) < 600<<10 {
				t.Fatalf("only %d bytes", len(tt.src))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := importer.Crontab("big", []byte(tt.src), importer.CrontabOptions{System: importer.SystemNo})
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes in, %d KiB allocated", len(tt.src), alloc>>10)
			if !tt.ok {
				// Refused early: a few times the input, not the
				// gigabytes copying the environment would take.
				if alloc > allocBound(64<<20) {
					t.Errorf("allocated %d MiB", alloc>>20)
				}
				if err == nil || !strings.Contains(err.Error(), "would exceed") {
					t.Fatalf("error %v, want the output bound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Jobs != 20000 || len(res.Manifest) > importer.DefaultMaxOutput {
				t.Fatalf("%d jobs, %d bytes", res.Jobs, len(res.Manifest))
			}
		})
	}
}

// TestCrontabNames checks that jobs are named after the program that does
// the work and its script, past conditions and wrappers with their
// options: the cron.d files of Debian's php-common, certbot, sysstat and
// e2fsprogs, and a crontab of wrapped commands.
func TestCrontabNames(t *testing.T) {
	tests := []struct {
		file string
		opts importer.CrontabOptions
		want []string
	}{
		{"cron.d/php", importer.CrontabOptions{System: importer.SystemYes}, []string{"sessionclean"}},
		{"cron.d/certbot", importer.CrontabOptions{System: importer.SystemYes}, []string{"certbot"}},
		{"cron.d/sysstat", importer.CrontabOptions{System: importer.SystemYes}, []string{"debian-sa1", "debian-sa1-2"}},
		{"cron.d/e2scrub_all", importer.CrontabOptions{System: importer.SystemYes}, []string{"e2scrub_all_cron", "e2scrub_all"}},
		{"wrappers.crontab", importer.CrontabOptions{User: "web"}, []string{
			"php-x.php", "sync-data", "php-artisan", "backup.sh", "rsync", "report", "mysqlcheck", "reindex",
			"check-disks", "rotate", "vacuumdb", "first-week", "php-cron.php"}},
	}
	jobRE := regexp.MustCompile(`(?m)^job \{ '([^']+)':`)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("../../testdata/import-cron", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := importer.Crontab(tt.file, src, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkParses(t, res)
			var got []string
			for _, m := range jobRE.FindAllStringSubmatch(res.Manifest, -1) {
				got = append(got, m[1])
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("names\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}
