package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// TestMatchesPuppet runs every case under testdata/puppet/ through a real
// `puppet apply` (Puppet 7, which scripts/test.d/puppet.sh installs) and
// through `almanac apply`, both with --detailed-exitcodes, and asserts
// they agree: the same exit code, the same execs run in the same order
// (each appends its name to DIR/order), the same resource log lines in the
// same order (Puppet's containment paths shortened to refs), and, where
// the case has an error file, that both print that message.
//
// In a case's site.pp, DIR stands for a fresh directory per run and
// OFFHOURS for a schedule range that excludes the current local hour.
// Puppet takes seconds to start, so the cases run in parallel, each with
// its own scratch vardir, confdir and codedir.
func TestMatchesPuppet(t *testing.T) {
	puppet := testenv.LookPath(t, "Puppet", "apt-get install puppet (scripts/test.d/puppet.sh)", "puppet")
	root := filepath.Join("..", "..", "testdata", "puppet")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	off := offHours(time.Now())
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			caseDir := filepath.Join(root, e.Name())
			src, err := os.ReadFile(filepath.Join(caseDir, "site.pp"))
			if err != nil {
				t.Fatal(err)
			}
			var wantErr string
			if b, err := os.ReadFile(filepath.Join(caseDir, "error")); err == nil {
				wantErr = strings.TrimSpace(string(b))
			}
			p := runPuppetCase(t, puppet, string(src), off)
			a := runAlmanacCase(t, string(src), off)
			if p.code != a.code {
				t.Errorf("exit code: puppet %d, almanac %d", p.code, a.code)
			}
			if p.order != a.order {
				t.Errorf("execs run:\npuppet:\n%s\nalmanac:\n%s", p.order, a.order)
			}
			for _, s := range []struct{ name, p, a string }{{"stdout", p.stdout, a.stdout}, {"stderr", p.stderr, a.stderr}} {
				if pl, al := resourceLines(s.p), resourceLines(s.a); !reflect.DeepEqual(pl, al) {
					t.Errorf("%s resource lines differ:\npuppet:\n  %s\nalmanac:\n  %s", s.name, strings.Join(pl, "\n  "), strings.Join(al, "\n  "))
				}
			}
			if wantErr != "" {
				for _, r := range []struct{ name, out string }{{"puppet", p.stderr}, {"almanac", a.stderr}} {
					if !strings.Contains(r.out, wantErr) {
						t.Errorf("%s does not say %q:\n%s", r.name, wantErr, r.out)
					}
				}
			}
			if t.Failed() {
				t.Logf("puppet stdout:\n%s\npuppet stderr:\n%s\nalmanac stdout:\n%s\nalmanac stderr:\n%s", p.stdout, p.stderr, a.stdout, a.stderr)
			}
		})
	}
}

// offHours is a schedule range two to three hours away from now's hour.
func offHours(now time.Time) string {
	h := now.Local().Hour()
	return fmt.Sprintf("%d:00 - %d:00", (h+2)%24, (h+3)%24)
}

type caseRun struct {
	code                  int
	stdout, stderr, order string
}

// writeCase writes site.pp into a fresh directory with DIR and OFFHOURS
// replaced, and returns the directory.
func writeCase(t *testing.T, src, off string) string {
	t.Helper()
	dir := t.TempDir()
	src = strings.ReplaceAll(strings.ReplaceAll(src, "DIR", dir), "OFFHOURS", off)
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func finishCase(dir string, r caseRun) caseRun {
	order, _ := os.ReadFile(filepath.Join(dir, "order"))
	r.order = string(order)
	r.stdout = strings.ReplaceAll(r.stdout, dir, "DIR")
	r.stderr = strings.ReplaceAll(r.stderr, dir, "DIR")
	return r
}

func runPuppetCase(t *testing.T, puppet, src, off string) caseRun {
	t.Helper()
	dir := writeCase(t, src, off)
	scratch := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"apply", "--detailed-exitcodes", "--color=false"}
	for _, d := range []string{"vardir", "confdir", "codedir", "logdir", "rundir"} {
		args = append(args, "--"+d, filepath.Join(scratch, d))
	}
	cmd := exec.CommandContext(ctx, puppet, append(args, filepath.Join(dir, "site.pp"))...)
	cmd.Env = append(os.Environ(), "HOME="+scratch)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := caseRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("puppet apply: %v\n%s", err, errb.String())
	}
	return finishCase(dir, r)
}

func runAlmanacCase(t *testing.T, src, off string) caseRun {
	t.Helper()
	dir := writeCase(t, src, off)
	out, errOut, code := runCLI(t, "apply", "--detailed-exitcodes", filepath.Join(dir, "site.pp"))
	return finishCase(dir, caseRun{code: code, stdout: out, stderr: errOut})
}

// puppetPath matches the containment path Puppet puts before a resource
// ("/Stage[main]/Main/Exec[a]/returns: "), which almanac leaves out.
var puppetPath = regexp.MustCompile(`^(\w+): /Stage\[[^\]]*\](?:/[^\s\[\]]+(?:\[[^\]]*\])?)*?/([A-Z][\w:]*\[[^\]]*\](?:/\w+)?): `)

// resourceLine is a log line about a resource or container, after
// normalization: "Level: Type[title][/property]: message".
var resourceLine = regexp.MustCompile(`^\w+: [A-Z][\w:]*\[[^\]]*\](?:/\w+)?: `)

// resourceLines returns the lines of out that report on a resource, with
// Puppet's containment paths shortened to refs; run-level lines (compiled,
// applied, summary, Facter's complaints) are left out.
func resourceLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = puppetPath.ReplaceAllString(l, "$1: $2: ")
		if resourceLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}
