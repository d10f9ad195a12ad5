package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

func compileSrc(t *testing.T, srcs ...string) (*Catalog, error) {
	t.Helper()
	var files []*manifest.File
	for i, src := range srcs {
		name := "m.pp"
		if i > 0 {
			name = fmt.Sprintf("m%d.pp", i+1)
		}
		f, err := manifest.ParseFile(name, []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		files = append(files, f)
	}
	return Compile(files...)
}

func mustCompile(t *testing.T, srcs ...string) *Catalog {
	t.Helper()
	cat, err := compileSrc(t, srcs...)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return cat
}

func edgeStrings(cat *Catalog) []string {
	var out []string
	for _, e := range cat.Relationships() {
		out = append(out, fmt.Sprintf("%s %s %s", e.From, map[EdgeKind]string{Before: "->", Notify: "~>", Auto: "=>"}[e.Kind], e.To))
	}
	return out
}

func TestEdges(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"metaparams", `
exec { 'a': command => '/bin/a', before => Exec['b'], notify => [Exec['c']] }
exec { 'b': command => '/bin/b', require => Exec['c'] }
exec { 'c': command => '/bin/c', subscribe => Exec['d'] }
exec { 'd': command => '/bin/d' }`,
			[]string{"Exec[a] -> Exec[b]", "Exec[a] ~> Exec[c]", "Exec[c] -> Exec[b]", "Exec[d] ~> Exec[c]"}},
		{"arrows", `
notify { ['a', 'b', 'c', 'd']: }
Notify['a'] -> Notify['b'] ~> Notify['c'] <- Notify['d']
Notify['a'] <~ Notify['d']`,
			[]string{"Notify[a] -> Notify[b]", "Notify[b] ~> Notify[c]", "Notify[d] -> Notify[c]", "Notify[d] ~> Notify[a]"}},
		{"multi ref and arrays", `
notify { ['a', 'b', 'c']: }
Notify['a', 'b'] -> [Notify['c']]`,
			[]string{"Notify[a] -> Notify[c]", "Notify[b] -> Notify[c]"}},
		{"declaration value is a ref", `
$r = exec { ['x', 'y']: command => '/bin/true' }
notify { 'n': }
$r -> Notify['n']`,
			[]string{"Exec[x] -> Notify[n]", "Exec[y] -> Notify[n]"}},
		{"map feeds chain", `
$names = ['p', 'q']
$refs = $names.map |$n| { exec { $n: command => "/bin/${n}" } }
notify { 'done': }
$refs ~> Notify['done']`,
			[]string{"Exec[p] ~> Notify[done]", "Exec[q] ~> Notify[done]"}},
		{"chained declarations", `
exec { 'p': command => '/bin/p' }
-> file { '/f': ensure => file }
~> service { 's': ensure => running }`,
			[]string{"Exec[p] -> File[/f]", "File[/f] ~> Service[s]"}},
		{"collector", `
notify { 'a': tag => 'web' }
notify { 'b': message => 'x' }
notify { 'c': }
exec { 'e': command => '/bin/e' }
Exec['e'] -> Notify <| tag == 'web' or (message == 'x' and title != 'zz') |>`,
			[]string{"Exec[e] -> Notify[a]", "Exec[e] -> Notify[b]"}},
		{"empty collector bridged with the arrow to its right", `
exec { 'a': command => '/bin/a' }
exec { 'b': command => '/bin/b' }
exec { 'c': command => '/bin/c' }
exec { 'd': command => '/bin/d' }
Exec['a'] -> Notify <| tag == 'none' |> ~> Exec['b']
Exec['c'] ~> Notify <| tag == 'none' |> -> Exec['d']`,
			[]string{"Exec[a] ~> Exec[b]", "Exec[c] -> Exec[d]"}},
		{"empty array bridged", `
exec { 'a': command => '/bin/a' }
exec { 'b': command => '/bin/b' }
Exec['a'] -> [] -> Exec['b']`,
			[]string{"Exec[a] -> Exec[b]"}},
		{"collector realizes virtual", `
@exec { 'v': command => '/bin/v', tag => 'later' }
@exec { 'w': command => '/bin/w' }
exec { 'a': command => '/bin/a' }
Exec['a'] -> Exec <| tag == 'later' |>`,
			[]string{"Exec[a] -> Exec[v]"}},
		{"class refs and require function", `
class base { exec { 'b': command => '/bin/b' } }
class app { require base  exec { 'x': command => '/bin/x' } }
include app
notify { 'n': }
Class['app'] -> Notify['n']`,
			[]string{"Class[App] -> Notify[n]", "Class[Base] -> Class[App]"}},
		{"autorequire", `
file { '/srv': ensure => directory }
file { '/srv/a/b': ensure => file }
file { '/srv/c': ensure => file, before => File['/srv'] }
exec { 'run': command => '/bin/x', cwd => '/srv' }`,
			[]string{"File[/srv/c] -> File[/srv]", "File[/srv] => File[/srv/a/b]", "File[/srv] => Exec[run]"}},
		{"defaults carry metaparams", `
Exec { require => Notify['n'] }
notify { 'n': }
exec { 'a': command => '/bin/a' }`,
			[]string{"Notify[n] -> Exec[a]"}},
		{"alias", `
exec { 'long title': command => '/bin/a', alias => 'short' }
notify { 'n': require => Exec['short'] }`,
			[]string{"Exec[long title] -> Notify[n]"}},
		{"define instance", `
define vhost($port) { notify { "site ${title} ${port}": } }
vhost { 'a': port => 80, before => Notify['z'] }
notify { 'z': }`,
			[]string{"Vhost[a] -> Notify[z]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := mustCompile(t, tt.src)
			if got := edgeStrings(cat); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("edges\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"missing require", `exec { 'm': command => '/bin/m', require => Exec['nope'] }`,
			[]string{"m.pp:1:34: Could not find resource 'Exec[nope]' in parameter 'require'"}},
		{"missing arrow target and source", "exec { 'm': command => '/bin/m' }\nExec['m'] -> Exec['nope']\nExec['gone'] -> Exec['m']",
			[]string{"m.pp:2:11: Could not find resource 'Exec[nope]' for relationship from 'Exec[m]'",
				"m.pp:3:14: Could not find resource 'Exec[gone]' for relationship on 'Exec[m]'"}},
		{"duplicate", "exec { 'a': command => '/bin/a' }\n\nexec { 'a': command => '/bin/b' }",
			[]string{"m.pp:3:8: Duplicate declaration: Exec[a] is already declared at (file: m.pp, line: 1); cannot redeclare"}},
		{"duplicate class", "class c { }\ninclude c\nclass { 'c': }",
			[]string{"m.pp:3:9: Duplicate declaration: Class[C] is already declared; cannot redeclare"}},
		{"duplicate resource-like class", "class c { }\nclass { 'c': }\nclass { 'c': }",
			[]string{"m.pp:3:9: Duplicate declaration: Class[C] is already declared at (file: m.pp, line: 2); cannot redeclare"}},
		{"unknown type", `foo { 'x': }`, []string{"m.pp:1:1: Unknown resource type: 'foo'"}},
		{"unknown attribute", "exec { 'a':\n  command => '/bin/a',\n  colour => 'red',\n}",
			[]string{"m.pp:3:3: Exec[a]: has no parameter named 'colour'"}},
		{"bad enum", `file { '/x': ensure => bogus }`,
			[]string{`m.pp:1:14: Parameter ensure failed on File[/x]: Invalid value "bogus". Valid values are present, absent, file, directory, link.`}},
		{"bad bool", `exec { 'a': command => '/bin/a', refreshonly => 'maybe' }`,
			[]string{`m.pp:1:34: Parameter refreshonly failed on Exec[a]: Invalid value "maybe". Valid values are true, false.`}},
		{"relative file", `file { 'etc/x': }`,
			[]string{"m.pp:1:8: Parameter path failed on File[etc/x]: File paths must be fully qualified, not 'etc/x'"}},
		{"numeric mode", `file { '/x': mode => 0644 }`,
			[]string{"m.pp:1:14: Parameter mode failed on File[/x]: The file mode specification must be a string, not 'Integer'"}},
		{"unknown variable", `notify { $nope: }`, []string{"m.pp:1:10: Unknown variable: 'nope'."}},
		{"reassign", "$x = 1\n$x = 2", []string{"m.pp:2:1: Cannot reassign variable '$x'"}},
		{"missing class", `include nope`, []string{"m.pp:1:1: Could not find class ::nope"}},
		{"class params", "class c(String $p, $q = 1) { }\nclass { 'c': q => 2, r => 3 }",
			[]string{"m.pp:2:9: Class[C]: expects a value for parameter 'p'", "m.pp:2:22: Class[C]: has no parameter named 'r'"}},
		{"class param type", "class c(Integer $p) { }\nclass { 'c': p => 'x' }",
			[]string{"m.pp:2:14: Class[C]: parameter 'p' expects an Integer value, got String"}},
		{"define params", "define d($p) { }\nd { 'x': }\nd { 'y': p => 1, zz => 2 }",
			[]string{"m.pp:2:5: D[x]: expects a value for parameter 'p'", "m.pp:3:18: D[y]: has no parameter named 'zz'"}},
		{"tries below one", `exec { 'a': command => '/bin/a', tries => 0, try_sleep => -1 }`,
			[]string{"m.pp:1:34: Parameter tries failed on Exec[a]: Tries must be an integer >= 1",
				"m.pp:1:46: Parameter try_sleep failed on Exec[a]: try_sleep cannot be a negative number"}},
		{"missing schedule", `exec { 'a': command => '/bin/a', schedule => 'nightly' }`,
			[]string{"m.pp:1:34: Could not find schedule nightly"}},
		{"job needs trigger", `job { 'j': command => '/bin/j' }`,
			[]string{"m.pp:1:7: Job[j]: exactly one of 'cron', 'on_calendar' or 'at' is required, or 'manual => true' for a job that runs only when triggered"}},
		{"selector without match", `$x = 'a' ? { 'b' => 1 }`,
			[]string{"m.pp:1:10: No matching entry for selector parameter with value 'a'"}},
		{"fail", `fail('stop here')`, []string{"m.pp:1:1: stop here"}},
		{"illegal operand", `notify { 'a': } 'x' -> Notify['a']`,
			[]string{"m.pp:1:17: Illegal relationship operand, can not form a relationship with something of type String. A Catalog type is required."}},
		{"reference to unrealized virtual", "@exec { 'v': command => '/bin/v' }\nnotify { 'n': require => Exec['v'] }",
			[]string{"m.pp:2:15: Could not find dependency Exec[v] for Notify[n]"}},
		{"before an unrealized virtual", "@exec { 'v': command => '/bin/v' }\nnotify { 'n': notify => Exec['v'] }",
			[]string{"m.pp:2:15: Could not find dependent Exec[v] for Notify[n]"}},
		{"arrow to an unrealized virtual", "@exec { 'ghost': command => '/bin/g' }\nexec { 'real': command => '/bin/r' }\nExec['real'] -> Exec['ghost']",
			[]string{"m.pp:3:14: Could not find dependent Exec[ghost] for Exec[real]"}},
		{"reversed arrow to an unrealized virtual", "@exec { 'ghost': command => '/bin/g' }\nexec { 'real': command => '/bin/r' }\nExec['ghost'] <~ Exec['real']",
			[]string{"m.pp:3:15: Could not find dependent Exec[ghost] for Exec[real]"}},
		{"all errors reported", "exec { 'a': command => '/bin/a', require => Exec['x'] }\nfoo { 'y': }\nnotify { 'n': before => Notify['z'] }",
			[]string{"m.pp:1:34: Could not find resource 'Exec[x]' in parameter 'require'",
				"m.pp:2:1: Unknown resource type: 'foo'",
				"m.pp:3:15: Could not find resource 'Notify[z]' in parameter 'before'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileSrc(t, tt.src)
			var el manifest.ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("Compile error = %v, want an ErrorList", err)
			}
			if got := strings.Split(el.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}
