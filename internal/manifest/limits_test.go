package manifest

import (
	"strings"
	"testing"
)

// TestNestingAndChainLimits: input that would make a tree too deep for the
// compiler (or the lexer's own recursion) is refused with one positioned
// error, whatever its size.
func TestNestingAndChainLimits(t *testing.T) {
	const mega = 200_000
	tests := []struct {
		name, src, want string
	}{
		{"200,000 + terms", "$a = 1" + strings.Repeat("+1", mega),
			"m.pp:1:20007: expression too long: more than 10000 operators in a row"},
		{"200,000 accesses", "$a = $b" + strings.Repeat("[0]", mega),
			"m.pp:1:30008: expression too long: more than 10000 operators in a row"},
		{"nested arrays", "$a = " + strings.Repeat("[", mega) + strings.Repeat("]", mega),
			"m.pp:1:406: expression nested too deeply (more than 400 levels)"},
		{"nested ifs", strings.Repeat("if true {\n", mega) + strings.Repeat("}", mega),
			"m.pp:401:9: expression nested too deeply (more than 400 levels)"},
		{"nested interpolation", "$a = " + strings.Repeat(`"${`, mega) + strings.Repeat(`}"`, mega),
			"m.pp:1:1206: string interpolation nested too deeply (more than 400 levels)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFile("m.pp", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.SplitN(err.Error(), "\n", 2)[0]; got != tt.want {
				t.Errorf("first error = %q, want %q", got, tt.want)
			}
			if n := strings.Count(err.Error(), "\n") + 1; n > maxErrors+1 {
				t.Errorf("%d errors", n)
			}
		})
	}
	t.Run("a long arrow chain is fine", func(t *testing.T) {
		src := "notify { 'a': }" + strings.Repeat(" -> Notify['a']", 50_000)
		if _, err := ParseFile("m.pp", []byte(src)); err != nil {
			t.Fatal(err)
		}
	})
}
