package tomldepth

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestCheck(t *testing.T) {
	deepKey := strings.Repeat("b.", 64) + "c = 1\n"
	tests := []struct {
		name, src, want string // want: "" when accepted
	}{
		{"flat", "a = 1\nb = 'x'\n", ""},
		{"a window fragment", "[updates]\nstrategy = \"periodic\"\n[[updates.periodic.window]]\ndays = [\"Mon\"]\nstart_time = \"22:00\"\n", ""},
		{"64 levels of dotted key", strings.Repeat("b.", 63) + "c = 1\n", ""},
		{"65 levels of dotted key", deepKey, "1:1: dotted key nested more than 64 levels"},
		{"the probe's 10000 levels", strings.Repeat("b.", 10000) + "c = 1\n", "1:1: dotted key nested more than 64 levels"},
		{"spaces around the dots", "x = 1\n  " + strings.Repeat("b . ", 64) + "c = 1\n", "2:3: dotted key"},
		{"quoted segments", strings.Repeat(`"b".'c'.`, 32) + "d = 1\n", "1:1: dotted key"},
		{"dots inside quotes are one segment", `"` + strings.Repeat("b.", 200) + `" = 1` + "\n", ""},
		{"deep header", "a = 1\n[" + strings.Repeat("a.", 64) + "a]\n", "2:1: table header nested more than 64 levels"},
		{"deep array-of-tables header", "[[" + strings.Repeat("a.", 64) + "a]]\n", "1:1: table header"},
		{"header plus dotted key", "[" + strings.Repeat("a.", 39) + "a]\n" + strings.Repeat("b.", 24) + "c = 1\n", "2:1: dotted key"},
		{"header plus dotted key at the limit", "[" + strings.Repeat("a.", 39) + "a]\n" + strings.Repeat("b.", 23) + "c = 1\n", ""},
		{"nested arrays", "x = " + strings.Repeat("[", 100) + strings.Repeat("]", 100), "1:68: arrays or inline tables nested more than 64 levels"},
		{"nested inline tables", "x = " + strings.Repeat("{a = ", 100) + "1" + strings.Repeat("}", 100), "1:321: dotted key"},
		{"inline tables with dotted keys", "x = {" + strings.Repeat("a.", 70) + "b = 1}", "1:6: dotted key"},
		{"array of inline tables", "x = [{y = [{z = 1}]}]\n", ""},
		{"brackets in strings and comments", "# " + strings.Repeat("[", 100) + "\nx = '" + strings.Repeat("[", 100) + "'\ny = \"\\\"" + strings.Repeat("{", 100) + "\"\nz = '''" + strings.Repeat("[", 100) + "\n'''\n", ""},
		{"dotted key after a multi-line string", "s = \"\"\"\na.b\n\"\"\"\n" + deepKey, "4:1: dotted key"},
		{"multi-line array then a deep key", "x = [\n1,\n2,\n]\n" + deepKey, "5:1: dotted key"},
		{"values are not keys", "x = [" + strings.Repeat("1.5, ", 200) + "]\n", ""},
		{"unterminated string", "x = \"abc\n" + deepKey, "2:1: dotted key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.src)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("Check = %v, want %q", err, tt.want)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("Check returned %T", err)
			}
		})
	}
}

// TestCheckIsCheap: a 1 MiB document of the worst shapes is scanned in
// linear time without allocating in proportion to it.
func TestCheckIsCheap(t *testing.T) {
	const n = 1 << 20
	for name, src := range map[string]string{
		"dotted key": strings.Repeat("b.", n/2) + "c = 1",
		"header":     "[" + strings.Repeat("a.", n/2) + "a]",
		"arrays":     "x = " + strings.Repeat("[", n),
		"short keys": strings.Repeat("a.b.c = 1\n", n/10),
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_ = Check(src)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > 64<<10 {
				t.Errorf("Check allocated %d bytes", a)
			}
			if elapsed > 5*time.Second { // linear: milliseconds; quadratic: minutes
				t.Errorf("Check took %v", elapsed)
			}
		})
	}
}

// treeDepth is the depth of the deepest value of a decoded document.
func treeDepth(v any, d int) int {
	best := d
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			best = max(best, treeDepth(x, d+1))
		}
	case []map[string]any:
		for _, x := range v {
			best = max(best, treeDepth(x, d+1))
		}
	case []any:
		for _, x := range v {
			best = max(best, treeDepth(x, d+1))
		}
	}
	return best
}

// FuzzCheck: Check never panics; it refuses only documents that do nest
// deeper than MaxDepth, and what it lets through stays within twice that.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"a = 1", "[a.b]\nc.d = 2", "[[a]]\nb = [{c = 1}]", "x = [[1], [2]]",
		strings.Repeat("b.", 65) + "c = 1", "[" + strings.Repeat("a.", 65) + "a]",
		"s = '''\n[[[\n'''\nt = \"\\\"[\"", "x = {a.b = {c = [1]}}", "a = \"x\" # [[[[",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		err := Check(src)
		if len(src) > 4096 {
			return
		}
		var doc map[string]any
		if _, derr := toml.Decode(src, &doc); derr != nil {
			return
		}
		d := treeDepth(doc, 0)
		if err != nil && d <= MaxDepth {
			t.Fatalf("Check refused a document %d deep: %v", d, err)
		}
		if err == nil && d > 2*MaxDepth {
			t.Fatalf("Check let through a document %d deep", d)
		}
	})
}
