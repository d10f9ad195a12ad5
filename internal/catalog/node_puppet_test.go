package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// TestNodesAgainstPuppet applies node definitions with a real Puppet under
// several certnames and checks that almanac picks the same node: an exact
// name (case-insensitively, by a definition's second name), a regular
// expression with its capture, and the default.
func TestNodesAgainstPuppet(t *testing.T) {
	src := `node 'web01.example.com', 'www' { notify { 'picked': message => 'exact' } }
node /^web(\d+)\./ { notify { 'picked': message => "regex $1" } }
node /^web/ { notify { 'picked': message => 'second regex' } }
node default { notify { 'picked': message => 'default' } }
`
	for _, node := range []string{"WWW", "web02.example.com", "db01"} {
		t.Run(node, func(t *testing.T) {
			out := puppetApply(t, t.TempDir(), src, "--noop", "--certname", strings.ToLower(node))
			cat, err := compileFor(t, Options{Node: node}, src)
			if err != nil {
				t.Fatal(err)
			}
			var msg string
			for _, r := range cat.Applied() {
				if r.Type == "notify" {
					msg, _ = r.Params["message"].(string)
				}
			}
			if want := "should be '" + msg + "' (noop)"; msg == "" || !strings.Contains(string(out), want) {
				t.Fatalf("almanac picks %q; puppet says:\n%s", msg, out)
			}
		})
	}
}

// puppetApply runs `puppet apply ARGS` on src in dir (its vardir and
// confdir there too) and returns its output; it fails t if Puppet fails,
// and stops t as testenv does when Puppet is not installed or -short.
func puppetApply(t *testing.T, dir, src string, args ...string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("runs puppet apply (seconds)")
	}
	puppet := testenv.LookPath(t, "puppet (7.23)", "install it with apt-get install puppet (scripts/test.d/puppet.sh)", "puppet")
	pp := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(pp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"apply", "--color=false", "--vardir", filepath.Join(dir, "var"), "--confdir", filepath.Join(dir, "conf")}, args...)
	out, err := exec.Command(puppet, append(argv, pp)...).CombinedOutput()
	if err != nil {
		t.Fatalf("puppet apply: %v\n%s", err, out)
	}
	return out
}
