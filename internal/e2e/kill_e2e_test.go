package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TestKillEndsARunAsKilled starts a run that would sleep for a long time,
// kills it with `almanac kill`, and checks that it ends as killed and that
// its process is gone; then the refusals.
func TestKillEndsARunAsKilled(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	d := startDaemon(t, bin, t.TempDir())
	c := d.client(t)
	ctx := context.Background()
	pidFile := filepath.Join(t.TempDir(), "pid")
	d.cli(t, bin, "run", "sleeper", "--schedule", "0 0 1 1 *", "--", "sh", "-c", "echo $$ > "+pidFile+"; exec sleep 1000")
	id := triggerRun(t, d, bin, "sleeper")
	var pid int
	eventually(t, "the sleeper runs", 30*time.Second, func() (bool, error) {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false, nil
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0, nil
	})

	if out := d.cli(t, bin, "kill", strconv.FormatInt(id, 10)); !strings.Contains(out, "kill requested") {
		t.Errorf("kill output %q", out)
	}
	var run apitype.Run
	eventually(t, "the run ends", 30*time.Second, func() (bool, error) {
		var err error
		run, err = c.RunGet(ctx, id)
		return err == nil && run.Finished(), err
	})
	if run.State != apitype.RunKilled {
		t.Errorf("run ended %s, want killed", run.State)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the run's process %d is still there after kill (%v)", pid, err)
	}

	// Killing it again, or a job with no active run, is refused.
	refused := func(args ...string) string {
		t.Helper()
		out, err := runBinary(t, bin, []string{"ALMANAC_SERVER=" + d.url, "ALMANAC_TOKEN=" + e2eToken}, args...)
		if err == nil {
			t.Errorf("almanac %v succeeded: %s", args, out)
		}
		return out
	}
	if out := refused("kill", strconv.FormatInt(id, 10)); !strings.Contains(out, "already ended") {
		t.Errorf("second kill: %s", out)
	}
	if out := refused("kill", "sleeper"); !strings.Contains(out, "no active runs") {
		t.Errorf("kill of an idle job: %s", out)
	}
	if out := refused("kill", "999999"); !strings.Contains(out, "not found") {
		t.Errorf("kill of an unknown run: %s", out)
	}
}
