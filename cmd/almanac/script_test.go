package main

import (
	"context"
	"errors"
	"flag"
	"maps"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
	"github.com/almanac-sh/almanac/internal/servetest"
)

// update rewrites the expected outputs the scripts compare with (the files
// of their archives) from the current behaviour instead of failing:
//
//	go test ./cmd/almanac -run TestScripts -update
//
// Review the rewritten scripts (git diff) before committing them.
var update = flag.Bool("update", false, "rewrite the expected files in testdata/script/*.txtar")

// TestMain lets the test binary run as the almanac command itself inside
// the scripts (testscript re-executes it under that name), and removes the
// binary servetest builds for the daemon tests when they are done.
func TestMain(m *testing.M) {
	testscript.Main(cleanup{m}, map[string]func(){"almanac": main})
}

// cleanup runs the tests, then removes servetest's binary.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int { return servetest.Main(c.m) }

// TestScripts runs testdata/script/*.txtar: the CLI contract, one script
// per command (client.txtar for the commands that talk to a daemon, one
// apply_NAME.txtar per case of testdata/apply), each running almanac as a
// separate process the way a script outside this repository would. $REPO
// is the repository's top directory, for its examples and test data.
//
// Besides testscript's own commands the scripts have:
//
//	exits N cmd args...  run cmd and require exit status N, with no crash
//	fails N cmd args...  as exits, and require the error contract: nothing
//	                     on stdout and exactly one line on stderr
//	serve [flags...]     start a daemon in the test process (daemontest)
//	                     with serve's flags, on a fresh data directory
//	                     and a free port, its token generated there; set
//	                     ALMANAC_SERVER and ALMANAC_DATA for the client
//	                     commands that follow; it stops when the script
//	                     ends
//	waitrun JOB          wait until the latest run of JOB has finished
//	                     (30 s at most), polling the daemon's API
//
// and those of the apply scripts (apply_script_test.go).
func TestScripts(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":   func(ts *testscript.TestScript, neg bool, args []string) { exits(ts, neg, args, false) },
		"fails":   func(ts *testscript.TestScript, neg bool, args []string) { exits(ts, neg, args, true) },
		"serve":   serve,
		"waitrun": waitRun,
	}
	maps.Copy(cmds, applyCmds)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Values[daemonKey{}] = &scriptDaemon{t: env.T()}
			return nil
		},
		Cmds: cmds,
	})
}

// daemonKey keys a script's *scriptDaemon in its values.
type daemonKey struct{}

// scriptDaemon is the daemon a script started with serve, if any, and the
// script's test.
type scriptDaemon struct {
	t testscript.T
	d *daemontest.Daemon
}

// serve implements the serve script command.
func serve(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: serve [FLAGS...]")
	}
	sd := ts.Value(daemonKey{}).(*scriptDaemon)
	if sd.d != nil {
		ts.Fatalf("serve: this script already started a daemon")
	}
	t, ok := sd.t.(testing.TB)
	if !ok {
		ts.Fatalf("serve: the script does not run under go test")
	}
	sd.d = daemontest.Start(t, daemontest.Options{Args: args, TokenFile: true})
	ts.Defer(sd.d.Stop)
	ts.Setenv("ALMANAC_SERVER", sd.d.URL)
	ts.Setenv("ALMANAC_DATA", sd.d.Data)
}

// waitRun implements the waitrun script command.
func waitRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitrun JOB")
	}
	sd := ts.Value(daemonKey{}).(*scriptDaemon)
	if sd.d == nil {
		ts.Fatalf("waitrun: no daemon (serve first)")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		page, err := sd.d.Client.RunList(context.Background(), apiclient.RunFilter{Job: args[0], Limit: 1})
		if err != nil {
			ts.Fatalf("waitrun %s: %v", args[0], err)
		}
		if len(page.Items) > 0 && page.Items[0].Finished() {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitrun %s: no finished run within 30s: %+v", args[0], page.Items)
		}
		time.Sleep(50 * time.Millisecond) // polling the daemon
	}
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
