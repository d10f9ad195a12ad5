package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

// runIDs lists the ids of every run the daemon at url recorded.
func runIDs(t *testing.T, url string) map[int64]bool {
	t.Helper()
	c, err := apiclient.New(url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	return clientRunIDs(t, c)
}

// clientRunIDs lists the ids of every run c's daemon recorded.
func clientRunIDs(t *testing.T, c *apiclient.Client) map[int64]bool {
	t.Helper()
	ids := map[int64]bool{}
	page := ""
	for {
		p, err := c.RunList(t.Context(), apiclient.RunFilter{Page: page, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Items {
			ids[r.ID] = true
		}
		if p.NextPage == "" {
			return ids
		}
		page = p.NextPage
	}
}

// TestBackupUnderLoadRestore backs up a daemon's store while per-second
// jobs write to it, then restores the backup into a new directory, which
// `restore` refuses while a daemon runs there, starts a daemon on it and
// finds every run recorded before the backup.
func TestBackupUnderLoadRestore(t *testing.T) {
	t.Parallel()
	bin := almanacBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, bin, data)
	for _, name := range []string{"tick-a", "tick-b", "tick-c"} {
		d.cli(t, bin, "run", name, "--schedule", "@every 1s", "--", "echo", name)
	}
	var before map[int64]bool
	eventually(t, "runs recorded", 60*time.Second, func() (bool, error) {
		before = runIDs(t, d.url)
		return len(before) >= 6, nil
	})
	backup := filepath.Join(dir, "backup.db")
	out, err := exec.Command(bin, "backup", "--data", data, backup).CombinedOutput()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	// The daemon keeps writing: the backup was taken under load.
	eventually(t, "more runs after the backup", 60*time.Second, func() (bool, error) {
		return len(runIDs(t, d.url)) > len(before)+3, nil
	})
	if out, err := exec.Command(bin, "backup", "--data", data, backup).CombinedOutput(); err == nil || !strings.Contains(string(out), "exists") {
		t.Errorf("a second backup onto the same file: %v %s", err, out)
	}

	// restore refuses to replace the data of a running daemon.
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "restore", "--data", data, backup)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "a daemon is using the data directory") {
		t.Fatalf("restore over a running daemon: %v %q", err, stderr.String())
	}

	restored := filepath.Join(dir, "restored")
	if out, err := exec.Command(bin, "restore", "--data", restored, backup).CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	d2 := startDaemon(t, bin, restored)
	after := runIDs(t, d2.url)
	for id := range before {
		if !after[id] {
			t.Errorf("run %d, recorded before the backup, is missing after the restore", id)
		}
	}
	c, err := apiclient.New(d2.url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.JobListAll(t.Context())
	if err != nil || len(jobs) != 3 {
		t.Errorf("restored jobs = %d, %v; want 3", len(jobs), err)
	}
}
