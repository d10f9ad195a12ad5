package e2e

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/testenv"
)

// TestRunAs runs `id -u -n` and `id -u` as nobody through a daemon running
// as root, and checks the refusals: an unknown user, bad syntax.
func TestRunAs(t *testing.T) {
	var notRoot error
	if os.Geteuid() != 0 {
		notRoot = fmt.Errorf("this test runs as uid %d", os.Geteuid())
	}
	testenv.Need(t, "root (run_as switches users)", "run the tests as root, as CI does", notRoot)
	nobody, err := user.Lookup("nobody")
	testenv.Need(t, "the user nobody", "add it (adduser --system nobody)", err)
	bin := almanacBinary(t)
	t.Parallel()
	d := startDaemon(t, bin, t.TempDir())
	c := d.client(t)
	d.cli(t, bin, "run", "as-nobody", "--schedule", "0 0 1 1 *", "--run-as", "nobody", "--", "sh", "-c", "id -u; echo $HOME $USER")
	id := triggerRun(t, d, bin, "as-nobody")
	var run apitype.Run
	eventually(t, "the run ends", 30*time.Second, func() (bool, error) {
		run, err = c.RunGet(context.Background(), id)
		return err == nil && run.Finished(), err
	})
	out := d.cli(t, bin, "logs", strconv.FormatInt(id, 10))
	if run.State != apitype.RunSucceeded || !strings.HasPrefix(out, nobody.Uid+"\n") || !strings.Contains(out, nobody.HomeDir+" nobody") {
		t.Errorf("run %s, output %q; want uid %s and nobody's HOME and USER", run.State, out, nobody.Uid)
	}
	if desc := d.cli(t, bin, "describe", "job", "as-nobody"); !strings.Contains(desc, "nobody") {
		t.Errorf("describe does not show run_as:\n%s", desc)
	}
	for _, bad := range []struct{ runAs, want string }{
		{"no-such-user-here", "no user"},
		{"a b", "USER or USER:GROUP"},
		{"nobody:no-such-group", "no group"},
		{"4294967296", "user id 4294967296 is out of range"},
		{"4294967297", "user id 4294967297 is out of range"},
		{"-1", `user "-1" is not a numeric id`},
		{"9223372036854775808", "user id 9223372036854775808 is out of range"},
		{"nobody:4294967296", "group id 4294967296 is out of range"},
		{"nobody:4294967297", "group id 4294967297 is out of range"},
		{"nobody:-1", `group "-1" is not a numeric id`},
		{"nobody:9223372036854775808", "group id 9223372036854775808 is out of range"},
	} {
		out, err := runBinary(t, bin, []string{"ALMANAC_SERVER=" + d.url, "ALMANAC_TOKEN=" + e2eToken},
			"run", "bad", "--schedule", "0 0 1 1 *", "--run-as", bad.runAs, "--", "true")
		if err == nil || !strings.Contains(out, bad.want) || !strings.Contains(out, "run_as") {
			t.Errorf("--run-as %q: %v %s", bad.runAs, err, out)
		}
	}
}
