package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(string(b[i+1:]), " Z")
}

// TestEndToEndOrphanedCommandStopped: a run's command outlives a daemon
// killed with SIGKILL; the restarted daemon stops it (its process group,
// recorded at spawn) and records the run as failed, saying so.
func TestEndToEndOrphanedCommandStopped(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	data := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	d := startDaemon(t, bin, data)
	ctx := context.Background()

	d.cli(t, bin, "run", "long", "--schedule", "0 0 1 1 *", "--", "sh", "-c", "echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 300")
	id := triggerRun(t, d, bin, "long")
	c, _ := apiclient.New(d.url, apiclient.WithToken(e2eToken))
	var pid int
	eventually(t, "run is running and its command wrote its pid", 30*time.Second, func() (bool, error) {
		run, err := c.RunGet(ctx, id)
		b, readErr := os.ReadFile(pidFile)
		if readErr == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return err == nil && run.State == apitype.RunRunning && pid > 0, err
	})
	t.Cleanup(func() {
		if processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL) // the test's own `sleep 300`, if the daemon did not stop it
		}
	})

	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.done
	if !processAlive(pid) {
		t.Fatalf("the run's command %d ended with the daemon; nothing to recover", pid)
	}

	d2 := startDaemon(t, bin, data)
	c2, _ := apiclient.New(d2.url, apiclient.WithToken(e2eToken))
	var run apitype.Run
	eventually(t, "interrupted run is recorded after restart", 30*time.Second, func() (bool, error) {
		var err error
		run, err = c2.RunGet(ctx, id)
		return err == nil && run.Finished(), err
	})
	eventually(t, "the orphaned command is gone", 30*time.Second, func() (bool, error) {
		return !processAlive(pid), nil
	})
	if run.State != apitype.RunFailed || !strings.Contains(run.Error, "interrupted") ||
		!strings.Contains(run.Error, fmt.Sprintf("process group %d was stopped with SIGTERM", pid)) {
		t.Fatalf("interrupted run = %+v, want failed, saying its process group %d was stopped", run, pid)
	}
	t.Logf("run error: %s", run.Error)
}
