package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// streamInputs are manifests to parse both ways: the typical ones, those
// with errors, the fuzz seeds, and a few made to cross the points where
// the token buffer is emptied.
func streamInputs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, src := range typicalManifests(t) {
		out[name] = string(src)
	}
	for _, glob := range []string{"../../testdata/validate/err_*.pp", "testdata/fuzz/*/*"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[f] = string(src)
		}
	}
	var long strings.Builder
	for i := range 3 * rebaseAt {
		fmt.Fprintf(&long, "notify { \"n%d ${x}\": message => 'a\\'b', }\n", i)
		if i%700 == 0 {
			fmt.Fprintf(&long, "class c%d { file { '/tmp/%d': } }\n", i, i)
		}
	}
	out["long"] = long.String()
	// Definitions, after which the parser looks at no further token: now
	// and then one ends exactly where a run of the lexer does.
	var defs strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&defs, "class c%d { include c%d }\n", i, i+1)
	}
	out["definitions"] = defs.String()
	out["long with errors"] = strings.Repeat("notify { 'a': } }\nnotify { 'b' }\n", rebaseAt)
	out["errors past the limit"] = strings.Repeat("notify { 'a' }\n", maxErrors+10) + strings.Repeat("$x = \"\\u{zz}\"\n", 20)
	return out
}

// render writes a statement and where it starts.
func render(e Expr) string { return e.Position().String() + " " + sexp(e) }

// TestParseEachMatchesParseFile: ParseEach passes exactly the statements
// ParseFile puts in the body, and returns the same errors.
func TestParseEachMatchesParseFile(t *testing.T) {
	for name, src := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			f, fileErr := ParseFile(name, []byte(src))
			var want []string
			for _, e := range f.Body {
				want = append(want, render(e))
			}
			var got []string
			eachErr := ParseEach(name, src, func(e Expr) { got = append(got, render(e)) })
			if fmt.Sprint(eachErr) != fmt.Sprint(fileErr) {
				t.Fatalf("errors differ:\nParseEach: %v\nParseFile: %v", eachErr, fileErr)
			}
			if fileErr != nil {
				return // ParseEach may have passed statements before an error
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("statements differ:\nParseEach:\n%s\nParseFile:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestParseEachHoldsLittle: a statement dropped by the caller is garbage,
// and the parser's own memory does not grow with the file: parsing 8 MB of
// small resources never has more live heap than a fraction of it (the
// file's tokens alone would take 5 times its size).
func TestParseEachHoldsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 8 MB")
	}
	var b strings.Builder
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "notify { 'n%d': }\n", i)
	}
	src := b.String()
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := live()
	var most uint64
	n := 0
	err := ParseEach("big.pp", src, func(e Expr) {
		if n++; n%50_000 == 0 {
			most = max(most, live()-min(base, live()))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100_000 {
		t.Fatalf("only %d statements", n)
	}
	t.Logf("at most %d bytes live while parsing %d", most, len(src))
	if most > uint64(len(src))/4 {
		t.Errorf("%d bytes live while parsing %d bytes", most, len(src))
	}
}
