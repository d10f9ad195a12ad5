package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifestdir"
)

// The demo manifest compiles with its data directory spliced in, whatever
// characters the directory's path holds, and every file it manages lies
// under that directory.
func TestWriteDemoManifests(t *testing.T) {
	for _, tc := range []struct{ name, sub string }{
		{"plain", "data"},
		{"quote and backslash", `it's a \ data dir`},
		{"dollar and braces", "${x} $y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), tc.sub)
			dir, err := writeDemoManifests(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(data, demoManifestDir); dir != want {
				t.Errorf("dir = %s, want %s", dir, want)
			}
			cat, err := manifestdir.CompileDir(dir, catalog.Options{})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			motd := filepath.Join(data, "demo-agent", "motd")
			for _, ref := range []string{"File[" + motd + "]", "File[" + filepath.Dir(motd) + "]", "Schedule[demo-midday]", "Job[demo-midday-report]", "Exec[demo-reload]"} {
				if cat.Lookup(ref) == nil {
					t.Errorf("catalog lacks %s", ref)
				}
			}
			for _, r := range cat.Applied() {
				if r.Type != "file" {
					continue
				}
				if p, _ := r.Params["path"].(string); filepath.Dir(p) != data && filepath.Dir(p) != filepath.Dir(motd) {
					t.Errorf("File[%s] lies outside the data directory %s", p, data)
				}
			}
		})
	}
}

// A second start leaves identical files alone (the watcher sees no change)
// and restores an edited one.
func TestWriteDemoManifestsRewrites(t *testing.T) {
	data := t.TempDir()
	dir, err := writeDemoManifests(data)
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site.pp")
	before, err := os.Stat(site)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeDemoManifests(data); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(site); !os.SameFile(before, after) {
		t.Error("an unchanged demo manifest was rewritten")
	}
	if err := os.WriteFile(site, []byte("notify { 'edited': }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeDemoManifests(data); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(site); string(b) != string(demoAgentManifest) {
		t.Error("an edited demo manifest was not restored")
	}
}
