package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// TestApplyGolden replays every case under testdata/apply/. A case is a
// directory with manifests (*.pp, applied together in name order), a runs
// file with the arguments of one `almanac apply` per line (the manifests
// are appended), and want.txt, the transcript of those runs: each run's
// exit code, stdout and stderr, what its execs appended to DIR/order, and
// the state file and --graph files it left behind.
//
// In manifests and runs, DIR stands for a fresh temporary directory; other
// files in the case directory (a seed state.json, for instance) are copied
// into it. A runs line "! command" runs a shell command between runs (to
// flip a guard file, say). Execs record that they ran with
// `echo NAME >> DIR/order`. Times
// in "Applied catalog in N seconds" are replaced by N.NN.
func TestApplyGolden(t *testing.T) {
	root := filepath.Join(goldenRoot, "apply")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		cases++
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			runApplyGolden(t, filepath.Join(root, e.Name()))
		})
	}
	if cases < 8 {
		t.Fatalf("only %d golden cases in %s", cases, root)
	}
}

var appliedIn = regexp.MustCompile(`Applied catalog in \d+\.\d+ seconds`)

func runApplyGolden(t *testing.T, caseDir string) {
	dir := t.TempDir()
	subst := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
	files, err := os.ReadDir(caseDir)
	if err != nil {
		t.Fatal(err)
	}
	var manifests []string
	for _, f := range files {
		name := f.Name()
		if name == "runs" || name == "want.txt" || f.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(caseDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(subst(string(src))), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".pp") {
			manifests = append(manifests, filepath.Join(dir, name))
		}
	}
	sort.Strings(manifests)
	runs, err := os.ReadFile(filepath.Join(caseDir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string {
		return appliedIn.ReplaceAllString(strings.ReplaceAll(s, dir, "DIR"), "Applied catalog in N.NN seconds")
	}
	var tr bytes.Buffer
	orderSeen := 0
	sc := bufio.NewScanner(bytes.NewReader(runs))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "!"); ok {
			// A shell command that prepares the next run.
			out, err := exec.Command("/bin/sh", "-c", subst(cmd)).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			fmt.Fprintf(&tr, "$%s\n\n", cmd)
			continue
		}
		args := append([]string{"apply"}, strings.Fields(subst(line))...)
		out, errOut, code := runCLI(t, append(args, manifests...)...)
		fmt.Fprintf(&tr, "$ almanac apply %s\nexit %d\n", line, code)
		section(&tr, "stdout", norm(out))
		section(&tr, "stderr", norm(errOut))
		order, _ := os.ReadFile(filepath.Join(dir, "order"))
		section(&tr, "order (appended by this run)", norm(string(order[orderSeen:])))
		orderSeen = len(order)
		if st, err := os.ReadFile(filepath.Join(dir, "state.json")); err == nil {
			section(&tr, "state.json", string(st))
		}
		dots, _ := filepath.Glob(filepath.Join(dir, "graph", "*.dot"))
		for _, d := range dots {
			src, _ := os.ReadFile(d)
			checkDOT(t, d, src)
			section(&tr, "graph/"+filepath.Base(d), norm(string(src)))
		}
		os.RemoveAll(filepath.Join(dir, "graph"))
		tr.WriteString("\n")
	}
	checkGolden(t, filepath.Join(caseDir, "want.txt"), tr.String())
}

func section(b *bytes.Buffer, name, body string) {
	if body == "" {
		return
	}
	fmt.Fprintf(b, "-- %s --\n%s", name, body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
}

// checkDOT makes sure a --graph file is well formed: its structure always,
// and that Graphviz's dot renders it in a subtest that needs dot (which
// scripts/test.d/graphviz.sh installs).
func checkDOT(t *testing.T, path string, src []byte) {
	t.Helper()
	if err := dotStructure(string(src)); err != nil {
		t.Errorf("%s: %v\n%s", filepath.Base(path), err, src)
	}
	t.Run("dot renders "+filepath.Base(path), func(t *testing.T) {
		dot := testenv.LookPath(t, "Graphviz", "apt-get install graphviz (scripts/test.d/graphviz.sh)", "dot")
		cmd := exec.Command(dot, "-Tsvg", "-o", os.DevNull, path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("dot rejects %s: %v\n%s\n%s", filepath.Base(path), err, out, src)
		}
	})
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
