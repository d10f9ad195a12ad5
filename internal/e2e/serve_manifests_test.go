package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/manifestjob"
	"github.com/almanac-sh/almanac/internal/store"
)

const siteV1 = `schedule { 'weekend':
  time_zone => 'Europe/Berlin',
  windows   => [{days => ['Sat', 'Sun'], start_time => '00:00', length_minutes => 1440}],
}
job { 'tick':
  cron    => '* * * * *',
  command => 'echo tick v1',
}
job { 'dump':
  cron      => '0 2 * * *',
  time_zone => 'Europe/Berlin',
  command   => ['echo', 'dumped'],
}
job { 'backup':
  cron      => '0 2 * * *',
  time_zone => 'Europe/Berlin',
  command   => 'echo backed up',
  schedule  => 'weekend',
  require   => Job['dump'],
}
`

// siteV2 changes tick's command and removes dump (and backup's need of it).
const siteV2 = `schedule { 'weekend':
  time_zone => 'Europe/Berlin',
  windows   => [{days => ['Sat', 'Sun'], start_time => '00:00', length_minutes => 1440}],
}
job { 'tick':
  cron    => '* * * * *',
  command => 'echo tick v2',
}
job { 'backup':
  cron      => '0 2 * * *',
  time_zone => 'Europe/Berlin',
  command   => 'echo backed up',
  schedule  => 'weekend',
}
`

func replaceManifest(t *testing.T, path, content string) {
	t.Helper()
	// Write beside and rename, as editors and deploy tools do, so the
	// daemon never reads half a file.
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestEndToEndManifestJobs(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	site := filepath.Join(dir, "site.pp")
	replaceManifest(t, site, siteV1)
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	c := d.client(t)
	ctx := context.Background()

	jobs, err := c.JobListAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]apitype.Job{}
	for _, j := range jobs {
		byName[j.Name] = j
	}
	if len(jobs) != 3 || byName["tick"].Source != "manifest" {
		t.Fatalf("jobs after start: %+v", jobs)
	}
	if b := byName["backup"].Spec; b.Gate != "weekend" || strings.Join(b.Require, ",") != "dump" || b.TimeZone != "Europe/Berlin" {
		t.Fatalf("backup spec = %+v", b)
	}
	if got := strings.Join(byName["dump"].Spec.Command.Argv, " "); got != "echo dumped" {
		t.Fatalf("dump argv = %q", got)
	}

	// Manifest jobs are read-only over the API.
	if err := c.JobDelete(ctx, "tick"); err == nil {
		t.Fatal("deleting a manifest job over the API succeeded")
	}

	runLog := func(job, want string) {
		t.Helper()
		id := triggerRun(t, d, bin, job)
		eventually(t, "run of "+job+" finishes", 30*time.Second, func() (bool, error) {
			r, err := c.RunGet(ctx, id)
			return err == nil && r.Finished(), err
		})
		if got := d.cli(t, bin, "logs", strconv.FormatInt(id, 10)); got != want+"\n" {
			t.Fatalf("logs of %s = %q, want %q", job, got, want)
		}
	}
	runLog("tick", "tick v1")

	// Edit: change a command, remove a job. The daemon reloads.
	replaceManifest(t, site, siteV2)
	eventually(t, "daemon reloads the edited manifest", 30*time.Second, func() (bool, error) {
		j, err := c.JobGet(ctx, "tick")
		if err != nil || j.Spec.Command.Shell != "echo tick v2" {
			return false, err
		}
		_, err = c.JobGet(ctx, "dump")
		var ae *apitype.Error
		return errors.As(err, &ae) && ae.Code == apitype.CodeNotFound, err
	})
	if b, err := c.JobGet(ctx, "backup"); err != nil || len(b.Spec.Require) != 0 {
		t.Fatalf("backup after reload = %+v, %v", b.Spec, err)
	}
	runLog("tick", "tick v2")

	// A broken edit is logged with its position and changes nothing.
	replaceManifest(t, site, siteV2+"job { 'broken': cron => 'not cron', command => 'x' }\njob { 'half':\n")
	eventually(t, "daemon logs the broken manifest", 30*time.Second, func() (bool, error) {
		logs := d.logs.String()
		return strings.Contains(logs, "manifests not reloaded") && strings.Contains(logs, site+":"), nil
	})
	jobs, err = c.JobListAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("jobs after a broken edit: %+v", jobs)
	}
	runLog("tick", "tick v2")

	// Fixing it reloads again; the invalid cron is reported at its job.
	replaceManifest(t, site, siteV2+"job { 'broken': cron => 'not cron', command => 'x' }\n")
	eventually(t, "daemon reports the bad cron", 30*time.Second, func() (bool, error) {
		return strings.Contains(d.logs.String(), site+":15:7: Job[broken]: cron: at column 1"), nil
	})
	replaceManifest(t, site, siteV2+"job { 'added': cron => '@hourly', command => 'echo added' }\n"+
		"schedule { 'nights': range => '22:00 - 06:00', time_zone => 'UTC' }\n")
	eventually(t, "daemon loads the fixed manifest", 30*time.Second, func() (bool, error) {
		_, err := c.JobGet(ctx, "added")
		return err == nil, err
	})

	// The windows list follows the reload: the new schedule is there, next
	// to the one loaded at start-up.
	wl, err := c.Windows(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var scheds []string
	for _, w := range wl.Items {
		if w.Kind == "schedule" {
			scheds = append(scheds, w.Name)
		}
	}
	if strings.Join(scheds, ",") != "nights,weekend" {
		t.Errorf("schedules on the windows list after reload: %v", scheds)
	}
}

