package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestValidateGolden runs `almanac validate --json` on every case under
// testdata/validate/: a NAME.pp file, or a NAME/ directory whose .pp files
// form one catalog (in name order). A case that compiles must match
// NAME.json, the catalog exactly as --json prints it; a case with errors
// must match NAME.errors, everything validate prints on stderr, and exit 1.
// Paths in the output are relative to testdata/validate/.
func TestValidateGolden(t *testing.T) {
	dir := filepath.Join(goldenRoot, "validate")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, e := range entries {
		name, files := e.Name(), []string(nil)
		switch {
		case e.IsDir():
			files, _ = filepath.Glob(filepath.Join(dir, name, "*.pp"))
			sort.Strings(files)
		case strings.HasSuffix(name, ".pp"):
			files = []string{filepath.Join(dir, name)}
			name = strings.TrimSuffix(name, ".pp")
		default:
			continue
		}
		cases++
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"validate", "--json"}, files...)...)
			rel := func(s string) string { return strings.ReplaceAll(s, dir+"/", "") }
			jsonPath, errPath := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".errors")
			wantErrors := fileExists(errPath)
			if *update {
				wantErrors = code != exitOK
				os.Remove(jsonPath)
				os.Remove(errPath)
			}
			if wantErrors {
				if code != exitFailure || out != "" {
					t.Fatalf("exit %d, stdout %q; want exit 1 and nothing on stdout", code, out)
				}
				checkGolden(t, errPath, rel(errOut))
				return
			}
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			checkGolden(t, jsonPath, rel(out))
		})
	}
	if cases < 10 {
		t.Fatalf("only %d golden cases found in %s", cases, dir)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
