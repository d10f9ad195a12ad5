package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// heredocCases are heredocs and what Puppet 7.23 makes of them (checked by
// TestHeredocsAgainstPuppet when puppet is installed).
var heredocCases = []struct{ name, src, want string }{
	{"interpolation and margin", "@(\"END\")\n  Hello ${who}\n    indented $who!\n  | END\n", "Hello world\n  indented world!\n"},
	{"no interpolation, no escapes", "@(END)\nraw ${who} \\n \\\\\nEND\n", "raw ${who} \\n \\\\\n"},
	{"all escapes and trim", "@(X/)\ntab\\tend\\\njoined \\$who \\u00e9\\u{1F600}\n-X\n", "tab\tendjoined $who é😀"},
	{"only some escapes", "@(X/t)\na\\tb\\nc\\\\d\n|-X\n", "a\tb\\nc\\d"},
	{"syntax and L", "@(\"E\":json/L)\n  {\"a\": \"${who}\\\n\"}\n  |-E\n", "{\"a\": \"world\"}"},
	{"margin keeps lines without it", "@(E)\n    four\n  two\n  none\n   |E\n", " four\n  two\n  none\n"},
	{"dirty tag line", "@(E)\nline\ntext E\n", "line\n"},
	{"empty", "@(E)\nE\n", ""},
	{"no escapes keeps backslash before dollar", "@(\"E\")\n\\$who\nE\n", "\\world\n"},
}

func heredocManifest(dir string) string {
	var b strings.Builder
	b.WriteString("$who = 'world'\n")
	for _, c := range heredocCases {
		b.WriteString("file { '" + filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")) + "': ensure => file, content => ")
		b.WriteString(c.src)
		b.WriteString("}\n")
	}
	// Two heredocs on one line, and code after them on that line.
	b.WriteString("$pair = [@(A), @(\"B\")] file { '" + filepath.Join(dir, "pair") + "': content => \"${pair[0]}|${pair[1]}\" }\nfirst\nA\nsecond $who\n|- B\n")
	return b.String()
}

func TestHeredocs(t *testing.T) {
	dir := "/h"
	cat, err := compileFor(t, Options{}, heredocManifest(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range cat.Applied() {
		got[r.Title], _ = r.Params["content"].(string)
	}
	if g := got[filepath.Join(dir, "pair")]; g != "first\n|second world" {
		t.Errorf("two heredocs on one line: got %q", g)
	}
	for _, c := range heredocCases {
		t.Run(c.name, func(t *testing.T) {
			if g := got[filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))]; g != c.want {
				t.Fatalf("got %q, want %q", g, c.want)
			}
		})
	}
}

func TestHeredocsOnOneLine(t *testing.T) {
	src := "$a = [@(A), @(\"B\"), 'after'] notify { 'n': message => \"${a[0]}|${a[1]}|${a[2]}\" }\nfirst\nA\nsecond ${a[2]}\n|- B\nnotify { 'm': message => 'next' }\n"
	// ${a[2]} inside B is evaluated before $a exists: an error Puppet makes too.
	if _, err := compileFor(t, Options{}, src); err == nil || !strings.Contains(err.Error(), "site.pp:4:10: Unknown variable: 'a'.") {
		t.Fatalf("got %v", err)
	}
	src = strings.Replace(src, "second ${a[2]}", "second $$", 1)
	cat, err := compileFor(t, Options{}, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(notifyMessages(cat), "|"); got != "first\n|second $$|after in Class[Main]|next in Class[Main]" {
		t.Fatalf("got %q", got)
	}
}

func TestHeredocErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unterminated", "$x = 1\n$a = @(END)\ntext\n", "f.pp:2:6: Heredoc without end-tagged line"},
		{"no text", "$a = @(END)", "f.pp:1:6: Heredoc without any following lines of text"},
		{"unclosed", "$a = @(END\nx\nEND", "f.pp:1:6: Unclosed parenthesis after '@(' followed by 'END'"},
		{"bad escape", "$a = @(END/q)\nEND\n", "f.pp:1:6: Invalid heredoc escape char. Only t, r, n, s,  u, L, $ allowed. Got 'q'"},
		{"repeated escape", "$a = @(END/tt)\nEND\n", "f.pp:1:6: An escape char for @() may only appear once. Got 't, t'"},
		{"empty tag", "$a = @(\"\")\nx\n", "f.pp:1:6: Heredoc with an empty endtag"},
		{"bad syntax", "$a = @(END:9x)\nEND\n", "f.pp:1:6: Invalid syntax in heredoc expected @(endtag[:syntax][/escapes])"},
		{"empty syntax segment", "$a = @(END:a++b)\nEND\n", "f.pp:1:6: Heredoc syntax specification has empty segment between '+' : 'a++b'"},
		{"unterminated interpolation", "$a = @(\"END\")\n${x\nEND\n", "f.pp:2:1: unterminated ${ interpolation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := manifest.ParseFile("f.pp", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
}

// TestHeredocsAgainstPuppet applies the heredoc cases with a real Puppet
// and compares the files it writes with the contents almanac compiles.
func TestHeredocsAgainstPuppet(t *testing.T) {
	dir := t.TempDir()
	src := heredocManifest(dir)
	puppetApply(t, dir, src)
	cat, err := compileFor(t, Options{}, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cat.Applied() {
		if r.Type != "file" {
			continue
		}
		b, err := os.ReadFile(r.Title)
		if err != nil {
			t.Fatalf("puppet did not write %s: %v", r.Title, err)
		}
		if want, _ := r.Params["content"].(string); string(b) != want {
			t.Errorf("%s: puppet wrote %q, almanac compiles %q", r.Title, b, want)
		}
	}
}
