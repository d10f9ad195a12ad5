package manifestdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

// load is one load of dir as a Watcher takes it: read, compiled, checked
// for cycles.
func load(dir string) (*catalog.Catalog, []string, error) {
	in, err := Read(dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := snapshot(in, catalog.Options{})
	if err != nil {
		return nil, nil, err
	}
	return s.Catalog, s.Files, nil
}

// write creates files (path relative to dir -> content) under dir.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"b.pp":            "notify { 'b': }\n",
		"a.pp":            "notify { 'a': }\n",
		"sub/c.pp":        "notify { 'c': require => Notify['a'] }\n",
		"notes.txt":       "notify { 'not a manifest': }\n",
		".hidden.pp":      "this does not parse\n",
		".git/x.pp":       "nor does this\n",
		"sub/.#editor.pp": "nor this\n",
	})
	cat, files, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.pp"), filepath.Join(dir, "b.pp"), filepath.Join(dir, "sub/c.pp")}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Errorf("files = %v, want %v", files, want)
	}
	var titles []string
	for _, r := range cat.Applied() {
		titles = append(titles, r.Title)
	}
	// Compiled in file order, as one manifest: c may refer to a.
	if got := strings.Join(titles, ","); got != "a,b,c" {
		t.Errorf("resources = %s, want a,b,c", got)
	}
	if len(cat.Relationships()) != 1 {
		t.Errorf("edges = %v, want the one require", cat.Relationships())
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error lines, in order
	}{
		{
			name: "parse errors in two files, all reported with positions",
			files: map[string]string{
				"a.pp": "notify { 'a': \n",
				"b.pp": "notify { 'b': message => }\n",
			},
			want: []string{"a.pp:", "b.pp:1:"},
		},
		{
			name:  "compile error",
			files: map[string]string{"a.pp": "notify { 'a': require => Notify['nope'] }\n"},
			want:  []string{"a.pp:1:15: Could not find resource 'Notify[nope]' in parameter 'require'"},
		},
		{
			name:  "duplicate across files",
			files: map[string]string{"a.pp": "notify { 'x': }\n", "b.pp": "notify { 'x': }\n"},
			want:  []string{"b.pp:1:10: "},
		},
		{
			name: "cycle",
			files: map[string]string{"a.pp": "notify { 'a': require => Notify['b'] }\n" +
				"notify { 'b': require => Notify['a'] }\n"},
			want: []string{"a.pp:", "Found dependency cycle: (Notify[a] => Notify[b] => Notify[a])"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tt.files)
			_, _, err := load(dir)
			var el manifest.ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("err = %v, want a manifest.ErrorList", err)
			}
			msg := err.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error\n%s\ndoes not contain %q (in order)", msg, w)
				}
				at += i + len(w)
			}
			for _, e := range el {
				if !e.Pos.IsValid() || !strings.HasPrefix(e.Error(), dir) {
					t.Errorf("error %q has no file:line:col", e.Error())
				}
			}
		})
	}
}

func TestLoadDirProblems(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := load(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing dir: err = %v", err)
	}
	write(t, dir, map[string]string{"f.pp": ""})
	if _, _, err := load(filepath.Join(dir, "f.pp")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: err = %v", err)
	}
	empty := t.TempDir()
	cat, files, err := load(empty)
	if err != nil || len(files) != 0 || len(cat.Applied()) != 0 {
		t.Errorf("empty dir: %v %v %v", cat, files, err)
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"b.pp":   "notify { 'b': }\n",
		"a.pp":   "notify { 'a': require => Notify['b'] }\n",
		"bin.pp": "notify { 'x': }\n\x00\x01",
	})
	a, b := filepath.Join(dir, "a.pp"), filepath.Join(dir, "b.pp")
	t.Run("in the order given, as one manifest", func(t *testing.T) {
		in, err := ReadFiles([]string{b, a})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(in.Files, ","); got != b+","+a {
			t.Errorf("files = %s", got)
		}
		cat, err := Compile(in, catalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, r := range cat.Applied() {
			titles = append(titles, r.Title)
		}
		if got := strings.Join(titles, ","); got != "b,a" {
			t.Errorf("resources = %s, want b,a", got)
		}
	})
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing file named with its reason", []string{a, filepath.Join(dir, "nope.pp")}, filepath.Join(dir, "nope.pp") + ": no such file or directory"},
		{"a directory", []string{dir}, dir + ": not a regular file"},
		{"binary file with the line of its NUL", []string{filepath.Join(dir, "bin.pp")}, filepath.Join(dir, "bin.pp") + ":2: NUL byte: a binary file, not a manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFiles(tt.paths)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to start %q", err, tt.want)
			}
		})
	}
}

func TestCompileLeavesCyclesToCycles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': require => Notify['b'] }\nnotify { 'b': require => Notify['a'] }\n"})
	cat, err := CompileDir(dir, catalog.Options{})
	if err != nil {
		t.Fatalf("CompileDir: %v, want the catalog (cycles are Cycles' to report)", err)
	}
	el := Cycles(cat)
	if len(el) != 1 || !strings.HasPrefix(el[0].Error(), filepath.Join(dir, "a.pp")+":") {
		t.Errorf("Cycles = %v, want one cycle in a.pp", el)
	}
}

// A poll hashes the directory without reading it into memory; its hash
// must be Read's, or every poll would read and compare the whole
// directory again.
func TestScanHashesAsReadDoes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': }\n", "sub/b.pp": strings.Repeat("# filler\n", 20000), "c.txt": "not a manifest"})
	in, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	hash, digests, err := scan(dir, make([]byte, 512))
	if err != nil {
		t.Fatal(err)
	}
	if hash != in.Hash {
		t.Errorf("scan hash %s, Read hash %s", hash, in.Hash)
	}
	if len(digests) != 2 || digests[filepath.Join(dir, "a.pp")] != in.digests()[filepath.Join(dir, "a.pp")] {
		t.Errorf("digests = %v, want Read's %v", digests, in.digests())
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d.pp"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := scan(dir, make([]byte, 512)); !errors.Is(err, errRead) {
		t.Errorf("scan of a FIFO named .pp: err = %v, want errRead (Read reports it)", err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Read of a FIFO named .pp: err = %v", err)
	}
}
