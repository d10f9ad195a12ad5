package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// docCommand is one `almanac ...` command line found in a code block.
type docCommand struct {
	where string // file:line
	line  string // the command, continuation lines joined, "go run ./cmd/almanac" as "almanac"
	// output is what the doc shows after a "$ " command (nil if nothing).
	output []string
	// fixtures are earlier code blocks of the same doc, by language, newest
	// last: a file the command names that is not in the repository is
	// taken from the latest block of the matching language.
	fixtures map[string]string
}

// oneShot matches the commands this test runs: the ones that need no daemon
// and change nothing.
var oneShot = regexp.MustCompile(`^almanac (next|windows|tags|validate|apply) `)

// extractCommands reads the fenced code blocks of a Markdown file.
func extractCommands(t *testing.T, path, rel string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		out      []docCommand
		inBlock  bool
		lang     string
		block    []string
		fixtures = map[string]string{}
		cur      *docCommand // the "$ " command whose output is being read
		pending  string      // a command continued with a backslash
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if strings.HasPrefix(trimmed, "```") {
			if inBlock {
				fixtures[lang] = strings.Join(block, "\n") + "\n"
				inBlock, cur, pending = false, nil, ""
			} else {
				inBlock, lang, block = true, strings.TrimPrefix(trimmed, "```"), nil
			}
			continue
		}
		if !inBlock {
			continue
		}
		block = append(block, text)
		if pending != "" {
			pending += " " + strings.TrimSuffix(trimmed, `\`)
			if !strings.HasSuffix(trimmed, `\`) {
				out[len(out)-1].line = pending
				pending = ""
			}
			continue
		}
		prompt := strings.HasPrefix(trimmed, "$ ")
		cmd := strings.TrimPrefix(trimmed, "$ ")
		cmd = strings.Replace(cmd, "go run ./cmd/almanac ", "almanac ", 1)
		if !strings.HasPrefix(cmd, "almanac ") {
			if cur != nil && !prompt {
				cur.output = append(cur.output, text)
			} else {
				cur = nil
			}
			continue
		}
		fx := make(map[string]string, len(fixtures))
		for k, v := range fixtures {
			fx[k] = v
		}
		out = append(out, docCommand{where: rel + ":" + strconv.Itoa(n), line: strings.TrimSuffix(cmd, `\`), fixtures: fx})
		cur = nil
		if prompt {
			cur = &out[len(out)-1]
		}
		if strings.HasSuffix(cmd, `\`) {
			pending = strings.TrimSpace(strings.TrimSuffix(cmd, `\`))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocExamples runs the one-shot `almanac` commands shown in README.md
// and docs/*.md code blocks: next, windows, tags, validate and apply
// --noop. Where the doc shows the command's output ("$ almanac ..."
// followed by lines), the output must match; a shown "almanac: ..." line
// means the doc shows a failure, and the command must exit non-zero with
// that stderr. Otherwise it must exit 0. Synopsis lines ([--flag], FILE...)
// and commands on absolute paths of a real machine are not run.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	// The commands run in a directory where "almanac" is the built binary
	// and examples/ is the repository's.
	bin := filepath.Dir(servetest.Binary(t))
	ran := 0
	for _, doc := range docs {
		rel, _ := filepath.Rel(root, doc)
		for _, c := range extractCommands(t, doc, rel) {
			if !oneShot.MatchString(c.line + " ") {
				continue
			}
			if strings.Contains(c.line, "[-") || strings.Contains(c.line, "...") {
				continue // a synopsis, not a command
			}
			if strings.HasPrefix(c.line, "almanac apply ") && !regexp.MustCompile(`(^| )--noop( |$)`).MatchString(c.line) {
				continue // would change this machine
			}
			if regexp.MustCompile(` /`).MatchString(stripComment(c.line)) {
				t.Logf("%s: not run (names a path on a real machine): %s", c.where, c.line)
				continue
			}
			ran++
			t.Run(c.where, func(t *testing.T) {
				t.Parallel()
				runDocCommand(t, root, bin, c)
			})
		}
	}
	if ran < 10 {
		t.Errorf("ran only %d doc commands; is the extraction broken?", ran)
	}
}

// stripComment drops a trailing shell comment.
func stripComment(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		return line[:i]
	}
	return line
}

func runDocCommand(t *testing.T, root, bin string, c docCommand) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	// Files the command names that the repository does not have come from
	// the doc's latest code block in the matching language.
	for _, arg := range strings.Fields(stripComment(c.line)) {
		lang := map[string]string{".pp": "puppet", ".toml": "toml"}[filepath.Ext(arg)]
		if lang == "" || strings.ContainsAny(arg, "*?/") {
			continue
		}
		src, ok := c.fixtures[lang]
		if !ok {
			t.Fatalf("%s names %s, which is neither in the repository nor shown in an earlier ```%s block", c.where, arg, lang)
		}
		if err := os.WriteFile(filepath.Join(dir, arg), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TZ=UTC")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	noCrash(t, []string{c.line}, r)

	shown := strings.TrimRight(strings.Join(c.output, "\n"), "\n")
	failure := regexp.MustCompile(`(?m)^almanac: `).MatchString(shown)
	switch {
	case failure && r.code == 0:
		t.Fatalf("%s: the doc shows a failure, the command succeeded: %s\n%s", c.where, c.line, r)
	case !failure && r.code != 0:
		t.Fatalf("%s: the doc shows success, the command failed: %s\n%s", c.where, c.line, r)
	}
	if shown == "" {
		return
	}
	got := r.stdout
	if failure {
		got = r.stderr
	}
	if strings.TrimRight(got, "\n") != shown {
		t.Errorf("%s: %s\ndoc shows:\n%s\ncommand printed:\n%s", c.where, c.line, shown, got)
	}
}

// TestReadme checks the README's shape: it says what almanac is, then gives
// the two commands (the demo daemon and the test script) before anything
// else, and its documentation index links every file in docs/.
func TestReadme(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if !strings.HasPrefix(readme, "# almanac\n\nalmanac ") {
		t.Errorf("README.md does not start by saying what almanac is:\n%.200s", readme)
	}
	first := strings.Index(readme, "```")
	if first < 0 {
		t.Fatal("README.md has no code block")
	}
	end := strings.Index(readme[first+3:], "```")
	block := readme[first : first+3+end]
	for _, cmd := range []string{"go run ./cmd/almanac serve --demo", "./scripts/test"} {
		if !strings.Contains(block, cmd) {
			t.Errorf("README.md's first code block lacks %q:\n%s", cmd, block)
		}
	}
	at := strings.Index(readme, "## Documentation")
	if at < 0 {
		t.Fatal("README.md has no '## Documentation' index")
	}
	index := readme[at:]
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	for _, d := range docs {
		link := "(docs/" + filepath.Base(d) + ")"
		if !strings.Contains(index, link) {
			t.Errorf("README.md's documentation index does not link %s", link)
		}
	}
}
