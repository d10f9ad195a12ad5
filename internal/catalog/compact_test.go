package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// TestRecordSize guards the size of a record, which a catalog of
// hundreds of thousands of resources pays for each.
func TestRecordSize(t *testing.T) {
	if got := unsafe.Sizeof(rec{}); got != 48 {
		t.Errorf("a record takes %d bytes, want 48", got)
	}
	if got := unsafe.Sizeof(edge{}); got != 20 {
		t.Errorf("an edge takes %d bytes, want 20", got)
	}
}

// manifestSets are the manifests of the repository's examples and golden
// tests, each directory of apply cases compiled as one catalog.
func manifestSets(t *testing.T) map[string][]string {
	t.Helper()
	sets := map[string][]string{}
	for _, glob := range []string{"../../examples/manifests/*.pp", "../../testdata/validate/*.pp", "../../testdata/apply/*/*.pp"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			sets[f] = []string{f}
		}
	}
	dirs, err := filepath.Glob("../../testdata/apply/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if files, _ := filepath.Glob(filepath.Join(d, "*.pp")); len(files) > 1 {
			sets[d] = files
		}
	}
	if len(sets) < 30 {
		t.Fatalf("only %d manifests found", len(sets))
	}
	return sets
}

// TestCompileSourcesMatchesCompile: compiling sources statement by
// statement gives the catalog and errors compiling their parsed files does.
func TestCompileSourcesMatchesCompile(t *testing.T) {
	for name, paths := range manifestSets(t) {
		t.Run(name, func(t *testing.T) {
			var files []*manifest.File
			var srcs []Source
			var syntax manifest.ErrorList
			for _, p := range paths {
				text, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				f, err := manifest.ParseFile(p, text)
				if el, ok := err.(manifest.ErrorList); ok {
					syntax = append(syntax, el...)
				}
				files = append(files, f)
				srcs = append(srcs, Source{Name: p, Text: string(text)})
			}
			got, gotErr := CompileSources(Options{Node: "web01"}, srcs...)
			if len(syntax) > 0 {
				syntax.Sort()
				if got != nil || fmt.Sprint(gotErr) != fmt.Sprint(syntax) {
					t.Fatalf("syntax errors: got %v and a catalog %v, want %v", gotErr, got != nil, syntax)
				}
				return
			}
			want, wantErr := CompileWith(Options{Node: "web01"}, files...)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("errors differ:\nCompileSources: %v\nCompileWith: %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(got.Resources(), want.Resources()) {
				t.Errorf("resources differ")
			}
			if !reflect.DeepEqual(got.Containers(), want.Containers()) {
				t.Errorf("containers differ")
			}
			if !reflect.DeepEqual(got.Edges(), want.Edges()) {
				t.Errorf("edges differ:\n%v\n%v", got.Edges(), want.Edges())
			}
			if !reflect.DeepEqual(got.CycleDetails(), want.CycleDetails()) {
				t.Errorf("cycles differ")
			}
		})
	}
}

// TestCatalogViews: the counts and the partial views agree with the
// whole lists, and a resource is built once whichever way it is reached.
func TestCatalogViews(t *testing.T) {
	cat := mustCompile(t, `
class web { service { 'nginx': ensure => running } }
include web
@notify { 'hidden': }
notify { 'shown': require => Service['nginx'] }
file { '/etc/app': ensure => directory, alias => 'appdir' }
file { '/etc/app/conf': ensure => file }
job { 'backup': cron => '0 2 * * *', command => '/usr/bin/backup', before => Job['report'] }
job { 'report': cron => '0 3 * * *', command => '/usr/bin/report' }
Notify['shown'] -> Job['report']
`)
	applied := cat.Applied()
	if n := cat.NumApplied(); n != len(applied) || n != 6 {
		t.Errorf("NumApplied() = %d, Applied() has %d", n, len(applied))
	}
	if n := cat.NumRelationships(); n != len(cat.Relationships()) || n != 4 {
		t.Errorf("NumRelationships() = %d, Relationships() has %d", n, len(cat.Relationships()))
	}
	var jobs []string
	for _, r := range cat.Applied("job", "notify") {
		jobs = append(jobs, r.Ref())
	}
	if want := []string{"Notify[shown]", "Job[backup]", "Job[report]"}; !slices.Equal(jobs, want) {
		t.Errorf("Applied(job, notify) = %q, want %q", jobs, want)
	}
	var rels []string
	for _, e := range cat.RelationshipsWith("job") {
		rels = append(rels, e.From+" "+e.Via+" "+e.To)
	}
	if want := []string{"Job[backup] before Job[report]", "Notify[shown] -> Job[report]"}; !slices.Equal(rels, want) {
		t.Errorf("RelationshipsWith(job) = %q, want %q", rels, want)
	}
	// One Resource per record, however it was first asked for.
	first := cat.Lookup("File[appdir]")
	if first == nil || first != cat.Lookup("File[/etc/app]") {
		t.Fatal("an alias and the title find different resources")
	}
	if !slices.Contains(cat.Resources(), first) || !slices.Contains(cat.Applied(), first) {
		t.Error("Resources() does not hold the resource Lookup returned")
	}
	if p := first.Params["path"]; p != "/etc/app" {
		t.Errorf("the namevar from the title: path = %v", p)
	}
	for _, e := range cat.Edges() {
		if e.Kind == Contain && e.To == "Notify[hidden]" {
			t.Error("an unrealized virtual resource is contained")
		}
	}
}

// TestCycleThroughUnrelatedResource: a cycle that passes through a
// resource no relationship touches (between its container's entry and
// exit) is found, although such resources are left out of the first
// search.
func TestCycleThroughUnrelatedResource(t *testing.T) {
	cat := mustCompile(t, "class a { notify { 'in': } }\ninclude a\nnotify { 'out': }\nClass['a'] -> Notify['out'] -> Class['a']")
	var got []string
	for _, c := range cat.Cycles() {
		got = append(got, strings.Join(c, " "))
	}
	if want := []string{"Class[A] Notify[in] Class[A] Notify[out] Class[A]"}; !slices.Equal(got, want) {
		t.Errorf("cycles\n got  %q\n want %q", got, want)
	}
}

// TestTooManyTypes: records refer to their type by a 16-bit number, so a
// manifest using more types than that is refused with a positioned error.
func TestTooManyTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 65,540 defined types")
	}
	var b strings.Builder
	const n = 65_540
	for i := range n {
		fmt.Fprintf(&b, "define t%d { }\nt%d { 'x': }\n", i, i)
	}
	_, err := compileSrc(t, b.String())
	if err == nil {
		t.Fatal("no error")
	}
	// stage and class take two numbers: the 65,535th defined type is one
	// too many, reported at the title of its resource.
	want := fmt.Sprintf("m.pp:%d:10: too many resource types (more than 65536)", 2*65_534+2)
	if got := strings.SplitN(err.Error(), "\n", 2)[0]; got != want {
		t.Errorf("first error = %q, want %q", got, want)
	}
}
