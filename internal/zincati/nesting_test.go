package zincati

import (
	"strings"
	"testing"
)

// TestParseRefusesDeepNesting: nesting that would exhaust the TOML
// decoder's stack or memory is refused, at its position, before decoding;
// brackets in strings and comments do not count.
func TestParseRefusesDeepNesting(t *testing.T) {
	const n = 4 << 20
	tests := []struct {
		name, src, want string
	}{
		{"4M nested arrays", "x = " + strings.Repeat("[", n) + strings.Repeat("]", n),
			"deep.toml:1:68: arrays or inline tables nested more than 64 levels deep (table headers, dotted keys, arrays and inline tables count together)"},
		{"nested inline tables", "[updates]\nx = " + strings.Repeat("{a = ", 100) + "1" + strings.Repeat("}", 100),
			"deep.toml:2:316: dotted key nested more than 64 levels deep (table headers, dotted keys, arrays and inline tables count together)"},
		{"dotted key", "[updates]\n" + strings.Repeat("b.", 10000) + "c = 1\n",
			"deep.toml:2:1: dotted key nested more than 64 levels deep (table headers, dotted keys, arrays and inline tables count together)"},
		{"table header", "[[" + strings.Repeat("a.", 10000) + "a]]\n",
			"deep.toml:1:1: table header nested more than 64 levels deep (table headers, dotted keys, arrays and inline tables count together)"},
		{"nested under a table", "# [[[[\n[updates.periodic]\nkey = '[[[[' \ny = \"\"\"\n[[[\"\"\"\nz = " + strings.Repeat("[", 65),
			"deep.toml:6:66: arrays or inline tables nested more than 64 levels deep (table headers, dotted keys, arrays and inline tables count together)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("deep.toml", []byte(tt.src))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
	t.Run("brackets in strings and comments", func(t *testing.T) {
		deep := strings.Repeat("[", 100)
		src := "# " + deep + "\n[updates]\nstrategy = \"periodic\" # " + deep + "\n"
		if _, err := checkNesting(src + "x = '" + deep + "'\ny = \"\\\"" + deep + "\"\nz = '''" + deep + "'''\n"); err != nil {
			t.Fatalf("checkNesting: %v", err)
		}
		if _, err := Parse("ok.toml", []byte(src)); err != nil {
			t.Fatalf("Parse: %v", err)
		}
	})
}
