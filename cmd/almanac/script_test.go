package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// TestMain lets the test binary run as the almanac command itself inside
// the scripts (testscript re-executes it under that name), and removes the
// binary servetest builds for the daemon tests when they are done.
func TestMain(m *testing.M) {
	testscript.Main(cleanup{m}, map[string]func(){"almanac": main})
}

// cleanup runs the tests, then removes servetest's binary.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int { return servetest.Main(c.m) }

// TestScripts runs testdata/script/*.txtar: the CLI contract of the one-shot
// commands, one script per command, each running almanac as a separate
// process the way a script outside this repository would. $REPO is the
// repository's top directory, for its examples.
//
// Besides testscript's own commands the scripts have:
//
//	exits N cmd args...  run cmd and require exit status N, with no crash
//	fails N cmd args...  as exits, and require the error contract: nothing
//	                     on stdout and exactly one line on stderr
func TestScripts(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": func(ts *testscript.TestScript, neg bool, args []string) { exits(ts, neg, args, false) },
			"fails": func(ts *testscript.TestScript, neg bool, args []string) { exits(ts, neg, args, true) },
		},
	})
}

// exits implements the exits and fails script commands.
func exits(ts *testscript.TestScript, neg bool, args []string, errorContract bool) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits|fails CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exit code %q: %v", args[0], err)
	}
	err = ts.Exec(args[1], args[2:]...)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	for _, s := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(stdout, s) || strings.Contains(stderr, s) {
			ts.Fatalf("output holds %q: a crash or a stack trace", s)
		}
	}
	if code != want {
		ts.Fatalf("exit status %d, want %d", code, want)
	}
	if !errorContract {
		return
	}
	if stdout != "" {
		ts.Fatalf("stdout not empty on error")
	}
	if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 || lines[0] == "" {
		ts.Fatalf("stderr has %d lines, want one", len(lines))
	}
}
