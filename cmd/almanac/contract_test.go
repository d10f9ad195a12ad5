package main

// Black-box tests of the stable CLI contract: the real binary is built once
// (servetest.Binary) and every test runs it as a separate process, exactly
// as a script outside this repository would, checking exit codes, the output
// formats the contract fixes and the behaviour on bad input.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// almanac runs the binary with args in dir (the repository root when empty)
// and the extra environment, and fails the test if it crashed.
func almanac(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, servetest.Binary(t), args...)
	if dir == "" {
		dir = repoRoot(t)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("almanac %q: %v", args, err)
	}
	noCrash(t, args, r)
	return r
}

// noCrash fails the test on a panic or a Go stack trace in the output.
func noCrash(t *testing.T, args []string, r result) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(r.stderr, s) || strings.Contains(r.stdout, s) {
			t.Fatalf("almanac %q printed %q (a crash or stack trace):\n%s", args, s, r)
		}
	}
}

// repoRoot is the repository's top directory (two levels above this package).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// rfc3339Offset matches an RFC 3339 instant with a Z or numeric offset and no
// fractional seconds.
var rfc3339Offset = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$`)

// TestContractNextDefaultFrom: without --from, next counts from now. The
// rest of next's contract is in testdata/script/next.txtar.
func TestContractNextDefaultFrom(t *testing.T) {
	t.Parallel()
	before := time.Now()
	r := almanac(t, "", nil, "next", "-n", "3", "* * * * *")
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines\n%s", r)
	}
	for _, l := range lines {
		ts, err := time.Parse(time.RFC3339, l)
		if err != nil || !rfc3339Offset.MatchString(l) || !ts.After(before.Add(-time.Second)) || ts.Second() != 0 {
			t.Errorf("line %q: not a whole minute after the start of the test (%v)", l, err)
		}
	}
}
