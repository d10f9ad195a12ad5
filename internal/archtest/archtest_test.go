// Package archtest checks the import rules of docs/architecture.md, so a
// change that breaks the layering fails a test instead of waiting for a
// reader to notice.
package archtest

import (
	"go/build"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/almanac-sh/almanac/"

// imports returns the almanac packages the package in dir (relative to the
// repository root) imports, outside its tests.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	pkg, err := build.ImportDir(filepath.Join(root, dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []string
	for _, p := range pkg.Imports {
		if strings.HasPrefix(p, module) {
			out = append(out, strings.TrimPrefix(p, module))
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	tests := []struct {
		pkg string
		// forbidden lists packages (or prefixes ending in /) it must not
		// import; allowed, when set, is the whole list it may import.
		forbidden []string
		allowed   []string
	}{
		// The CLI speaks to the daemon through the client and runs only
		// the one-shot engines itself; the daemon's parts are daemon's.
		{pkg: "internal/cli", forbidden: []string{"internal/store", "internal/store/", "internal/job", "internal/api/httpapi",
			"internal/cluster", "internal/leader", "internal/webui", "internal/fleet/fleetstore", "internal/agent/agentsql", "internal/agent/agentpg", "internal/jobnotify"}},
		// The client knows only the wire types.
		{pkg: "internal/api/apiclient", allowed: []string{"internal/api/apitype"}},
		{pkg: "internal/api/apitype", allowed: []string{}},
		// Each schema has one owner: the stores do not reach into the
		// leader election's package.
		{pkg: "internal/store/pgstore", forbidden: []string{"internal/leader", "internal/cluster"}},
		{pkg: "internal/agent/agentsql", forbidden: []string{"internal/store/sqlitestore"}},
		// The engines stay pure: no stores, no API.
		{pkg: "internal/cron", allowed: []string{"internal/calendar"}},
		{pkg: "internal/weekly", allowed: []string{"internal/calendar"}},
		{pkg: "internal/oncalendar", allowed: []string{"internal/calendar"}},
		{pkg: "internal/manifest", allowed: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			got := imports(t, tt.pkg)
			for _, imp := range got {
				if tt.allowed != nil && !slices.Contains(tt.allowed, imp) {
					t.Errorf("%s imports %s; it may import only %v", tt.pkg, imp, tt.allowed)
				}
				for _, f := range tt.forbidden {
					if imp == f || strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f) {
						t.Errorf("%s imports %s, which docs/architecture.md keeps out of it", tt.pkg, imp)
					}
				}
			}
		})
	}
}
