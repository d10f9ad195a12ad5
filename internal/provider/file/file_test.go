package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
)

var nolog = apply.LoggerFunc(func(apply.Level, string, string) {})

func res(path string, kv ...any) *apply.Resource {
	r := &apply.Resource{Type: "file", Title: path, Params: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Params[kv[i].(string)] = kv[i+1]
	}
	return r
}

// apply syncs every change and returns "prop: message" lines.
func sync(t *testing.T, r *apply.Resource) []string {
	t.Helper()
	changes, err := Provider{}.Changes(context.Background(), r, nolog)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range changes {
		msg, err := c.Sync(context.Background(), nolog)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Property+": "+msg)
	}
	return out
}

func TestFileLifecycle(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	// Messages as Puppet 7.23 printed them for the same changes.
	steps := []struct {
		r    *apply.Resource
		want string
	}{
		{res(p, "ensure", "file", "content", "x\n", "mode", "0600"), "ensure: defined content as '{sha256}73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac'"},
		{res(p, "ensure", "file", "content", "x\n", "mode", "0600"), ""},
		{res(p, "content", "y\n", "mode", "0640"), "content: content changed '{sha256}73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac' to '" + sum([]byte("y\n")) + "'|mode: mode changed '0600' to '0640'"},
		{res(p, "ensure", "absent"), "ensure: removed"},
		{res(p, "ensure", "absent"), ""},
		{res(p, "ensure", "present"), "ensure: created"},
		{res(filepath.Join(dir, "d"), "ensure", "directory"), "ensure: created"},
		{res(filepath.Join(dir, "l"), "ensure", "link", "target", p), "ensure: created"},
		{res(filepath.Join(dir, "l"), "ensure", "link", "target", "/elsewhere"), "target: target changed '" + p + "' to '/elsewhere'"},
	}
	for i, s := range steps {
		got := strings.Join(sync(t, s.r), "|")
		if got != s.want {
			t.Fatalf("step %d: got %q want %q", i, got, s.want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "d")); err != nil || !fi.IsDir() {
		t.Fatal("directory missing")
	}
	if tgt, _ := os.Readlink(filepath.Join(dir, "l")); tgt != "/elsewhere" {
		t.Fatalf("link -> %s", tgt)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestFileNoopDescribesChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gone")
	os.WriteFile(p, nil, 0o644)
	ch, err := Provider{}.Changes(context.Background(), res(p, "ensure", "absent"), nolog)
	if err != nil || len(ch) != 1 || ch[0].Is != "'file'" || ch[0].Should != "'absent'" {
		t.Fatalf("%+v %v", ch, err)
	}
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []*apply.Resource{
		res("relative/path"),
		res(filepath.Join(dir, "x"), "mode", "99"),
		res(filepath.Join(dir, "x"), "ensure", "sideways"),
		res(filepath.Join(dir, "x"), "ensure", "link"),
		res(dir, "ensure", "file"),
	} {
		if _, err := (Provider{}).Changes(context.Background(), r, nolog); err == nil {
			t.Errorf("%s %v: no error", r.Title, r.Params)
		}
	}
}
