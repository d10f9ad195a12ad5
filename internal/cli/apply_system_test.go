package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/facts"
	"github.com/almanac-sh/almanac/internal/testenv"
)

// needRoot stops a test that changes the system's packages or accounts
// unless it runs as root.
func needRoot(t *testing.T, what string) {
	t.Helper()
	var notRoot error
	if os.Geteuid() != 0 {
		notRoot = fmt.Errorf("this test runs as uid %d", os.Geteuid())
	}
	testenv.Need(t, "root ("+what+")", "run the tests as root, as CI does", notRoot)
}

// applyStep is one `almanac apply` of a manifest and what it must print
// and exit with (--detailed-exitcodes).
type applyStep struct {
	name string
	src  string
	args []string
	code int
	want []string // lines stdout must contain
}

func runApplySteps(t *testing.T, steps []applyStep) {
	t.Helper()
	for _, s := range steps {
		pp, _ := applyManifest(t, s.src)
		out, errOut, code := runCLI(t, append(append([]string{"apply", "--detailed-exitcodes"}, s.args...), pp)...)
		if code != s.code {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", s.name, code, s.code, out, errOut)
		}
		for _, w := range s.want {
			if !strings.Contains(out, w+"\n") {
				t.Fatalf("%s: stdout lacks %q:\n%s\nstderr:\n%s", s.name, w, out, errOut)
			}
		}
	}
}

// TestApplyPackage installs and removes Debian's hello package for real.
func TestApplyPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("installs a package (seconds)")
	}
	needRoot(t, "apt-get installs packages")
	testenv.LookPath(t, "apt-get and dpkg-query", "a Debian host", "apt-get")
	testenv.LookPath(t, "dpkg-query", "a Debian host", "dpkg-query")
	out, _ := exec.Command("apt-cache", "policy", "hello").Output()
	var noCandidate error
	if !strings.Contains(string(out), "Candidate:") || strings.Contains(string(out), "Candidate: (none)") {
		noCandidate = fmt.Errorf("apt-cache policy hello names no candidate")
	}
	testenv.Need(t, "Debian's package lists", "run apt-get update (scripts/test.d/apt.sh)", noCandidate)
	if facts.Gather(facts.Host{})["os"].(map[string]any)["family"] != "Debian" {
		t.Fatal("a host with apt-get and dpkg-query is not of the Debian family")
	}
	_ = exec.Command("apt-get", "-y", "-q", "remove", "--purge", "hello").Run()
	t.Cleanup(func() { _ = exec.Command("apt-get", "-y", "-q", "remove", "--purge", "hello").Run() })
	runApplySteps(t, []applyStep{
		{"noop install", "package { 'hello': }", []string{"--noop"}, 0,
			[]string{"Notice: Package[hello]/ensure: current_value 'purged', should be 'present' (noop)"}},
		{"install", "package { 'hello': ensure => installed }", nil, 2, []string{"Notice: Package[hello]/ensure: created"}},
		{"installed again", "package { 'hello': ensure => present }", nil, 0,
			[]string{"Notice: Summary: 1 resource, 0 changed, 0 failed, 0 skipped, 0 refreshed"}},
		{"latest is installed", "package { 'hello': ensure => latest }", nil, 0,
			[]string{"Notice: Summary: 1 resource, 0 changed, 0 failed, 0 skipped, 0 refreshed"}},
		{"remove", "package { 'hello': ensure => absent }", nil, 2, []string{"Notice: Package[hello]/ensure: removed"}},
		{"removed again", "package { 'hello': ensure => absent }", nil, 0,
			[]string{"Notice: Summary: 1 resource, 0 changed, 0 failed, 0 skipped, 0 refreshed"}},
		{"an unknown package fails", "package { 'almanac-no-such-package': }", nil, 4,
			[]string{"Notice: Summary: 1 resource, 0 changed, 1 failed, 0 skipped, 0 refreshed"}},
	})
}

// throwaway is a user or group name no one else uses.
func throwaway(t *testing.T) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "alm-test-" + hex.EncodeToString(b[:])
}

