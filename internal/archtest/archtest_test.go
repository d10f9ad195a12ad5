// Package archtest checks the import graph against the layer table of
// docs/architecture.md, so a change that breaks the layering fails a test
// instead of waiting for a reader to notice.
//
// The table below gives every package of the module a layer. A package
// may import packages of its own layer and of the layers before it, never
// one of a later layer; a package the table does not list fails the test,
// and so does a table entry for a package that no longer exists. Beside
// the table, a few packages have narrower rules of their own (rules).
package archtest

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/almanac-sh/almanac"

// layers is the layer table, lowest first: the same layers, in the same
// order, as docs/architecture.md.
var layers = []struct {
	name string
	pkgs []string
}{
	{"foundations", []string{
		"internal/clock", "internal/calendar", "internal/jobname", "internal/shellwords",
		"internal/durationtext", "internal/termtext", "internal/posixid", "internal/nodeselect",
		"internal/fleetlock/groupname", "internal/redact", "internal/tomldepth", "internal/flagfile",
		"internal/buildinfo", "internal/facts", "internal/inputfile", "internal/loopback",
		"internal/connlimit", "internal/memlimit", "internal/sdnotify", "internal/supervisor",
		"internal/audit", "internal/api/apitype",
	}},
	{"engines", []string{
		"internal/cron", "internal/oncalendar", "internal/weekly", "internal/puppetsched",
		"internal/manifest", "internal/catalog", "internal/graph", "internal/zincati",
		"internal/kubespec",
	}},
	{"store contract", []string{
		"internal/store",
	}},
	{"runners", []string{
		"internal/apply", "internal/provider", "internal/provider/account", "internal/provider/exec",
		"internal/provider/file", "internal/provider/notify", "internal/provider/packages",
		"internal/provider/service", "internal/manifestdir", "internal/agent",
		"internal/agent/manifestapply", "internal/job", "internal/jobnotify", "internal/manifestjob",
		"internal/importer", "internal/fleet", "internal/fleet/awsinventory", "internal/fleetlock",
		"internal/retention", "internal/provider/builtin", "internal/kubeexec",
	}},
	{"stores", []string{
		"internal/migrate", "internal/store/sqlitestore", "internal/store/pgstore",
		"internal/fleet/fleetstore", "internal/agent/agentsql", "internal/agent/agentpg",
		"internal/leader/fence", "internal/leader", "internal/cluster",
	}},
	{"api and ui", []string{
		"internal/apitoken", "internal/access", "internal/accesslog",
		"internal/api/apiclient", "internal/api/httpapi", "internal/webui",
	}},
	{"daemon", []string{
		"internal/daemon",
	}},
	{"cli", []string{
		"internal/cli",
	}},
	{"command", []string{
		"cmd/almanac",
	}},
	// Test helpers come last, so no production package can import one.
	{"test helpers", []string{
		"internal/testenv", "internal/pgtest", "internal/servetest", "internal/smtptest",
		"internal/store/storetest", "internal/store/sqlitestore/sqlitedamage",
		"internal/api/apitest", "internal/webui/webuitest", "internal/agent/agenttest",
		"internal/fleet/awsinventory/awsfake", "internal/daemon/daemontest", "internal/kubetest",
		"internal/e2e", "packaging",
	}},
}

// rules are the narrower rules some packages keep within their layer's
// allowance. forbidden lists packages (or prefixes ending in /) the package
// must not import; allowed, when not nil, is the whole list it may import.
var rules = []struct {
	pkg, why           string
	forbidden, allowed []string
}{
	{pkg: "internal/cli", why: "the CLI speaks to the daemon through the client and runs only the one-shot engines itself",
		forbidden: []string{"internal/store", "internal/store/", "internal/job", "internal/api/httpapi",
			"internal/cluster", "internal/leader", "internal/webui", "internal/fleet/fleetstore",
			"internal/agent/agentsql", "internal/agent/agentpg", "internal/jobnotify"}},
	{pkg: "internal/api/apiclient", why: "the client knows only the wire types",
		allowed: []string{"internal/api/apitype"}},
	{pkg: "internal/api/apitype", why: "the wire types stand alone", allowed: []string{}},
	{pkg: "internal/store/pgstore", why: "each schema has one owner: the stores do not reach into the leader election's package",
		forbidden: []string{"internal/leader", "internal/cluster"}},
	{pkg: "internal/agent/agentsql", why: "each schema has one owner",
		forbidden: []string{"internal/store/sqlitestore"}},
	{pkg: "internal/cron", why: "the engines stay pure", allowed: []string{"internal/calendar"}},
	{pkg: "internal/weekly", why: "the engines stay pure", allowed: []string{"internal/calendar"}},
	{pkg: "internal/oncalendar", why: "the engines stay pure", allowed: []string{"internal/calendar"}},
	{pkg: "internal/manifest", why: "the engines stay pure", allowed: []string{}},
	{pkg: "internal/graph", why: "the engines stay pure", allowed: []string{}},
	{pkg: "cmd/almanac", why: "main handles signals and exit codes only",
		allowed: []string{"internal/cli", "internal/supervisor"}},
}

