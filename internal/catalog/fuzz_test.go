package catalog

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// FuzzCompile checks that compiling any parsable manifest never panics,
// that failures are positioned ErrorLists, and that compiling its source
// statement by statement gives the same catalog and errors.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"exec { 'a': command => '/bin/a', before => Exec['b'] } exec { 'b': command => '/bin/b' }",
		"@notify { 'v': tag => 't' } Notify <| tag == 't' or title != 'x' |> -> Notify['n'] notify { 'n': }",
		"class c($p = 1) { file { '/x': ensure => file } } include c class { 'c': }",
		"define d($x) { notify { $x: } } d { 'a': x => 'b' } $r = [1, 2].map |$i| { d { \"t${i}\": x => \"m${i}\" } }",
		"$h = {'a' => 1} $v = $h['a'] ? { 1 => 'one', default => 'x' } case $v { /o(n)e/: { $w = $1 } default: { } }",
		"Exec { path => '/bin' } exec { 'x': cwd => '/srv' } file { '/srv': ensure => directory }",
		"schedule { 's': range => '1 - 2' } job { 'j': cron => '* * * * *', command => 'x', schedule => 's' }",
		"$x = 1 / 0 $y = -9223372036854775807 - 2 $z = [] + {} notify { [[], ['a']]: }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := manifest.ParseFile("f.pp", []byte(src))
		if err != nil {
			return
		}
		cat, err := Compile(file)
		checkCompileError(t, err)
		streamed, serr := CompileSources(Options{}, Source{Name: "f.pp", Text: src})
		if fmt.Sprint(serr) != fmt.Sprint(err) {
			t.Fatalf("CompileSources reports\n%v\nCompile\n%v", serr, err)
		}
		if !reflect.DeepEqual(streamed.Resources(), cat.Resources()) || !reflect.DeepEqual(streamed.Edges(), cat.Edges()) {
			t.Fatal("CompileSources and Compile build different catalogs")
		}
	})
}
