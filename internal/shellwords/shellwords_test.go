package shellwords

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"aws ec2 start-instances --instance-ids", []string{"aws", "ec2", "start-instances", "--instance-ids"}, ""},
		{"sh '/tmp/my dir/x.sh' stop", []string{"sh", "/tmp/my dir/x.sh", "stop"}, ""},
		{`virsh "a \"b\" \\c" d\ e`, []string{"virsh", `a "b" \c`, "d e"}, ""},
		{`x '' ""`, []string{"x", "", ""}, ""},
		{"a'b'c\t\"d\"e", []string{"abc", "de"}, ""},
		{"$HOME `id` *", []string{"$HOME", "`id`", "*"}, ""},
		{"x 'open", nil, "unterminated single quote at offset 2"},
		{`x "open`, nil, "unterminated double quote"},
		{`x \`, nil, "backslash at the end"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Split(%q) error = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzSplit checks that splitting never panics and that words
// re-quoted with shellQuote split back to themselves.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "a b", `a 'b c' "d \" e"`, `\ `, `'`, `"\`, "x\ty\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = Quote(w)
		}
		again, err := Split(strings.Join(quoted, " "))
		if err != nil || (len(words) > 0 && !reflect.DeepEqual(again, words)) {
			t.Fatalf("%q split to %q; re-quoted it splits to %q, %v", s, words, again, err)
		}
	})
}
