package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/apitoken"
)

// TestRestoreSuspendedWithSecrets: a backup taken --with-secrets carries
// the daemon's generated token (the file private to its owner), and a
// restore --suspended into a new directory gives a daemon that answers
// the same token and runs none of the restored jobs.
func TestRestoreSuspendedWithSecrets(t *testing.T) {
	t.Parallel()
	bin := almanacBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemonEnv(t, bin, data, nil) // the token is generated into data
	tok, err := apitoken.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := apiclient.New(d.url, apiclient.WithToken(tok))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tick-a", "tick-b"} {
		if _, _, err := c.JobPut(t.Context(), name, apitype.JobSpec{Cron: "* * * * * *", Command: apitype.Command{Argv: []string{"true"}}}); err != nil {
			t.Fatal(err)
		}
	}
	backup := filepath.Join(dir, "backup.db")
	if out, err := exec.Command(bin, "backup", "--with-secrets", "--data", data, backup).CombinedOutput(); err != nil {
		t.Fatalf("backup --with-secrets: %v\n%s", err, out)
	}
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done

	restored := filepath.Join(dir, "restored")
	out, err := exec.Command(bin, "restore", "--suspended", "--data", restored, backup).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "suspended 2 jobs") {
		t.Fatalf("restore --suspended: %v\n%s", err, out)
	}
	if got, err := apitoken.Read(restored); err != nil || got != tok {
		t.Fatalf("restored token = %q, %v; want the backed-up one", got, err)
	}
	d2 := startDaemonEnv(t, bin, restored, nil)
	c2, err := apiclient.New(d2.url, apiclient.WithToken(tok))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c2.JobListAll(t.Context())
	if err != nil || len(jobs) != 2 {
		t.Fatalf("jobs through the same token = %d, %v; want 2", len(jobs), err)
	}
	for _, j := range jobs {
		if !j.Spec.Suspend {
			t.Errorf("job %s is not suspended after restore --suspended", j.Name)
		}
	}
	// Nothing runs: the run count stays where the backup left it.
	before := len(clientRunIDs(t, c2))
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if n := len(clientRunIDs(t, c2)); n != before {
			t.Fatalf("runs went from %d to %d on a daemon restored --suspended", before, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
