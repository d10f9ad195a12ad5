package daemon

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// demoAgentManifest is the manifest `serve --demo` runs agent mode on when
// --manifests is not given: notify, file, exec, a schedule gate, a refresh
// and a gated job, all confined to the data directory.
//
//go:embed demo/agent.pp
var demoAgentManifest []byte

// demoManifestDir is where, under --data, the demo manifest is written.
const demoManifestDir = "demo-manifests"

// writeDemoManifests writes the demo manifest into <data>/demo-manifests
// and returns that directory, for agent mode and its jobs to read like any
// --manifests directory. data.pp sets $almanac_data to the data directory's
// absolute path, so the manifest's files land there and nowhere else. Both
// files are rewritten at every start; bytes equal to the previous ones are
// no change to the watcher.
func writeDemoManifests(data string) (string, error) {
	abs, err := filepath.Abs(data)
	if err != nil {
		return "", fmt.Errorf("demo manifests: %w", err)
	}
	dir := filepath.Join(abs, demoManifestDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("demo manifests: %w", err)
	}
	params := "# Written by `almanac serve --demo`: the daemon's --data directory.\n" +
		"$almanac_data = " + puppetQuote(abs) + "\n"
	for _, f := range []struct {
		name string
		body []byte
	}{{"data.pp", []byte(params)}, {"site.pp", demoAgentManifest}} {
		if err := writeIfChanged(filepath.Join(dir, f.name), f.body); err != nil {
			return "", fmt.Errorf("demo manifests: %w", err)
		}
	}
	return dir, nil
}

// puppetQuote is s as a single-quoted manifest string.
func puppetQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// writeIfChanged writes body to path unless it already holds exactly that,
// through a temporary file renamed over it so a reader never sees half.
func writeIfChanged(path string, body []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(body) {
		return nil
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
