package account

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
)

func fakeFiles(t *testing.T) Files {
	dir := t.TempDir()
	passwd := "root:x:0:0:root:/root:/bin/bash\nann:x:1001:1001:Ann:/home/ann:/bin/sh\n"
	group := "root:x:0:\nann:x:1001:\nadm:x:4:ann,bob\nwww:x:33:\nops:x:2000:bob\n"
	f := Files{Passwd: filepath.Join(dir, "passwd"), Group: filepath.Join(dir, "group")}
	if err := os.WriteFile(f.Passwd, []byte(passwd), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Group, []byte(group), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

type recorder struct{ calls []string }

func (r *recorder) run(_ context.Context, argv []string) (string, int, error) {
	r.calls = append(r.calls, strings.Join(argv, " "))
	return "", 0, nil
}

// runCase runs one table case: the provider made by mk over the fake
// databases must make the changes (and run the commands) want describes.
func runCase(t *testing.T, name, typ string, params map[string]any, want string, mk func(Files, *recorder) apply.Provider) {
	t.Run(name, func(t *testing.T) {
		rec := &recorder{}
		changes, err := mk(fakeFiles(t), rec).Changes(context.Background(), &apply.Resource{Type: typ, Title: "x", Params: params}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(t, changes, rec); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// describe syncs every change and reports "property is -> should: message"
// and the commands run.
func describe(t *testing.T, changes []apply.Change, rec *recorder) string {
	t.Helper()
	var out []string
	for _, c := range changes {
		msg, err := c.Sync(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Property+" "+c.Is+" -> "+c.Should+": "+msg)
	}
	return strings.Join(append(out, rec.calls...), "; ")
}

func TestUser(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"create", map[string]any{"name": "new", "uid": int64(1500), "gid": "www", "groups": []any{"adm", "ops"},
			"home": "/srv/new", "shell": "/bin/sh", "managehome": true, "system": true, "comment": "New"},
			"ensure 'absent' -> 'present': created; useradd -u 1500 -g www -d /srv/new -s /bin/sh -c New -G adm,ops -m -r new"},
		{"in sync", map[string]any{"name": "ann", "uid": int64(1001), "gid": "ann", "groups": []any{"adm"}, "shell": "/bin/sh"}, ""},
		{"change", map[string]any{"name": "ann", "uid": "1002", "gid": int64(33), "home": "/srv/ann", "managehome": true, "comment": "Ann B"},
			"uid 1001 -> 1002: uid changed 1001 to 1002; gid 1001 -> 33: gid changed 1001 to 33; " +
				"comment 'Ann' -> 'Ann B': comment changed 'Ann' to 'Ann B'; home '/home/ann' -> '/srv/ann': home changed '/home/ann' to '/srv/ann'; " +
				"usermod -u 1002 ann; usermod -g 33 ann; usermod -c Ann B ann; usermod -d /srv/ann -m ann"},
		{"groups minimum", map[string]any{"name": "ann", "groups": []any{"ops"}},
			"groups 'adm' -> 'adm,ops': groups changed 'adm' to 'adm,ops'; usermod -G adm,ops ann"},
		{"groups inclusive", map[string]any{"name": "ann", "groups": []any{"ops"}, "membership": "inclusive"},
			"groups 'adm' -> 'ops': groups changed 'adm' to 'ops'; usermod -G ops ann"},
		{"remove", map[string]any{"name": "ann", "ensure": "absent", "managehome": true},
			"ensure 'present' -> 'absent': removed; userdel -r ann"},
		{"absent already", map[string]any{"name": "zed", "ensure": "absent"}, ""},
	}
	for _, tt := range tests {
		runCase(t, tt.name, "user", tt.params, tt.want, func(f Files, r *recorder) apply.Provider { return User{Files: f, Run: r.run} })
	}
	_, err := User{Files: fakeFiles(t)}.Changes(context.Background(), &apply.Resource{Type: "user", Title: "ann",
		Params: map[string]any{"name": "ann", "gid": "nogroup-here"}}, nil)
	if err == nil || err.Error() != "Could not find group(s) nogroup-here" {
		t.Fatalf("got %v", err)
	}
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"create", map[string]any{"name": "new", "gid": int64(3000), "allowdupe": true, "system": true},
			"ensure 'absent' -> 'present': created; groupadd -g 3000 -o -r new"},
		{"in sync", map[string]any{"name": "www", "gid": int64(33)}, ""},
		{"gid", map[string]any{"name": "www", "gid": int64(34)}, "gid 33 -> 34: gid changed 33 to 34; groupmod -g 34 www"},
		{"remove", map[string]any{"name": "www", "ensure": "absent"}, "ensure 'present' -> 'absent': removed; groupdel www"},
	}
	for _, tt := range tests {
		runCase(t, tt.name, "group", tt.params, tt.want, func(f Files, r *recorder) apply.Provider { return Group{Files: f, Run: r.run} })
	}
}
