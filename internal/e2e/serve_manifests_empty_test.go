package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestServeEmptyManifestDir: serve --manifests accepts an empty directory
// (no manifest jobs yet, as docs/daemon.md says), and loads the jobs of the
// first manifest dropped into it.
func TestServeEmptyManifestDir(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	c := d.client(t)
	if jobs, err := c.JobListAll(context.Background()); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs from an empty directory: %+v, %v", jobs, err)
	}
	replaceManifest(t, filepath.Join(dir, "site.pp"), "job { 'tick': cron => '@hourly', command => 'echo tick' }\n")
	eventually(t, "the first manifest's job is loaded", 60*time.Second, func() (bool, error) {
		jobs, err := c.JobListAll(context.Background())
		return err == nil && len(jobs) == 1 && jobs[0].Name == "tick", err
	})
}
