package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites the golden files under testdata/ from the current
// behaviour instead of comparing against them:
//
//	go test ./internal/cli -run 'Golden' -update
//
// Review every rewritten file (git diff) before committing it.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// goldenRoot is the repository's testdata directory, seen from this package.
const goldenRoot = "../../testdata"

// checkGolden compares got with the golden file path, or rewrites the file
// with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update, then review the diff):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines of want and got with a little
// context: enough to see what changed without an external diff tool.
func lineDiff(want, got string) string {
	wl, gl := splitLines(want), splitLines(got)
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	out := ""
	from := max(0, i-2)
	for j := from; j < i; j++ {
		out += "  " + wl[j] + "\n"
	}
	for j := i; j < min(len(wl), i+6); j++ {
		out += "- " + wl[j] + "\n"
	}
	for j := i; j < min(len(gl), i+6); j++ {
		out += "+ " + gl[j] + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
