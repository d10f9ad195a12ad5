package provider

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDirect(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho prog \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    Command
		path string // "" for the shell
		argv string
	}{
		{"absolute path", Command{Line: "/bin/true"}, "/bin/true", "/bin/true"},
		{"words split on blanks", Command{Line: " " + prog + "  a\tb "}, prog, prog + " a b"},
		{"found on the command's PATH", Command{Line: "prog x", Path: dir}, prog, "prog x"},
		{"not on PATH: the shell says so", Command{Line: "nope-not-here", Path: dir}, "", ""},
		{"not executable", Command{Line: filepath.Join(dir, "data")}, "", ""},
		{"relative path", Command{Line: "./prog", Dir: dir}, "", ""},
		{"relative PATH entry", Command{Line: "prog", Path: "bin:" + dir}, "", ""},
		{"PATH set in the environment", Command{Line: "prog", Env: []string{"PATH=" + dir}}, "", ""},
		{"builtin", Command{Line: "echo hi", Path: "/bin"}, "", ""},
		{"reserved word", Command{Line: "if /bin/true", Path: "/bin"}, "", ""},
		{"variable", Command{Line: "/bin/echo $HOME"}, "", ""},
		{"quotes", Command{Line: "/bin/echo 'a b'"}, "", ""},
		{"glob", Command{Line: "/bin/ls *"}, "", ""},
		{"redirection", Command{Line: "/bin/true >/dev/null"}, "", ""},
		{"list", Command{Line: "/bin/true; /bin/false"}, "", ""},
		{"assignment", Command{Line: "A=1 /bin/true"}, "", ""},
		{"comment", Command{Line: "/bin/true # x"}, "", ""},
		{"tilde", Command{Line: "/bin/ls ~"}, "", ""},
		{"empty", Command{Line: "  "}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, argv, ok := direct(tt.c)
			if ok != (tt.path != "") || path != tt.path || strings.Join(argv, " ") != tt.argv {
				t.Errorf("direct(%q) = %q %q %v, want %q %q", tt.c.Line, path, argv, ok, tt.path, tt.argv)
			}
		})
	}
}

// A command run directly does what /bin/sh -c would: the same output, exit
// status and environment (PWD included).
func TestRunDirectAsTheShellWould(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(script, []byte("echo from a script without #!\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	tests := []Command{
		{Line: "/bin/true"},
		{Line: "/bin/false"},
		{Line: env, Env: []string{"A=1"}},
		{Line: env, Dir: dir},
		{Line: "env", Path: filepath.Dir(env)},
		{Line: script},
		{Line: "/bin/sh -c exit\t7"},
	}
	for _, c := range tests {
		t.Run(c.Line, func(t *testing.T) {
			out, code, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			sh := c.cmd(&want, false)
			err = sh.Run()
			wantCode := 0
			if ee, ok := err.(*exec.ExitError); ok {
				wantCode = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != wantCode || sortLines(out) != sortLines(want.String()) {
				t.Errorf("Run = %d %q\nsh -c = %d %q", code, out, wantCode, want.String())
			}
		})
	}
}

// sortLines sorts env's lines: the shell lists the environment in its own
// order.
func sortLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(l)
	return strings.Join(l, "\n")
}
