package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

func compileFor(t *testing.T, opts Options, src string) (*Catalog, error) {
	t.Helper()
	f, err := manifest.ParseFile("site.pp", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return CompileWith(opts, f)
}

// notifyMessages lists the notify resources' messages (or titles) in
// catalog order, with their containers.
func notifyMessages(cat *Catalog) []string {
	var out []string
	for _, r := range cat.Applied() {
		if r.Type != "notify" {
			continue
		}
		msg, ok := r.Params["message"].(string)
		if !ok {
			msg = r.Title
		}
		out = append(out, msg+" in "+r.Container)
	}
	return out
}

const nodesSite = `
notify { 'top': }
node 'web01.example.com', 'www' { notify { 'exact': message => "exact ${facts['os']['family']}" } }
node /^web(\d+)\./ { notify { 'regex': message => "regex $1" } }
node /^web/ { notify { 'second-regex': } }
node default { notify { 'default': } }
`

func TestNodeMatching(t *testing.T) {
	facts := map[string]any{"os": map[string]any{"family": "Debian"}}
	tests := []struct {
		node string
		want []string
	}{
		{"web01.example.com", []string{"top in Class[Main]", "exact Debian in Node[web01.example.com]"}},
		{"WWW", []string{"top in Class[Main]", "exact Debian in Node[web01.example.com]"}},
		{"web02.example.com", []string{"top in Class[Main]", "regex 02 in Node[__node_regexp__webd.]"}},
		{"webby", []string{"top in Class[Main]", "second-regex in Node[__node_regexp__web]"}},
		{"db01", []string{"top in Class[Main]", "default in Node[default]"}},
		{"", []string{"top in Class[Main]", "default in Node[default]"}},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			cat, err := compileFor(t, Options{Node: tt.node, Facts: facts}, nodesSite)
			if err != nil {
				t.Fatal(err)
			}
			if got := notifyMessages(cat); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeErrors(t *testing.T) {
	tests := []struct{ name, src, node, want string }{
		{"no match and no default", "node 'a' { }\nnode 'b' { }", "c",
			"site.pp:1:1: Could not find node statement with name 'default' or 'c'"},
		{"defined twice", "node 'a' { }\nnode 'b', 'A' { }", "a",
			"site.pp:2:11: Node 'a' is already defined (file: site.pp, line: 1); cannot redefine"},
		{"two defaults", "node default { }\nnode default { }", "a",
			"site.pp:2:6: Node 'default' is already defined (file: site.pp, line: 1); cannot redefine"},
		{"node scope is not top scope", "node default { $x = 1 }\nnotify { 'n': message => $x }", "a",
			"site.pp:2:26: Unknown variable: 'x'."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileFor(t, Options{Node: tt.node}, tt.src)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
}

func TestNodeParseErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"interpolated", `node "web${x}" { }`, `f.pp:1:6: An interpolated expression is not allowed in a hostname of a node`},
		{"illegal chars", `node 'we b' { }`, `f.pp:1:6: The hostname 'we b' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)`},
		{"inherits", `node 'a' inherits 'b' { }`, `f.pp:1:10: Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation`},
		{"nested", "if true { node 'a' { } }", `f.pp:1:11: Classes, definitions, and nodes may only appear at toplevel or inside other classes`},
		{"not a name", `node { }`, `f.pp:1:6: syntax error: expected a node name (a string, a name, a regular expression or default), found '{'`},
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

func TestDottedNodeName(t *testing.T) {
	cat, err := compileFor(t, Options{Node: "db.example.com"}, "node db.example.com, 10.0.0.1 { notify { 'db': } }")
	if err != nil {
		t.Fatal(err)
	}
	if got := notifyMessages(cat); len(got) != 1 || got[0] != "db in Node[db.example.com]" {
		t.Fatalf("got %q", got)
	}
}

func TestFacts(t *testing.T) {
	facts := map[string]any{
		"os":         map[string]any{"family": "RedHat", "release": map[string]any{"major": "9"}},
		"processors": map[string]any{"count": 4},
		"kernel":     "Linux",
	}
	src := `
if $facts['os']['family'] == 'RedHat' and $facts['processors']['count'] > 2 {
  notify { 'big-rh': message => "${facts['kernel']} ${facts['os']['release']['major']}" }
}
$missing = $facts['nope']
if $missing == undef { notify { 'undef': } }
`
	cat, err := compileFor(t, Options{Facts: facts}, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(notifyMessages(cat), "|"); got != "Linux 9 in Class[Main]|undef in Class[Main]" {
		t.Fatalf("got %q", got)
	}
	// Without facts, $facts is an empty hash, not an unknown variable.
	if _, err := compileFor(t, Options{}, "notify { 'x': message => $facts['os'] }"); err != nil {
		t.Fatal(err)
	}
}

// FuzzCompileNode compiles any parsable manifest for a node name and
// facts: it must not panic, and failures are positioned.
func FuzzCompileNode(f *testing.F) {
	f.Add(nodesSite, "web03.x")
	f.Add("node default { } node /(/ { }", "a")
	f.Add("node 'a', /b/, default { notify { $facts['os']['name']: } }", "b")
	f.Fuzz(func(t *testing.T, src, node string) {
		file, err := manifest.ParseFile("f.pp", []byte(src))
		if err != nil {
			return
		}
		_, err = CompileWith(Options{Node: node, Facts: map[string]any{"os": map[string]any{"name": "Debian"}}}, file)
		checkCompileError(t, err)
	})
}

// checkCompileError fails t unless err is nil or a non-empty ErrorList of
// positioned errors, what every compilation must return.
func checkCompileError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var el manifest.ErrorList
	if !errors.As(err, &el) || len(el) == 0 {
		t.Fatalf("error %v is not a non-empty ErrorList", err)
	}
	for _, e := range el {
		if !e.Pos.IsValid() {
			t.Fatalf("unpositioned error %q", e.Error())
		}
	}
}
