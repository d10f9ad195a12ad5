package termtext_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/termtext"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tabs\tand\nlines", "tabs\tand\nlines"},
		{"\x1b]0;pwned\a\x1b[2J", `\x1b]0;pwned\x07\x1b[2J`},
		{"carriage\rreturn", `carriage\x0dreturn`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff byte", `bad \xff byte`},
		{"ünïcödé ✓", "ünïcödé ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := termtext.Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if got := termtext.Line("a\nb\x1b"); got != `a\nb\x1b` {
		t.Errorf("Line = %q", got)
	}
}

// TestWriterSplitsRunes: a UTF-8 sequence split across writes comes out
// whole, and the output equals Escape of the whole input.
func TestWriterSplitsRunes(t *testing.T) {
	in := "ö\u009b✓\x1b[2Jend\xe2\x9c"
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := termtext.NewWriter(&out)
		for i := 0; i < len(in); i += size {
			n, err := w.Write([]byte(in[i:min(i+size, len(in))]))
			if err != nil || n != min(size, len(in)-i) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := termtext.Escape(in); out.String() != want {
			t.Errorf("chunks of %d: %q, want %q", size, out.String(), want)
		}
	}
	if termtext.Raw(termtext.NewWriter(&bytes.Buffer{})) == nil {
		t.Error("Raw lost the writer")
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a", "\x1b[2J", "\u009b", "\xff\xfe", "ok\tok\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := termtext.Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("Escape(%q) = %q keeps control %U", s, got, r)
			}
		}
		if !strings.ContainsAny(s, "\\") && termtext.Escape(got) != got {
			t.Fatalf("Escape is not idempotent on %q", s)
		}
	})
}