// TestApplyUserAndGroup creates, changes and removes a throwaway group
// and user with the shadow utilities.
func TestApplyUserAndGroup(t *testing.T) {
	needRoot(t, "useradd creates accounts")
	testenv.LookPath(t, "the shadow utilities", "apt-get install passwd", "useradd")
	g, u := throwaway(t), throwaway(t)
	home := t.TempDir() + "/home"
	t.Cleanup(func() {
		_ = exec.Command("userdel", u).Run()
		_ = exec.Command("groupdel", g).Run()
	})
	present := fmt.Sprintf(`group { '%[1]s': ensure => present, system => true }
user { '%[2]s': ensure => present, gid => '%[1]s', groups => ['%[1]s'], home => '%[3]s', managehome => true, shell => '/bin/sh', comment => 'almanac test' }
Group['%[1]s'] -> User['%[2]s']`, g, u, home)
	runApplySteps(t, []applyStep{
		{"noop", present, []string{"--noop"}, 0, []string{
			fmt.Sprintf("Notice: Group[%s]/ensure: current_value 'absent', should be 'present' (noop)", g)}},
		{"create", present, nil, 2, []string{
			fmt.Sprintf("Notice: Group[%s]/ensure: created", g), fmt.Sprintf("Notice: User[%s]/ensure: created", u)}},
		{"again", present, nil, 0, []string{"Notice: Summary: 2 resources, 0 changed, 0 failed, 0 skipped, 0 refreshed"}},
		{"change", strings.Replace(present, "/bin/sh", "/bin/bash", 1), nil, 2, []string{
			fmt.Sprintf("Notice: User[%s]/shell: shell changed '/bin/sh' to '/bin/bash'", u)}},
	})
	acct, err := user.Lookup(u)
	if err != nil {
		t.Fatal(err)
	}
	grp, err := user.LookupGroup(g)
	if err != nil {
		t.Fatal(err)
	}
	if acct.Gid != grp.Gid || acct.HomeDir != home || acct.Name != "almanac test" {
		t.Fatalf("user %+v, group %+v", acct, grp)
	}
	if st, err := os.Stat(home); err != nil || !st.IsDir() {
		t.Fatalf("managehome did not create %s: %v", home, err)
	}
	runApplySteps(t, []applyStep{
		{"remove", fmt.Sprintf("user { '%s': ensure => absent, managehome => true } -> group { '%s': ensure => absent }", u, g), nil, 2, []string{
			fmt.Sprintf("Notice: User[%s]/ensure: removed", u), fmt.Sprintf("Notice: Group[%s]/ensure: removed", g)}},
		{"removed again", fmt.Sprintf("user { '%s': ensure => absent } group { '%s': ensure => absent }", u, g), nil, 0, []string{
			"Notice: Summary: 2 resources, 0 changed, 0 failed, 0 skipped, 0 refreshed"}},
	})
	if _, err := user.Lookup(u); err == nil {
		t.Fatalf("user %s still exists", u)
	}
	if _, err := os.Stat(home); err == nil {
		t.Fatalf("managehome did not remove %s", home)
	}
}

// TestApplyNodesAndFacts picks node definitions by --node and by the host
// name, and tests the host's facts.
func TestApplyNodesAndFacts(t *testing.T) {
	certname, f := facts.Local()
	osf := f["os"].(map[string]any)
	src := `node 'web01.example.com' { notify { 'web': } }
node /^db\d+$/ { notify { "db $0": } }
node default { notify { 'default': } }
notify { "family ${facts['os']['family']} ${facts['networking']['fqdn']}": }
`
	runApplySteps(t, []applyStep{
		{"exact", src, []string{"--node", "WEB01.example.com"}, 2, []string{"Notice: web"}},
		{"regex", src, []string{"--node", "db7"}, 2, []string{"Notice: db db7"}},
		{"default", src, []string{"--node", "other"}, 2, []string{"Notice: default"}},
		{"this host", strings.Replace(src, "web01.example.com", certname, 1), nil, 2, []string{
			"Notice: web", fmt.Sprintf("Notice: family %s %s", osf["family"], certname)}},
	})
	pp, _ := applyManifest(t, "node 'a' { }")
	if _, errOut, code := runCLI(t, "validate", "--node", "b", pp); code != 1 ||
		!strings.Contains(errOut, "Could not find node statement with name 'default' or 'b'") {
		t.Fatalf("validate --node b: exit %d, stderr %s", code, errOut)
	}
}
