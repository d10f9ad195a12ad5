package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLogsFollow runs a command that prints a line and then waits for the
// test: `almanac logs -f` must show the line while the run is still going,
// then the rest, and end when the run ends.
func TestLogsFollow(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	d := startDaemon(t, bin, t.TempDir())
	release := filepath.Join(t.TempDir(), "release")
	d.cli(t, bin, "run", "talker", "--schedule", "0 0 1 1 *", "--",
		"sh", "-c", "echo first; while [ ! -e "+release+" ]; do sleep 0.05; done; echo second")
	id := triggerRun(t, d, bin, "talker")

	cmd := exec.Command(bin, "logs", "-f", strconv.FormatInt(id, 10))
	cmd.Env = append(os.Environ(), "ALMANAC_SERVER="+d.url, "ALMANAC_TOKEN="+e2eToken)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- cmd.Wait()
	}()
	select {
	case l := <-lines:
		if l != "first" {
			t.Fatalf("first line %q, want first", l)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("logs -f showed nothing while the run was going")
	}
	// The run is still waiting for the release: the line came live.
	if out := d.cli(t, bin, "get", "runs", "--job", "talker"); !strings.Contains(out, "running") {
		t.Fatalf("the run is not running any more:\n%s", out)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if err := <-done; err != nil {
		t.Fatalf("logs -f: %v", err)
	}
	if strings.Join(rest, "\n") != "second" {
		t.Errorf("after the release logs -f printed %q, want second", rest)
	}
}
