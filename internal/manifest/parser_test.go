package manifest

import (
	"errors"
	"strings"
	"testing"
)

func parseOK(t *testing.T, src string) *File {
	t.Helper()
	f, err := ParseFile("t.pp", []byte(src))
	if err != nil {
		t.Fatalf("ParseFile(%q): %v", src, err)
	}
	return f
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"resource", `exec { 'a': command => '/bin/true', }`, `(exec "a":{command=>"/bin/true"})`},
		{"several bodies", `file { '/a': ensure => file; '/b': ensure => directory }`,
			`(file "/a":{ensure=>file}; "/b":{ensure=>directory})`},
		{"array title", `notify { ['a', 'b']: }`, `(notify ["a" "b"]:{})`},
		{"virtual", `@exec { 'v': tag => 'x' }`, `(@exec "v":{tag=>"x"})`},
		{"defaults", `Exec { path => '/bin' }`, `(defaults Exec {path=>"/bin"})`},
		{"refs", `Exec['a'] -> Exec['b', 'c']`, `(-> (at Exec "a") (at Exec "b" "c"))`},
		{"chain left assoc", `A['a'] -> B['b'] ~> C['c'] <- D['d'] <~ E['e']`,
			`(<~ (<- (~> (-> (at A "a") (at B "b")) (at C "c")) (at D "d")) (at E "e"))`},
		{"chain decls", "package { 'p': }\n-> file { 'f': }\n~> service { 's': }",
			`(~> (-> (package "p":{}) (file "f":{})) (service "s":{}))`},
		{"assign lower than arrow", `$r = exec { 'x': } -> Exec['y']`, `(-> (= $r (exec "x":{})) (at Exec "y"))`},
		{"hash array", `$h = {'a' => [1, 2.5, true, undef], b => {c => -3}}`,
			`(= $h {"a"=>[1 2.5 true undef] b=>{c=>-3}})`},
		{"interp", `$s = "x${a}y$b-${c[0]}\t$h['k'] \$z ${ $d + 1 }"`,
			`(= $s (str "x" $a "y" $b "-" (at $c 0) "\t" (at $h "k") " $z " (+ $d 1)))`},
		{"nested interp", `$s = "a\n${ "b${c}d" }e${[1, "f\t$g"][1]}"`,
			`(= $s (str "a\n" (str "b" $c "d") "e" (at [1 (str "f\t" $g)] 1)))`},
		{"single quote escapes", `$s = 'it\'s \n \\'`, `(= $s "it's \\n \\")`},
		{"access", `$x = $a[0][1]`, `(= $x (at (at $a 0) 1))`},
		{"array after space is not access", "$x = $a\n[1].each |$v| { }", `(= $x $a) (call each [1] |$v| {})`},
		{"if elsif else", `if $a == 1 { $b = 1 } elsif $a in [2, 3] { $b = 2 } else { $b = 3 }`,
			`(if (== $a 1) {(= $b 1)} {(if (in $a [2 3]) {(= $b 2)} {(= $b 3)})})`},
		{"if bare word before brace", `if $os == linux { $x = 1 }`, `(if (== $os linux) {(= $x 1)} {})`},
		{"unless", `unless $x { $y = 1 } else { $y = 2 }`, `(unless $x {(= $y 1)} {(= $y 2)})`},
		{"case", "case $os { 'a', 'b': { $x = 1 } /^d/: { } default: { $x = 3 } }",
			`(case $os ["a" "b"]:{(= $x 1)} [/^d/]:{} [default]:{(= $x 3)})`},
		{"selector", `$m = $os ? { 'linux' => 'a', /bsd/ => 'b', default => 'c' }`,
			`(= $m (? $os "linux"=>"a" /bsd/=>"b" default=>"c"))`},
		{"precedence", `$x = !$a and $b or $c == 1 + 2 * 3`,
			`(= $x (or (and (! $a) $b) (== $c (+ 1 (* 2 3)))))`},
		{"match", `$x = $s =~ /^a.*\/b$/`, `(= $x (=~ $s /^a.*/b$/))`},
		{"division", `$x = 6 / 3`, `(= $x (/ 6 3))`},
		{"numbers", `$x = [0x1F, 0644, 1e3, -2]`, `(= $x [31 420 1000 -2])`},
		{"class", "class web(String $port = '80', $name2) { include base, other\n require db\n contain x }",
			`(class web String $port="80",$name2 {(call include base other) (call require db) (call contain x)})`},
		{"class resource", `class { 'web': port => 8080 }`, `(class "web":{port=>8080})`},
		{"define", `define app::site($root) { file { $title: path => "${root}/${name}" } }`,
			`(define app::site $root {(file $title:{path=>(str $root "/" $name)})})`},
		{"collector", `Exec <| tag == 'x' and (a != 1 or b == $c) |> -> Service['s']`,
			`(-> (collect Exec (and (== tag "x") (paren (or (!= a 1) (== b $c))))) (at Service "s"))`},
		{"empty collector", `Notify <| |>`, `(collect Notify nil)`},
		{"map lambda", `$r = $names.map |$n| { exec { $n: } }`, `(= $r (call map $names |$n| {(exec $n:{})}))`},
		{"each call", `each($h) |$k, $v| { notify { $k: message => $v } }`,
			`(call each $h |$k,$v| {(notify $k:{message=>$v})})`},
		{"filter", `$f = $xs.filter |$x| { $x =~ /a/ }`, `(= $f (call filter $xs |$x| {(=~ $x /a/)}))`},
		{"comments", "# hello\n/* multi\nline */ $x = 1 # trailing", `(= $x 1)`},
		{"defaults title", `exec { default: path => '/bin'; 'a': }`, `(exec default:{path=>"/bin"}; "a":{})`},
		{"realize", `realize(Exec['a'], Exec['b'])`, `(call realize (at Exec "a") (at Exec "b"))`},
		{"qualified", `$x = $::top; $y = $foo::bar; include ::base`, `(= $x $::top) (= $y $foo::bar) (call include base)`},
		{"class ref", `Class['a'] -> Class['b::c']`, `(-> (at Class "a") (at Class "b::c"))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseOK(t, tt.src)
			if got := list(f.Body); got != tt.want {
				t.Errorf("parse %q\n got  %s\n want %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"node inheritance", "node 'web' inherits 'base' { }", []string{"t.pp:1:12: Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation"}},
		{"heredoc without end", "$x = @(EOT)\nhi\nEOX", []string{"t.pp:1:6: Heredoc without end-tagged line"}},
		{"exported", "@@exec { 'a': }", []string{"t.pp:1:1: unsupported: exported resources"}},
		{"unknown function", "$x = lookup('k')", []string{"t.pp:1:6: unsupported: function 'lookup'"}},
		{"unknown method", "$x = $a.reduce |$m, $v| { }", []string{"t.pp:1:9: unsupported: function 'reduce'"}},
		{"override", "Exec['a'] { path => '/x' }", []string{"t.pp:1:11: unsupported: resource overrides (Type['title'] { ... })"}},
		{"inherits", "class a inherits b { }", []string{"t.pp:1:9: unsupported: class inheritance"}},
		{"append", "exec { 'a': tag +> 'x' }", []string{"t.pp:1:17: unsupported: +> (attribute append)"}},
		{"missing colon", "exec { 'a' command => 'x' }", []string{"t.pp:1:12: syntax error: expected ':' after the resource title, found 'command'"}},
		{"unterminated string", "$x = 'abc", []string{"t.pp:1:6: unterminated string"}},
		{"unterminated comment", "/* x", []string{"t.pp:1:1: unterminated /* comment"}},
		{"bad char", "$x = 1 ` 2", []string{"t.pp:1:8: unexpected character '`'"}},
		{"several errors", "@@exec { 'a': }\nexec { 'ok': }\n$x = lookup('k')\nfunction f() { }\n",
			[]string{"t.pp:1:1: unsupported: exported resources", "t.pp:3:6: unsupported: function 'lookup'",
				"t.pp:4:1: unsupported: function definitions"}},
		{"bad regex", "$x = $a =~ /(/", []string{"t.pp:1:12: invalid regular expression /(/: error parsing regexp: missing closing ): `(`"}},
		{"assign to non var", "Exec['a'] = 1", []string{"t.pp:1:11: syntax error: can only assign to a variable"}},
		{"eof", "exec { 'a':", []string{"t.pp:1:12: syntax error: expected an attribute name, found end of file"}},
		{"stray brace", "}", []string{"t.pp:1:1: syntax error: unexpected '}'"}},
		{"error in interpolation", `$x = "a${ 1 + }b"`, []string{"t.pp:1:15: syntax error: unexpected '}'"}},
		{"latin-1 string", "notify { 'caf\xe9': }", []string{"t.pp:1:14: invalid UTF-8: byte 0xe9 is not part of a UTF-8 character (manifests must be UTF-8)"}},
		{"latin-1 comment", "# ok\n# caf\xe9\nnotify { 'x': }", []string{"t.pp:2:6: invalid UTF-8: byte 0xe9 is not part of a UTF-8 character (manifests must be UTF-8)"}},
		{"truncated character", "notify { '\xe2\x82': }", []string{"t.pp:1:11: invalid UTF-8: byte 0xe2 is not part of a UTF-8 character (manifests must be UTF-8)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFile("t.pp", []byte(tt.src))
			var el ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("ParseFile(%q) = %v, want an ErrorList", tt.src, err)
			}
			if got := strings.Split(el.Error(), "\n"); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors for %q:\n got  %q\n want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestPositions(t *testing.T) {
	f := parseOK(t, "\n  exec { 'a':\n    command => 'x',\n  }\n")
	d := f.Body[0].(*ResourceDecl)
	if got := d.Position(); got != (Pos{"t.pp", 2, 3}) {
		t.Errorf("decl at %v", got)
	}
	if got := d.Bodies[0].Attrs[0].Position(); got != (Pos{"t.pp", 3, 5}) {
		t.Errorf("attr at %v", got)
	}
	if got := d.Bodies[0].Attrs[0].Value.Position(); got != (Pos{"t.pp", 3, 16}) {
		t.Errorf("value at %v", got)
	}
}
