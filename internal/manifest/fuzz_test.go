package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
)

var fuzzSeeds = []string{
	`exec { 'a': command => '/bin/true', before => Exec['b'] }`,
	"file { ['/a', '/b']: ensure => file; '/c': ensure => directory }\n-> Service['s']",
	`@notify { 'v': tag => 't' } Notify <| tag == 't' and (title != 'x' or message == "m") |> ~> Exec['x']`,
	`class c(String $p = "x${y}z", $q = [1, {a => 2}]) { include d require e contain f }`,
	`define d($x) { $r = $x ? { /a/ => 1, default => 2 } case $r { 1, 2: { } default: { } } }`,
	`$r = ['a', 'b'].map |$n| { exec { $n: } } $r -> Exec['z'] each($h) |$k, $v| { }`,
	`if $a =~ /^x\/y$/ and !($b in [1, 2.5]) { } elsif $c { } else { } unless $d { }`,
	"\"unterminated ${ { \" '\\'' /* x */ # y\n $",
	`node 'x' { } @@exec { 'y': } $x = @(EOT) Exec['a'] { } Exec <<| |>>`,
	`"\u{1F600} \u00e9 \s $a[0]['k'] ${b.map |$x| { $x }}"`,
}

// FuzzParse checks that no input panics the parser, that every reported
// error is positioned inside the input, and that ParseEach, which lexes as
// it parses, finds what ParseFile finds.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseFile("f.pp", src)
		var each []string
		eachErr := ParseEach("f.pp", string(src), func(e Expr) { each = append(each, render(e)) })
		if fmt.Sprint(eachErr) != fmt.Sprint(err) {
			t.Fatalf("ParseEach reports\n%v\nParseFile\n%v", eachErr, err)
		}
		if err == nil {
			var body []string
			for _, e := range file.Body {
				body = append(body, render(e))
			}
			if !slices.Equal(each, body) {
				t.Fatalf("ParseEach passes\n%q\nParseFile parses\n%q", each, body)
			}
			return
		}
		var el ErrorList
		if !errors.As(err, &el) {
			t.Fatalf("error is %T, not ErrorList", err)
		}
		checkPositions(t, src, el)
	})
}

// FuzzLex checks the lexer alone: no panics, tokens positioned in the input.
func FuzzLex(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var el ErrorList
		toks := Lex("f.pp", src, &el)
		if len(toks) == 0 || toks[len(toks)-1].Kind != EOF {
			t.Fatal("token stream does not end with EOF")
		}
		for _, tk := range toks {
			if tk.Off < 0 || int(tk.Off) > len(src) || tk.Start > tk.End || int(tk.End) > len(src) {
				t.Fatalf("%v token at offset %d outside the input (%d bytes)", tk.Kind, tk.Off, len(src))
			}
		}
		if len(el) > 0 {
			checkPositions(t, src, el)
		}
	})
}

func checkPositions(t *testing.T, src []byte, el ErrorList) {
	t.Helper()
	lines := bytes.Split(src, []byte("\n"))
	if len(el) == 0 {
		t.Fatal("empty ErrorList returned as an error")
	}
	for _, e := range el {
		if e.Pos.File != "f.pp" || e.Pos.Line < 1 || e.Pos.Line > len(lines) || e.Pos.Col < 1 ||
			e.Pos.Col > len(lines[e.Pos.Line-1])+1 {
			t.Fatalf("error %q positioned outside the input", e.Error())
		}
		if e.Msg == "" || bytes.ContainsAny([]byte(e.Msg), "\n") {
			t.Fatalf("error %q is not one self-contained line", e.Error())
		}
	}
}
