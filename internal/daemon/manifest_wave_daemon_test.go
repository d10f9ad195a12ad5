package daemon_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// TestManifestReloadKeepsWavePause: an operator's wave pause on a
// manifest job survives the manifests' next reload, which rewrites the
// job's spec.
func TestManifestReloadKeepsWavePause(t *testing.T) {
	dir := t.TempDir()
	write := func(cmd string) {
		t.Helper()
		src := "job { 'patch': cron => '0 3 * * *', command => '" + cmd + "', nodes => 'all', max_parallel => 1 }\n"
		if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("echo one")
	ctx := t.Context()
	c := daemontest.Start(t, daemontest.Options{Args: []string{"--node", "solo", "--manifests", dir}}).Client
	if _, err := c.WavePause(ctx, "patch"); err != nil {
		t.Fatal(err)
	}
	write("echo two")
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := c.JobGet(ctx, "patch")
		if err != nil {
			t.Fatal(err)
		}
		if j.Spec.Command.String() == "echo two" {
			if !j.Spec.WavePaused {
				t.Fatal("the manifest reload resumed the paused waves")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manifest change was not applied: command %q", j.Spec.Command.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRebootGroupMustExist: a job may take slots only of a configured
// reboot group; the API refuses another name on the reboot_group field.
func TestRebootGroupMustExist(t *testing.T) {
	ctx := t.Context()
	c := daemontest.Start(t, daemontest.Options{Args: []string{"--node", "solo", "--reboot-group", "db=1"}}).Client
	for _, tt := range []struct{ group, want string }{
		{"db", ""},
		{"web", `reboot_group: no reboot group "web" is configured`},
	} {
		spec := apitype.JobSpec{Cron: "0 3 * * *", Command: apitype.Command{Shell: "true"}, Nodes: "all", RebootGroup: tt.group}
		_, _, err := c.JobPut(ctx, "patch-"+tt.group, spec)
		var ae *apitype.Error
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("group %s: %v", tt.group, err)
		case tt.want != "" && (!errors.As(err, &ae) || ae.Code != apitype.CodeInvalid || ae.Field != "reboot_group" || !strings.Contains(ae.Field+": "+ae.Message, tt.want) || !strings.Contains(ae.Message, "known groups: db")):
			t.Errorf("group %s: err = %v, want a 422 on reboot_group saying %q and listing db", tt.group, err, tt.want)
		}
	}
}
