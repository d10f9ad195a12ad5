package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// adversarialSize is the size of each hostile manifest: 10 MB, well under
// the 16 MiB file limit.
const adversarialSize = 10 << 20

// adversarialShape is a hostile manifest and what must be said about it.
type adversarialShape struct {
	name string
	gen  func(n int) string
	want string // in the output of validate, after "FILE:"
	// parse marks shapes refused by the parser, before compilation.
	parse bool
}

func repeatTo(prefix, unit, suffix string, n int) string {
	return prefix + strings.Repeat(unit, (n-len(prefix)-len(suffix))/len(unit)) + suffix
}

func nested(prefix, open, inner, close string, n int) string {
	k := (n - len(prefix) - len(inner)) / (len(open) + len(close))
	return prefix + strings.Repeat(open, k) + inner + strings.Repeat(close, k) + "\n"
}

var adversarialShapes = []adversarialShape{
	{"long + chain", func(n int) string { return repeatTo("$a = 1", "+1", "\n", n) },
		"1:20007: expression too long: more than 10000 operators in a row", true},
	{"long string + chain", func(n int) string { return repeatTo(`$a = "x"`, ` + "x"`, "\n", n) },
		"1:60010: expression too long: more than 10000 operators in a row", true},
	{"long access chain", func(n int) string { return repeatTo("$a = [1]\n$b = $a", "[0]", "\n", n) },
		"2:30008: expression too long: more than 10000 operators in a row", true},
	{"long method chain", func(n int) string { return repeatTo("$a = [1]", ".map |$x| { $x }", "\n", n) },
		"1:160009: expression too long: more than 10000 operators in a row", true},
	{"nested arrays", func(n int) string { return nested("$a = ", "[", "", "]", n) },
		"1:406: expression nested too deeply (more than 400 levels)", true},
	{"nested hashes", func(n int) string { return nested("$a = ", "{a=>", "1", "}", n) },
		"1:1606: expression nested too deeply (more than 400 levels)", true},
	{"nested parentheses", func(n int) string { return nested("$a = ", "(", "1", ")", n) },
		"1:406: expression nested too deeply (more than 400 levels)", true},
	{"nested ifs", func(n int) string { return nested("", "if true {\n", "", "}", n) },
		"401:9: expression nested too deeply (more than 400 levels)", true},
	{"nested interpolation", func(n int) string { return nested("$a = ", `"${`, "1", `}"`, n) },
		"1:1206: string interpolation nested too deeply (more than 400 levels)", true},
	{"nested negation", func(n int) string { return repeatTo("$a = ", "!", "true\n", n) },
		"expression nested too deeply", true},
	{"classes including classes", func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n-40; i++ {
			fmt.Fprintf(&b, "class c%d { include c%d }\n", i, i+1)
		}
		return b.String() + "class c_last { }\ninclude c0\n"
	}, "expression nested too deeply (more than 10000 levels)", false},
	{"long arrow chain", func(n int) string {
		// Empty operands are bridged: one edge from a to b.
		return repeatTo("notify { ['a', 'b']: }\nNotify['a']", " -> []", " -> Notify['b']\n", n)
	}, "", false},
	{"wide array", func(n int) string {
		return repeatTo("$a = [", "1, ", "]\nnotify { 'wide': message => $a }\n", n)
	}, "", false},
}

// TestValidateSurvivesAdversarialManifests runs `almanac validate` on a
// 10 MB manifest of every hostile shape: deep nesting, long operator and
// arrow chains, wide arrays. Each must end in an ordinary report (a
// positioned error, or a result), never a crash.
func TestValidateSurvivesAdversarialManifests(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	for _, s := range adversarialShapes {
		t.Run(s.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(s.name, " ", "_")+".pp")
			if err := os.WriteFile(p, []byte(s.gen(adversarialSize)), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "validate", p).CombinedOutput()
			text := string(out)
			if strings.Contains(text, "goroutine ") || strings.Contains(text, "fatal error") {
				t.Fatalf("validate crashed:\n%.2000s", text)
			}
			var ee *exec.ExitError
			switch {
			case s.want == "":
				if err != nil {
					t.Errorf("validate: %v\n%.2000s", err, text)
				}
			case !errors.As(err, &ee) || ee.ExitCode() != 1:
				t.Errorf("validate: %v, want exit 1\n%.2000s", err, text)
			case !strings.Contains(text, p+":") || !strings.Contains(text, s.want):
				t.Errorf("validate does not say %q at a position in %s:\n%.2000s", s.want, p, text)
			}
			if n := strings.Count(text, "\n"); n > 110 {
				t.Errorf("validate printed %d lines", n)
			}
		})
	}
}

// TestServeSurvivesAdversarialManifests drops the hostile manifests into
// the directory of a running `serve --manifests`: the daemon logs each
// error with its position, keeps the manifests it had, and keeps serving.
// The shapes the parser refuses go in together (one reload reports them
// all); the others one at a time.
func TestServeSurvivesAdversarialManifests(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	replaceManifest(t, filepath.Join(dir, "site.pp"), "job { 'tick': cron => '@hourly', command => 'echo tick' }\n")
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	c := d.client(t)
	alive := func(t *testing.T) {
		t.Helper()
		select {
		case <-d.done:
			t.Fatalf("the daemon died: %v\n%.4000s", d.cmd.ProcessState, d.logs.String())
		default:
		}
		jobs, err := c.JobListAll(context.Background())
		if err != nil || len(jobs) != 1 || jobs[0].Name != "tick" {
			t.Fatalf("jobs after a hostile manifest: %+v, %v", jobs, err)
		}
	}
	file := func(s adversarialShape) string {
		return filepath.Join(dir, "z_"+strings.ReplaceAll(s.name, " ", "_")+".pp")
	}
	var parse []adversarialShape
	for _, s := range adversarialShapes {
		if s.parse {
			parse = append(parse, s)
			replaceManifest(t, file(s), s.gen(adversarialSize))
		}
	}
	eventually(t, "the daemon reports every parse error", 10*time.Minute, func() (bool, error) {
		logs := d.logs.String()
		for _, s := range parse {
			if !strings.Contains(logs, file(s)+":"+s.want) && !strings.Contains(logs, s.want) {
				return false, nil
			}
		}
		return strings.Contains(logs, "manifests not reloaded"), nil
	})
	alive(t)
	for _, s := range parse {
		os.Remove(file(s))
	}
	for _, s := range adversarialShapes {
		if s.parse || s.want == "" {
			continue
		}
		replaceManifest(t, file(s), s.gen(adversarialSize))
		eventually(t, "the daemon reports "+s.name, 10*time.Minute, func() (bool, error) {
			return strings.Contains(d.logs.String(), s.want), nil
		})
		alive(t)
		os.Remove(file(s))
	}
}

// TestWindowsRefusesDeepTOML: a window fragment of 4 M nested arrays is
// refused at its position by `almanac windows` and by `serve --windows`,
// before the TOML decoder could recurse that deep.
func TestWindowsRefusesDeepTOML(t *testing.T) {
	bin := almanacBinary(t)
	p := filepath.Join(t.TempDir(), "deep.toml")
	const n = 4 << 20
	if err := os.WriteFile(p, []byte("x = "+strings.Repeat("[", n)+strings.Repeat("]", n)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := p + ":1:68: arrays or inline tables nested more than 64 levels deep"
	for _, args := range [][]string{
		{"windows", p},
		{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--windows", p},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 || !strings.Contains(string(out), want) ||
			strings.Contains(string(out), "goroutine ") {
			t.Errorf("almanac %s: %v\n%.2000s", args[0], err, out)
		}
	}
}
