package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The apply scripts: apply.txtar (exit statuses, flags, bad input) and
// apply_NAME.txtar, which replay the cases of $REPO/testdata/apply (their
// manifests stay there, where the parser's and the catalog's tests read
// them too). Their commands:
//
//	applycase NAME       copy $REPO/testdata/apply/NAME/* into $WORK,
//	                     with DIR in them replaced by $WORK
//	dirsubst FILE...     replace DIR in each FILE (of the script's own
//	                     archive) by the absolute directory that holds it
//	cmpapply FILE WANT   compare FILE (or stdout, stderr) with WANT once
//	                     $WORK is written DIR, the time in "Applied
//	                     catalog in N seconds" N.NN, and a missing final
//	                     newline added
//	dotcheck FILE        require a well-formed --graph file, which
//	                     Graphviz's dot renders (when dot is installed;
//	                     scripts/test.d/graphviz.sh installs it)

// applyCmds are the commands of the apply scripts.
var applyCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"applycase": applyCase,
	"dirsubst":  dirSubst,
	"cmpapply":  cmpApply,
	"dotcheck":  dotCheck,
}

// applyCase implements applycase.
func applyCase(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: applycase NAME")
	}
	src := filepath.Join(ts.Getenv("REPO"), "testdata", "apply", args[0])
	entries, err := os.ReadDir(src)
	if err != nil {
		ts.Fatalf("applycase: %v", err)
	}
	work := ts.Getenv("WORK")
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(work, e.Name()), []byte(strings.ReplaceAll(string(b), "DIR", work)), 0o644))
	}
}

// dirSubst implements dirsubst.
func dirSubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: dirsubst FILE...")
	}
	for _, f := range args {
		path := ts.MkAbs(f)
		ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(ts.ReadFile(f), "DIR", filepath.Dir(path))), 0o644))
	}
}

var appliedIn = regexp.MustCompile(`Applied catalog in \d+\.\d+ seconds`)

// cmpApply implements cmpapply.
func cmpApply(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpapply FILE WANT")
	}
	got := appliedIn.ReplaceAllString(strings.ReplaceAll(ts.ReadFile(args[0]), ts.Getenv("WORK"), "DIR"), "Applied catalog in N.NN seconds")
	if !strings.HasSuffix(got, "\n") {
		got += "\n"
	}
	if want := ts.ReadFile(args[1]); got != want {
		ts.Fatalf("%s differs from %s:\n%s", args[0], args[1], lineDiff(want, got))
	}
}

// dotCheck implements dotcheck.
func dotCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dotcheck FILE")
	}
	path := ts.MkAbs(args[0])
	src := ts.ReadFile(args[0])
	if err := dotStructure(src); err != nil {
		ts.Fatalf("%s: %v\n%s", args[0], err, src)
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("ALMANAC_TEST_STRICT") != "" {
			ts.Fatalf("Graphviz's dot is needed to render %s: apt-get install graphviz (scripts/test.d/graphviz.sh)", args[0])
		}
		ts.Logf("not rendering %s: no Graphviz dot (apt-get install graphviz, or run scripts/test)", args[0])
		return
	}
	if out, err := exec.Command(dot, "-Tsvg", "-o", os.DevNull, path).CombinedOutput(); err != nil {
		ts.Fatalf("dot rejects %s: %v\n%s\n%s", args[0], err, out, src)
	}
}

// lineDiff shows the first differing lines of want and got with a little
// context.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	var b strings.Builder
	for j := max(0, i-2); j < i; j++ {
		fmt.Fprintf(&b, "  %s\n", wl[j])
	}
	for j := i; j < min(len(wl), i+6); j++ {
		fmt.Fprintf(&b, "- %s\n", wl[j])
	}
	for j := i; j < min(len(gl), i+6); j++ {
		fmt.Fprintf(&b, "+ %s\n", gl[j])
	}
	return b.String()
}

// dotStructure parses the DOT subset almanac writes: digraph ID { stmts },
// each statement a graph attribute (ID = ID), a node with an optional
// attribute list, or a chain of edges with an optional attribute list.
func dotStructure(src string) error {
	toks, err := dotTokens(src)
	if err != nil {
		return err
	}
	i := 0
	peek := func() string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	isID := func(s string) bool { return s != "" && !strings.ContainsAny(s[:1], "{}[]=,;-") }
	expect := func(want string) error {
		if peek() != want && !(want == "ID" && isID(peek())) {
			return fmt.Errorf("token %d: want %s, got %q", i, want, peek())
		}
		i++
		return nil
	}
	for _, w := range []string{"digraph", "ID", "{"} {
		if err := expect(w); err != nil {
			return err
		}
	}
	attrs := func() error {
		if peek() != "[" {
			return nil
		}
		i++
		for peek() != "]" {
			for _, w := range []string{"ID", "=", "ID"} {
				if err := expect(w); err != nil {
					return err
				}
			}
			if peek() == "," || peek() == ";" {
				i++
			}
		}
		i++
		return nil
	}
	for peek() != "}" {
		if err := expect("ID"); err != nil {
			return err
		}
		switch peek() {
		case "=":
			i++
			if err := expect("ID"); err != nil {
				return err
			}
		default:
			for peek() == "->" {
				i++
				if err := expect("ID"); err != nil {
					return err
				}
			}
			if err := attrs(); err != nil {
				return err
			}
		}
		if peek() == ";" {
			i++
		}
	}
	i++
	if i != len(toks) {
		return fmt.Errorf("text after the closing brace")
	}
	return nil
}

// dotTokens splits DOT source into identifiers, quoted strings (kept
// quoted), -> and punctuation.
func dotTokens(src string) ([]string, error) {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case strings.IndexByte("{}[]=,;", c) >= 0:
			toks = append(toks, string(c))
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '>':
			toks = append(toks, "->")
			i += 2
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string at byte %d", i)
			}
			toks = append(toks, src[i:j+1])
			i = j + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q at byte %d", c, i)
		}
	}
	return toks, nil
}

func TestDOTStructure(t *testing.T) {
	good := "digraph Resources {\n    label = \"Resources\"\n    \"Exec[a]\" [\n        fontsize = 8,\n        label = \"Exec[a]\"\n    ]\n\n    \"Exec[a]\" -> \"Exec[\\\"b\\\"]\" [\n        fontsize = 8\n    ]\n\n}\n"
	if err := dotStructure(good); err != nil {
		t.Fatalf("%v in\n%s", err, good)
	}
	for _, bad := range []string{
		"graph X {\n}\n",
		"digraph X {\n  \"a\" -> \n}\n",
		"digraph X {\n  \"a [\n}\n",
		"digraph X {\n  \"a\" [ fontsize ]\n}\n",
		"digraph X {\n  \"a\"\n",
	} {
		if err := dotStructure(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