func TestServeRefusesBadManifests(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	replaceManifest(t, filepath.Join(dir, "a.pp"), "job { 'a': cron => '* * * * *' }\n")
	replaceManifest(t, filepath.Join(dir, "b.pp"), "job { 'b': cron => '* * * * *', command => 'x', require => Job['nope'] }\n")
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--manifests", dir)
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("serve with bad manifests: %v\n%s", err, out)
	}
	for _, want := range []string{
		filepath.Join(dir, "a.pp") + ":1:7: Job[a]: the 'command' attribute is required",
		filepath.Join(dir, "b.pp") + ":1:49: Could not find resource 'Job[nope]' in parameter 'require'",
		"almanac: serve: --manifests " + dir + ": 2 errors",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDaemonExampleManifests(t *testing.T) {
	const dir = "../../examples/manifests/daemon"
	files, err := filepath.Glob(dir + "/*.pp")
	if err != nil || len(files) == 0 {
		t.Fatalf("example manifests: %v %v", files, err)
	}
	if out, errOut, code := runCLI(t, append([]string{"validate"}, files...)...); code != exitOK {
		t.Fatalf("validate: code %d, %q %q", code, out, errOut)
	}
	cat, err := manifestdir.CompileDir(dir, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifestjob.FromCatalog(cat, job.ParseCron)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]store.JobSpec{}
	for _, s := range set.Jobs {
		specs[s.Name] = s
	}
	b := specs["backup"]
	if b.Cron != "0 2 * * *" || b.TimeZone != "Europe/Berlin" || b.Gate != "weekend" || strings.Join(b.Requires, ",") != "dump" {
		t.Fatalf("backup = %+v", b)
	}
	g, ok := set.Gates["weekend"]
	if !ok {
		t.Fatal("no weekend gate")
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if sat, mon := time.Date(2025, 6, 7, 2, 0, 0, 0, berlin), time.Date(2025, 6, 9, 2, 0, 0, 0, berlin); !g.Contains(sat) || g.Contains(mon) {
		t.Errorf("weekend gate: Saturday 02:00 %v, Monday 02:00 %v", g.Contains(sat), g.Contains(mon))
	}
}

// A job whose run_as user does not exist on this host is that job's
// problem: serve --manifests starts with the others, the job is listed
// with a job.unrunnable event, and its runs fail with the reason instead of
// running the command. validate warns about the same job.
func TestServeAcceptsJobWithUnknownRunAs(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	replaceManifest(t, filepath.Join(dir, "site.pp"), `job { 'fine':
  cron    => '0 0 1 1 *',
  command => 'echo fine',
}
job { 'orphan':
  cron    => '0 0 1 1 *',
  command => 'echo should not run',
  run_as  => 'no-such-user-here',
}
`)
	out, err := runBinary(t, bin, nil, "validate", filepath.Join(dir, "site.pp"))
	if err != nil || !strings.Contains(out, `warning: Job[orphan]: run_as: no user "no-such-user-here"`) {
		t.Errorf("validate: %v\n%s", err, out)
	}
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir)
	c := d.client(t)
	ctx := context.Background()
	for _, name := range []string{"fine", "orphan"} {
		if _, err := c.JobGet(ctx, name); err != nil {
			t.Fatalf("job %s: %v", name, err)
		}
	}
	evs, err := c.EventList(ctx, apiclient.EventFilter{Job: "orphan", Kinds: []string{string(store.EventJobUnrunnable)}})
	if err != nil || len(evs.Items) != 1 || !strings.Contains(evs.Items[0].Message, `no user "no-such-user-here"`) {
		t.Fatalf("job.unrunnable events of orphan: %+v, %v", evs.Items, err)
	}
	id := triggerRun(t, d, bin, "orphan")
	var run apitype.Run
	eventually(t, "the orphan's run ends", 30*time.Second, func() (bool, error) {
		run, err = c.RunGet(ctx, id)
		return err == nil && run.Finished(), err
	})
	if run.State != apitype.RunFailed || !strings.Contains(run.Error, "no user") {
		t.Errorf("orphan's run: %s %q; want failed, naming the missing user", run.State, run.Error)
	}
	if logs := d.cli(t, bin, "logs", strconv.FormatInt(id, 10)); strings.Contains(logs, "should not run") {
		t.Errorf("the command ran: %q", logs)
	}
}
