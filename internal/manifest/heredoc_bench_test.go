package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// heredocManifest is n file resources whose content is a five-line text
// with two interpolations: as margin-indented heredocs, or (heredoc false)
// as the same text in double-quoted strings, for comparison.
func heredocManifest(n int, heredoc bool) []byte {
	var b strings.Builder
	b.WriteString("$who = 'ops'\n$host = 'web01'\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "file { '/etc/motd.d/%d': ensure => file, content => ", i)
		if heredoc {
			b.WriteString("@(\"END\"/n)\n    Welcome to ${host}.\n    This host is managed by ${who}.\n      Changes made by hand are lost.\\n\n    Contact the team first.\n    Thank you.\n    | END\n}\n")
		} else {
			b.WriteString("\"Welcome to ${host}.\\nThis host is managed by ${who}.\\n  Changes made by hand are lost.\\n\\nContact the team first.\\nThank you.\\n\" }\n")
		}
	}
	return []byte(b.String())
}

// BenchmarkParseHeredocs lexes and parses 1,000 interpolating heredocs
// with margins; BenchmarkParseHeredocsAsStrings the same texts written as
// double-quoted strings.
func BenchmarkParseHeredocs(b *testing.B)          { benchParse(b, heredocManifest(1000, true)) }
func BenchmarkParseHeredocsAsStrings(b *testing.B) { benchParse(b, heredocManifest(1000, false)) }

func benchParse(b *testing.B, src []byte) {
	if _, err := ParseFile("h.pp", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime()
	defer func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}()
	for b.Loop() {
		if _, err := ParseFile("h.pp", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHeredocBenchInputsAgree checks that the two benchmark inputs hold
// the same texts, so the comparison is fair.
func TestHeredocBenchInputsAgree(t *testing.T) {
	texts := func(src []byte) []string {
		f, err := ParseFile("h.pp", src)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range f.Body[2:] {
			out = append(out, sexp(e.(*ResourceDecl).Bodies[0].Attrs[1].Value))
		}
		return out
	}
	h, s := texts(heredocManifest(3, true)), texts(heredocManifest(3, false))
	if strings.Join(h, "|") != strings.Join(s, "|") {
		t.Fatalf("heredocs %q\nstrings  %q", h, s)
	}
}
