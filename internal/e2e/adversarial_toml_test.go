package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tomlShapes are hostile TOML documents of about n bytes: each nests far
// past what any almanac file needs, in a way the TOML decoder pays for with
// memory quadratic in the depth (keys) or with its stack (brackets).
var tomlShapes = []struct {
	name string
	gen  func(n int) string
	want string // line:col: message
}{
	{"dotted key", func(n int) string { return repeatTo("", "b.", "c = 1\n", n) },
		"1:1: dotted key nested more than 64 levels deep"},
	{"dotted key with spaces after a table", func(n int) string { return repeatTo("[updates]\n", "b . ", "c = 1\n", n) },
		"2:1: dotted key nested more than 64 levels deep"},
	{"table header", func(n int) string { return repeatTo("# x\n[", "a.", "a]\n", n) },
		"2:1: table header nested more than 64 levels deep"},
	{"array-of-tables header", func(n int) string { return repeatTo("[[", "a.", "a]]\n", n) },
		"1:1: table header nested more than 64 levels deep"},
	{"quoted dotted key", func(n int) string { return repeatTo("", `"b".`, "c = 1\n", n) },
		"1:1: dotted key nested more than 64 levels deep"},
	{"inline tables", func(n int) string { return nested("x = ", "{a = ", "1", "}", n) },
		"1:321: dotted key nested more than 64 levels deep"},
	{"arrays", func(n int) string { return nested("x = ", "[", "", "]", n) },
		"1:68: arrays or inline tables nested more than 64 levels deep"},
}

// maxTOMLPeak bounds the peak resident memory of a command refusing a
// hostile TOML file. Before the depth bound, 20 KB of dotted keys took
// `almanac windows` 1.68 GB; the refusal now costs what the process costs.
const maxTOMLPeak = 96 << 20

// TestTOMLInputsRefuseDeepNesting gives every one-shot TOML input (--config,
// --windows of validate and serve, the windows command's fragments) each
// hostile shape at just under the 1 MiB configuration limit: each is
// refused quickly, at its line and column, in bounded memory.
func TestTOMLInputsRefuseDeepNesting(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pp")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range tomlShapes {
		p := filepath.Join(dir, strings.ReplaceAll(s.name, " ", "-")+".toml")
		if err := os.WriteFile(p, []byte(s.gen(1<<20-64)), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"windows", p},
			{"validate", "--windows", "w=" + p, empty},
			{"serve", "--data", t.TempDir(), "--windows", "w=" + p},
			{"serve", "--config", p},
			{"serve", "--config", p, "--print-config"},
		} {
			t.Run(s.name+"/"+args[0]+" "+args[len(args)-2], func(t *testing.T) {
				start := time.Now()
				out, peak, err := peakRSS(bin, args...)
				elapsed := time.Since(start)
				text := string(out)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 {
					t.Fatalf("%s: %v, want exit 2\n%.2000s", strings.Join(args, " "), err, text)
				}
				if !strings.Contains(text, p+":"+s.want) || strings.Count(text, "\n") != 1 {
					t.Errorf("output %.2000q, want one line with %s:%s", text, p, s.want)
				}
				if peak > maxTOMLPeak {
					t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, maxTOMLPeak>>20)
				}
				t.Logf("%s in %v, peak RSS %d MB", s.want, elapsed.Round(time.Millisecond), peak>>20)
			})
		}
	}
}

// TestReloadRefusesDeepConfig replaces a running daemon's --config with
// each hostile shape and sends SIGHUP: the reload is refused with the
// position in the log, the settings stay, and the daemon's peak memory
// stays bounded (one such reload once took a daemon from 41 MB to 1.3 GB).
func TestReloadRefusesDeepConfig(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "almanac.toml")
	if err := os.WriteFile(conf, []byte("log_level = \"info\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, t.TempDir(), "--config", conf)
	for i, s := range tomlShapes {
		if err := os.WriteFile(conf, []byte(s.gen(1<<20-64)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		eventually(t, s.name+": the refused reload is logged", 60*time.Second, func() (bool, error) {
			return strings.Count(d.logs.String(), "reload: settings unchanged") > i &&
				strings.Contains(d.logs.String(), conf+":"+s.want), nil
		})
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(d.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in %s", status)
	}
	hwm, _ := strconv.ParseInt(string(m[1]), 10, 64)
	if hwm<<10 > 4*maxTOMLPeak {
		t.Errorf("the daemon's peak RSS is %d MB after the reloads", hwm>>10)
	}
	t.Logf("daemon peak RSS after %d refused reloads: %d MB", len(tomlShapes), hwm>>10)
	d.cli(t, bin, "get", "jobs") // still serving
}
