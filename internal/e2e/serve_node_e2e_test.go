package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/pgtest"
)

// TestServeRefusesDuplicateNode: a second `serve` started with the --node
// name of a live node on the same database exits 1 with one line naming
// the node and the other process's host and pid; the first keeps serving.
func TestServeRefusesDuplicateNode(t *testing.T) {
	bin := almanacBinary(t)
	dbURL := pgtest.Schema(t)
	first := startDaemon(t, bin, t.TempDir(), "--node", "twin", "--store", dbURL)
	host, _ := os.Hostname()

	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--node", "twin", "--store", dbURL)
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("second serve with the same --node still running after 60s\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second serve: %v, want exit status 1\nstderr: %s", err, stderr.String())
	}
	msg := strings.TrimRight(stderr.String(), "\n")
	want := []string{`node "twin"`, "host " + host, fmt.Sprintf("pid %d", first.cmd.Process.Pid)}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal %q does not contain %q", msg, w)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("refusal is not one line: %q", msg)
	}
	select {
	case <-first.done:
		t.Fatalf("the first node exited: %v", first.cmd.ProcessState)
	default:
	}
	first.cli(t, bin, "get", "jobs") // still serving
	t.Logf("refusal: %s", msg)

	// A node killed with SIGKILL and restarted at once on the same host is
	// not refused: its old process is gone, whatever its heartbeat says.
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	again := startDaemon(t, bin, t.TempDir(), "--node", "twin", "--store", dbURL)
	again.cli(t, bin, "get", "jobs")
}
