package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// generated returns the completion scripts and the manual page.
func generated(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sh := range completionShells {
		o, errOut, code := runCLI(t, "completion", sh)
		if code != 0 || o == "" {
			t.Fatalf("completion %s: %d %s", sh, code, errOut)
		}
		out[sh] = o
	}
	o, errOut, code := runCLI(t, "manpage", "--date", "2026-01-02")
	if code != 0 {
		t.Fatalf("manpage: %d %s", code, errOut)
	}
	out["man"] = o
	return out
}

// TestCompletionAndManualCoverEveryCommand checks that the completion
// scripts and the manual list every command, every flag of each and the
// fixed words, and no hidden command: they are made from the tables the
// commands run from, and this test fails if that breaks.
func TestCompletionAndManualCoverEveryCommand(t *testing.T) {
	t.Parallel()
	gen := generated(t)
	docs := commandDocs()
	if len(docs) < 20 {
		t.Fatalf("only %d commands documented", len(docs))
	}
	for _, d := range docs {
		if len(d.flags) == 0 && d.name != "completion" && d.name != "version" {
			t.Errorf("%s: no flags found; does it answer --help from its flag set?", d.name)
		}
		for kind, text := range gen {
			name := d.name
			if kind == "man" {
				name = roff("almanac " + d.name)
			}
			if !strings.Contains(text, name) {
				t.Errorf("%s lacks the command %s", kind, d.name)
			}
			for _, f := range d.flags {
				want := dashName(f.name)
				switch kind {
				case "man":
					want = roff(want)
				case "fish":
					want = map[bool]string{true: "-s ", false: "-l "}[len(f.name) == 1] + f.name
				}
				if !strings.Contains(text, want) {
					t.Errorf("%s lacks %s %s", kind, d.name, want)
				}
			}
			for _, w := range d.words {
				if !strings.Contains(text, w) {
					t.Errorf("%s lacks %s %s", kind, d.name, w)
				}
			}
		}
		for _, w := range d.words {
			if !strings.Contains(d.summary+" "+d.synopsis, w) {
				t.Errorf("%s: word %q is in neither its summary nor its synopsis", d.name, w)
			}
		}
	}
	// Each command's flags are those it parses: spot checks.
	byName := map[string]cmdDoc{}
	for _, d := range docs {
		byName[d.name] = d
	}
	has := func(cmd, flag string) bool {
		for _, f := range byName[cmd].flags {
			if f.name == flag {
				return true
			}
		}
		return false
	}
	for _, c := range [][2]string{{"get", "job"}, {"get", "o"}, {"get", "config"}, {"serve", "listen"}, {"serve", "print-config"},
		{"apply", "noop"}, {"apply", "reason"}, {"next", "tz"}, {"import", "container-runtime"}} {
		if !has(c[0], c[1]) {
			t.Errorf("%s has no flag %s", c[0], c[1])
		}
	}
	// Hidden commands run but are listed nowhere.
	if !commands["manpage"].hidden {
		t.Fatal("manpage is not hidden")
	}
	usage, _, _ := runCLI(t, "help")
	gen["help"] = usage
	for kind, text := range gen {
		if strings.Contains(text, `.SS "almanac manpage"`) || (kind != "man" && strings.Contains(text, "manpage")) {
			t.Errorf("%s lists the hidden command manpage", kind)
		}
	}
	if _, _, code := runCLI(t, "completion", "tcsh"); code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, exitUsage)
	}
}

// complete runs the bash completion for the words of a command line
// (the last being the word under the cursor) and returns the candidates.
func complete(t *testing.T, bash, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, shQuote(w))
	}
	prog := script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) +
		"\n_almanac\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// TestBashCompletion runs the generated bash completion.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash := testenv.LookPath(t, "bash", "install bash", "bash")
	script := generated(t)["bash"]
	for _, tt := range []struct {
		words []string
		want  string
	}{
		{[]string{"almanac", "ge"}, "get"},
		{[]string{"almanac", "get", ""}, "jobs runs resources events applies windows nodes"},
		{[]string{"almanac", "get", "--se"}, "--server"},
		{[]string{"almanac", "get", "--job", "x", "r"}, "runs resources"},
		{[]string{"almanac", "get", "jobs", "r"}, ""},
		{[]string{"almanac", "next", "--d"}, "--dialect"},
		{[]string{"almanac", "completion", "f"}, "fish"},
		{[]string{"almanac", "help", "ser"}, "serve"},
		{[]string{"almanac", "man"}, ""},
	} {
		got := complete(t, bash, script, tt.words...)
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %q, want %q", tt.words, got, tt.want)
		}
	}
}

// TestShellScriptsParse checks the zsh and fish scripts with the shells
// themselves, and the zsh one's command list through compsys.
func TestShellScriptsParse(t *testing.T) {
	t.Parallel()
	gen := generated(t)
	dir := t.TempDir()
	for _, sh := range []string{"zsh", "fish"} {
		bin := testenv.LookPath(t, sh, "install Debian's "+sh+" (scripts/test.d/packaging-tools.sh)", sh)
		bare, errOut, code := runCLI(t, "completion", "--no-descriptions", sh)
		if code != 0 || strings.Contains(bare, "list jobs, runs") || len(bare) >= len(gen[sh]) {
			t.Errorf("completion --no-descriptions %s: %d %s", sh, code, errOut)
		}
		for name, text := range map[string]string{sh: gen[sh], "bare." + sh: bare} {
			p := filepath.Join(dir, "almanac."+name)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "-n", p).CombinedOutput(); err != nil {
				t.Errorf("%s -n %s: %v\n%s", sh, name, err, out)
			}
		}
	}
	// fish answers completions itself: complete -C.
	fish := testenv.LookPath(t, "fish", "install Debian's fish (scripts/test.d/packaging-tools.sh)", "fish")
	cmd := exec.Command(fish, "--no-config", "-c", "source "+filepath.Join(dir, "almanac.fish")+"; complete -C 'almanac get --ser'; complete -C 'almanac import c'")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--server")) || !bytes.Contains(out, []byte("crontab")) || !bytes.Contains(out, []byte("cronjob")) {
		t.Errorf("fish complete -C: %v\n%s", err, out)
	}
}

// TestManualLints checks the manual with mandoc's linter and renders it
// with man, as a user would read it.
func TestManualLints(t *testing.T) {
	t.Parallel()
	page := generated(t)["man"]
	p := filepath.Join(t.TempDir(), "almanac.1")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	mandoc := testenv.LookPath(t, "mandoc", "install Debian's mandoc (scripts/test.d/packaging-tools.sh)", "mandoc")
	out, _ := exec.Command(mandoc, "-T", "lint", "-W", "warning", p).CombinedOutput()
	if len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("mandoc -T lint:\n%s", out)
	}
	rendered, err := exec.Command(mandoc, "-T", "utf8", p).Output()
	if err != nil || !bytes.Contains(rendered, []byte("almanac get")) || !bytes.Contains(rendered, []byte("--server")) {
		t.Errorf("mandoc render: %v\n%.2000s", err, rendered)
	}
}
