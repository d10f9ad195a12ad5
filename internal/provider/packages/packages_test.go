package packages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
)

func TestParseDpkg(t *testing.T) {
	tests := []struct{ out, want string }{
		{"install ok installed hello 2.10-3\n", "2.10-3"},
		{"deinstall ok config-files hello 2.10-3\n", "absent"},
		{"unknown ok not-installed hello \n", "purged"},
		{"install ok half-installed hello 2.10-3\n", "absent"},
		{"install ok installed hello:amd64 2.10-3\n", "2.10-3"},
		{"install ok installed other 1.0\n", "purged"},
		{"garbage", "purged"},
	}
	for _, tt := range tests {
		if got := parseDpkg(tt.out, "hello").Ensure; got != tt.want {
			t.Errorf("parseDpkg(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestSelect(t *testing.T) {
	has := func(cmds ...string) func(string) (string, error) {
		return func(c string) (string, error) {
			for _, x := range cmds {
				if x == c {
					return "/usr/bin/" + c, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	tests := []struct {
		family string
		look   func(string) (string, error)
		want   string
	}{
		{"Debian", has(), "apt"},
		{"RedHat", has("dnf", "yum"), "dnf"},
		{"RedHat", has("yum"), "yum"},
		{"Suse", has(), "error"},
	}
	for _, tt := range tests {
		m, err := Select(tt.family, nil, tt.look)
		got := "error"
		if err == nil {
			got = m.Name()
		}
		if got != tt.want {
			t.Errorf("Select(%s) = %s (%v), want %s", tt.family, got, err, tt.want)
		}
	}
}

// fakeTools answers like dpkg-query/rpm for one package at version ver
// ("" when not installed) and records every other command.
type fakeTools struct {
	ver   string
	calls []string
}

func (f *fakeTools) run(_ context.Context, argv []string) (string, int, error) {
	switch argv[0] {
	case "dpkg-query":
		if f.ver == "" {
			return "dpkg-query: no packages found matching hello\n", 1, nil
		}
		return "install ok installed hello " + f.ver + "\n", 0, nil
	case "rpm":
		if f.ver == "" {
			return "package hello is not installed\n", 1, nil
		}
		return "hello " + f.ver + "\n", 0, nil
	case "apt-cache":
		return "hello:\n  Installed: (none)\n  Candidate: 2.10-3\n", 0, nil
	}
	f.calls = append(f.calls, strings.Join(argv, " "))
	return "", 0, nil
}

func TestChanges(t *testing.T) {
	tests := []struct {
		name, family, ver string
		params            map[string]any
		want              string // property: is -> should: message; then the commands run
	}{
		{"install", "Debian", "", map[string]any{"ensure": "installed"},
			"ensure: 'purged' -> 'present': created; apt-get -q -y install hello"},
		{"installed", "Debian", "2.10-3", map[string]any{}, ""},
		{"remove", "Debian", "2.10-3", map[string]any{"ensure": "absent"},
			"ensure: '2.10-3' -> 'absent': removed; apt-get -y -q remove hello"},
		{"purge", "Debian", "2.10-3", map[string]any{"ensure": "purged", "uninstall_options": []any{"--auto-remove"}},
			"ensure: '2.10-3' -> 'purged': purged; apt-get -y -q --auto-remove remove --purge hello; dpkg --purge hello"},
		{"version", "Debian", "2.10-2", map[string]any{"ensure": "2.10-3"},
			"ensure: '2.10-2' -> '2.10-3': ensure changed '2.10-2' to '2.10-3'; apt-get -q -y --allow-downgrades install hello=2.10-3"},
		{"latest", "Debian", "2.10-2", map[string]any{"ensure": "latest"},
			"ensure: '2.10-2' -> '2.10-3': ensure changed '2.10-2' to '2.10-3'; apt-get -q -y install hello"},
		{"latest installed", "Debian", "2.10-3", map[string]any{"ensure": "latest"}, ""},
		{"dnf by provider", "Debian", "", map[string]any{"provider": "dnf", "ensure": "1.0-1.el9"},
			"ensure: 'purged' -> '1.0-1.el9': created; dnf -d 0 -e 0 -y install hello-1.0-1.el9"},
		{"yum remove", "RedHat", "1.0-1", map[string]any{"provider": "yum", "ensure": "absent"},
			"ensure: '1.0-1' -> 'absent': removed; yum -d 0 -e 0 -y remove hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := &fakeTools{ver: tt.ver}
			p := Provider{Family: tt.family, Run: tools.run}
			tt.params["name"] = "hello"
			changes, err := p.Changes(context.Background(), &apply.Resource{Type: "package", Title: "hello", Params: tt.params}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				msg, err := c.Sync(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, c.Property+": "+c.Is+" -> "+c.Should+": "+msg)
			}
			got = append(got, tools.calls...)
			if s := strings.Join(got, "; "); s != tt.want && !(tt.want == "" && len(changes) == 0) {
				t.Fatalf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

func TestFailure(t *testing.T) {
	run := func(_ context.Context, argv []string) (string, int, error) {
		if argv[0] == "dpkg-query" {
			return "", 1, nil
		}
		return "E: Unable to locate package nope\n", 100, nil
	}
	changes, err := Provider{Family: "Debian", Run: run}.Changes(context.Background(), &apply.Resource{Type: "package", Title: "nope", Params: map[string]any{}}, nil)
	if err != nil || len(changes) != 1 {
		t.Fatal(changes, err)
	}
	_, err = changes[0].Sync(context.Background(), nil)
	if err == nil || err.Error() != "Execution of 'apt-get -q -y install nope' returned 100: E: Unable to locate package nope" {
		t.Fatalf("got %v", err)
	}
}
