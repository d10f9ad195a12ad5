package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestDataLockSurvivesLockFileRemoval: the data directory's lock is held
// on the directory itself, so deleting (or replacing) almanac.lock under
// a running daemon lets neither a second daemon nor a restore proceed.
func TestDataLockSurvivesLockFileRemoval(t *testing.T) {
	t.Parallel()
	bin := almanacBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, bin, data)
	backup := filepath.Join(dir, "backup.db")
	if out, err := exec.Command(bin, "backup", "--data", data, backup).CombinedOutput(); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name   string
		tamper func() error
	}{
		{"lock file deleted", func() error { return os.Remove(filepath.Join(data, sqlitestore.LockName)) }},
		{"lock file replaced", func() error {
			return os.WriteFile(filepath.Join(data, sqlitestore.LockName), []byte("1\n"), 0o600)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.tamper(); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "a daemon is using the data directory") {
				t.Errorf("a second serve on the directory: %v\n%s", err, out)
			}
			out, err = exec.Command(bin, "restore", "--data", data, backup).CombinedOutput()
			if err == nil || !strings.Contains(string(out), "a daemon is using the data directory") {
				t.Errorf("restore under the running daemon: %v\n%s", err, out)
			}
			entries, _ := os.ReadDir(data)
			for _, e := range entries {
				if strings.Contains(e.Name(), "before-restore") {
					t.Errorf("restore set %s aside under the running daemon", e.Name())
				}
			}
		})
	}
	// The daemon is unharmed and still answers.
	if resp, err := authGet(d.url + "/api/v1/jobs"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the daemon after the attempts: %v", err)
	} else {
		resp.Body.Close()
	}
}
