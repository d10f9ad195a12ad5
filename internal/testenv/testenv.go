// Package testenv holds almanac's one rule for tests that need something
// from the machine: a PostgreSQL server, chromium, Graphviz, root, a Linux
// /proc. scripts/test provides every such dependency and sets
// ALMANAC_TEST_STRICT=1, under which a missing one fails the test: nothing
// the project's test command runs may skip for want of it. A plain `go
// test ./...` without it skips such a test instead, with a message naming
// what is missing and how to get it. Opt-in suites (ALMANAC_SLOW,
// screenshots, -short) are choices, not dependencies, and skip either way.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// StrictVar is the environment variable scripts/test sets to 1.
const StrictVar = "ALMANAC_TEST_STRICT"

// Strict reports whether a missing dependency fails tests.
func Strict() bool { return os.Getenv(StrictVar) == "1" }

// Need stops t when err says the dependency dep is unavailable: it fails
// under scripts/test and skips otherwise. how tells the reader how to get
// dep. Need returns normally when err is nil.
func Need(t testing.TB, dep, how string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Strict() {
		t.Fatalf("needs %s, which is missing (%v); %s", dep, err, how)
	}
	t.Skipf("needs %s, which is missing (%v); %s, or run scripts/test, which provides it", dep, err, how)
}

// LookPath finds the first of names on the PATH (or as given, when a name
// is a path) and returns it, or stops t as Need does.
func LookPath(t testing.TB, dep, how string, names ...string) string {
	t.Helper()
	var err error
	for _, name := range names {
		if name == "" {
			continue
		}
		var p string
		if p, err = exec.LookPath(name); err == nil {
			return p
		}
	}
	Need(t, dep, how, err)
	return ""
}
