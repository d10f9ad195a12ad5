package main

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestExamplesValid checks every file under examples/ with the command a
// user would run on it: manifests with `almanac validate` (alone, and each
// directory together, the way `serve --manifests DIR` loads it), Zincati
// fragments with `almanac windows` (alone, and each directory as a
// config.d). A file no command checks fails the test, so a new kind of
// example cannot go unchecked.
func TestExamplesValid(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var manifests, fragments []string
	manifestDirs := map[string][]string{} // dir -> every *.pp under it
	fragmentDirs := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		switch filepath.Ext(rel) {
		case ".pp":
			manifests = append(manifests, rel)
			for dir := filepath.Dir(rel); dir != "examples" && dir != "."; dir = filepath.Dir(dir) {
				manifestDirs[dir] = append(manifestDirs[dir], rel)
			}
		case ".toml":
			fragments = append(fragments, rel)
			fragmentDirs[filepath.Dir(rel)] = true
		default:
			t.Errorf("%s: no test checks this kind of example; teach TestExamplesValid about it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(manifests) == 0 || len(fragments) == 0 {
		t.Fatalf("found %d manifests and %d Zincati fragments under examples/", len(manifests), len(fragments))
	}

	summary := regexp.MustCompile(`^[1-9]\d* resources?, \d+ relationships?\n$`)
	validate := func(t *testing.T, files ...string) {
		r := almanac(t, "", nil, append([]string{"validate"}, files...)...)
		if r.code != 0 || r.stderr != "" || !summary.MatchString(r.stdout) {
			t.Errorf("almanac validate %s: want exit 0 and a summary\n%s", strings.Join(files, " "), r)
		}
	}
	for _, f := range manifests {
		t.Run("validate "+f, func(t *testing.T) {
			t.Parallel()
			validate(t, f)
		})
	}
	dirs := make([]string, 0, len(manifestDirs))
	for dir := range manifestDirs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		files := manifestDirs[dir]
		sort.Strings(files)
		t.Run("validate "+dir+" as one catalog", func(t *testing.T) {
			t.Parallel()
			validate(t, files...)
		})
	}

	windows := func(t *testing.T, args ...string) {
		r := almanac(t, "", nil, append([]string{"windows", "--json", "--at", "2026-06-01T00:00:00Z"}, args...)...)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, `"weekly_minutes":`) {
			t.Errorf("almanac windows %s: want exit 0 and a JSON report\n%s", strings.Join(args, " "), r)
		}
	}
	for _, f := range fragments {
		t.Run("windows "+f, func(t *testing.T) {
			t.Parallel()
			windows(t, f)
		})
	}
	for dir := range fragmentDirs {
		t.Run("windows "+dir+" as config.d", func(t *testing.T) {
			t.Parallel()
			windows(t, dir)
		})
	}
}
