package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeCronEntry loads a Puppet cron entry from --manifests: it becomes
// a manifest job with the mapped schedule, environment and notify target,
// and runs like any job.
func TestServeCronEntry(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	site := `cron { 'report':
  command     => 'echo "report for $REGION"',
  minute      => [5, 35],
  hour        => '*/2',
  weekday     => 'Sat',
  environment => ['REGION=eu', 'MAILTO=ops@example.com'],
}
cron { 'off': command => 'true', ensure => absent }
`
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	c := d.client(t)
	ctx := context.Background()
	jobs, err := c.JobListAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Name != "report" || jobs[0].Source != "manifest" {
		t.Fatalf("jobs: %+v", jobs)
	}
	spec := jobs[0].Spec
	if spec.Cron != "5,35 */2 * * 6" || spec.Env["REGION"] != "eu" || strings.Join(spec.Notify, ",") != "mailto:ops@example.com" {
		t.Fatalf("spec: %+v", spec)
	}
	id := triggerRun(t, d, bin, "report")
	eventually(t, "run of report finishes", 30*time.Second, func() (bool, error) {
		r, err := c.RunGet(ctx, id)
		return err == nil && r.Finished(), err
	})
	if got := d.cli(t, bin, "logs", strconv.FormatInt(id, 10)); got != "report for eu\n" {
		t.Fatalf("logs = %q", got)
	}
}