// root is the repository's root directory.
func root(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the source file's path")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// loadGraph returns every package of the module (by its path relative to
// the module, such as internal/job) with the module's packages it imports
// outside its tests. Directories named testdata, starting with . or _, or
// holding a module of their own are not part of it, and a directory of
// tests alone has no imports to check.
func loadGraph(t *testing.T) map[string][]string {
	t.Helper()
	dir := root(t)
	graph := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != dir {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		pkg, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		switch {
		case errors.As(err, &noGo):
			return nil
		case err != nil:
			return err
		case len(pkg.GoFiles)+len(pkg.CgoFiles) == 0:
			return nil // tests only: nothing can import it
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		var deps []string
		for _, p := range pkg.Imports {
			if p == module || strings.HasPrefix(p, module+"/") {
				deps = append(deps, strings.TrimPrefix(p, module+"/"))
			}
		}
		graph[rel] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < 50 {
		t.Fatalf("found only %d packages under %s; the walk is broken", len(graph), dir)
	}
	return graph
}

// layerOf maps each package of the table to its layer's index.
func layerOf(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for i, l := range layers {
		for _, p := range l.pkgs {
			if j, dup := out[p]; dup {
				t.Errorf("%s is in the table twice, in layers %q and %q", p, layers[j].name, l.name)
			}
			out[p] = i
		}
	}
	return out
}

// TestLayerTable checks every import of every package against the table.
func TestLayerTable(t *testing.T) {
	graph := loadGraph(t)
	layer := layerOf(t)
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		lp, ok := layer[p]
		if !ok {
			t.Errorf("%s has no layer: add it to the table in internal/archtest and to docs/architecture.md", p)
			continue
		}
		for _, imp := range graph[p] {
			li, ok := layer[imp]
			if !ok {
				continue // reported as a package of its own
			}
			if li > lp {
				t.Errorf("%s (layer %q) imports %s (layer %q, later in the table)", p, layers[lp].name, imp, layers[li].name)
			}
		}
	}
	for p := range layer {
		if _, ok := graph[p]; !ok {
			t.Errorf("the table lists %s, which is not a package of the module", p)
		}
	}
}

// TestRules checks the narrower rules.
func TestRules(t *testing.T) {
	graph := loadGraph(t)
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			got, ok := graph[r.pkg]
			if !ok {
				t.Fatalf("%s is not a package of the module", r.pkg)
			}
			for _, imp := range got {
				if r.allowed != nil && !slices.Contains(r.allowed, imp) {
					t.Errorf("%s imports %s; it may import only %v (%s)", r.pkg, imp, r.allowed, r.why)
				}
				for _, f := range r.forbidden {
					if imp == f || strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f) {
						t.Errorf("%s imports %s, which is kept out of it: %s", r.pkg, imp, r.why)
					}
				}
			}
		})
	}
}

// numbered matches the first line of a numbered item.
var numbered = regexp.MustCompile(`^[0-9]+\. `)

// TestTableMatchesDocs checks that docs/architecture.md names every package
// of the table in the section of its layer, so the map and the test cannot
// drift apart.
func TestTableMatchesDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Layers\n")
	end := strings.Index(doc, "\n## A fire")
	if start < 0 || end < start {
		t.Fatal(`docs/architecture.md has no "## Layers" section followed by "## A fire"`)
	}
	section := doc[start:end]
	// The numbered items of the section, in order, and then the paragraph
	// of the test helpers.
	var items []string
	in := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case numbered.MatchString(line), strings.HasPrefix(line, "Test helpers"):
			items = append(items, line)
			in = true
		case strings.TrimSpace(line) == "":
			in = false
		case in:
			items[len(items)-1] += "\n" + line
		}
	}
	if len(items) != len(layers) {
		t.Fatalf("docs/architecture.md lists %d layers (numbered items and the test helpers); the table has %d", len(items), len(layers))
	}
	for i, l := range layers {
		for _, p := range l.pkgs {
			name := strings.TrimPrefix(p, "internal/")
			if !strings.Contains(items[i], "`"+name+"`") {
				t.Errorf("docs/architecture.md does not name `%s` in layer %d (%s)", name, i+1, l.name)
			}
		}
	}
}
