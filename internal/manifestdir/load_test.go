package manifestdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

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
	cat, files, err := Load(dir)
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
			_, _, err := Load(dir)
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
	if _, _, err := Load(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing dir: err = %v", err)
	}
	write(t, dir, map[string]string{"f.pp": ""})
	if _, _, err := Load(filepath.Join(dir, "f.pp")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: err = %v", err)
	}
	empty := t.TempDir()
	cat, files, err := Load(empty)
	if err != nil || len(files) != 0 || len(cat.Applied()) != 0 {
		t.Errorf("empty dir: %v %v %v", cat, files, err)
	}
}
