package kubeexec_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/cli"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/kubetest"
)

// These tests run the daemon in-process with serve's flags and
// --kubeconfig pointing at the shared control plane: jobs go in through
// the API, and what the cluster holds is read with a client of its own.

const token = "kube-test-token-0123456789abcdef"

// offsetClock is the real clock shifted by d: the daemon's "now" placed
// just before a window opens.
type offsetClock struct{ d time.Duration }

func (c offsetClock) Now() time.Time                       { return time.Now().Add(c.d) }
func (c offsetClock) NewTimer(d time.Duration) clock.Timer { return clock.Real{}.NewTimer(d) }

// startDaemon runs a daemon with clk and serve's flags extra, stopped when
// t ends, and returns its API client.
func startDaemon(t testing.TB, c *kubetest.Cluster, clk clock.Clock, extra ...string) *testDaemon {
	t.Helper()
	d := daemontest.Start(t, daemontest.Options{Clock: clk, Token: token,
		Args: append([]string{"--kubeconfig", c.Kubeconfig}, extra...)})
	return &testDaemon{Client: d.Client, url: d.URL}
}

// testDaemon is a daemon's API client and its URL.
type testDaemon struct {
	*apiclient.Client
	url string
}

// kubeJob is the API spec of a job running template tpl in ns.
func kubeJob(ns, tpl string, edit func(*apitype.JobSpec)) apitype.JobSpec {
	keep := 100
	s := apitype.JobSpec{Cron: "0 0 1 1 *", Kubernetes: &apitype.KubernetesSpec{Namespace: ns, JobTemplate: apitype.TemplateText(tpl)},
		SuccessfulJobsHistoryLimit: &keep, FailedJobsHistoryLimit: &keep}
	if edit != nil {
		edit(&s)
	}
	return s
}

// podTemplate is a job template whose Pod kwok runs as the annotations
// and labels of kube/kwok/stages.yaml say.
func podTemplate(meta string) string {
	return `spec:
  template:
    metadata: ` + meta + `
    spec:
      containers: [{name: main, image: registry.example/batch:1}]
`
}

func eventually(t testing.TB, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = cond(); ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not true within a minute (last error: %v)", what, err)
}

func finished(t testing.TB, c *testDaemon, id int64) apitype.Run {
	t.Helper()
	var run apitype.Run
	eventually(t, fmt.Sprintf("run %d finishes", id), func() (ok bool, err error) {
		run, err = c.RunGet(context.Background(), id)
		if err == nil && !run.Finished() {
			out, _, _ := c.RunLog(context.Background(), id)
			err = fmt.Errorf("run is %s, output %q", run.State, out)
		}
		return err == nil && run.Finished(), err
	})
	return run
}

func running(t testing.TB, c *testDaemon, id int64, podRuns bool) {
	t.Helper()
	eventually(t, fmt.Sprintf("run %d runs", id), func() (bool, error) {
		run, err := c.RunGet(context.Background(), id)
		if err != nil || run.State != apitype.RunRunning {
			return false, err
		}
		if !podRuns {
			return true, nil
		}
		out, _, err := c.RunLog(context.Background(), id)
		return strings.Contains(string(out), ": Running"), err
	})
}

// jobCount is how many Jobs the namespace holds (not being deleted).
func jobCount(t testing.TB, c *kubetest.Cluster, ns string) int {
	t.Helper()
	list, err := c.Client.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range list.Items {
		if j.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// TestDaemonRunsKubernetesJobs: a succeeding and a failing job through
// the API and the daemon; the run records the outcome, the exit code and
// the output, and names the Job.
func TestDaemonRunsKubernetesJobs(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ns := k.Namespace(t)
	c := startDaemon(t, k, clock.Real{})
	ctx := context.Background()
	for _, tc := range []struct {
		name, meta, state string
		exit              int
	}{
		{"ok", `{annotations: {almanac.test/duration: 200ms}}`, apitype.RunSucceeded, 0},
		{"exit4", `{annotations: {almanac.test/exit-code: "4"}}`, apitype.RunFailed, 4},
	} {
		if _, _, err := c.JobPut(ctx, tc.name, kubeJob(ns, podTemplate(tc.meta), nil)); err != nil {
			t.Fatal(err)
		}
		r, err := c.JobTrigger(ctx, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		run := finished(t, c, r.ID)
		if run.State != tc.state || run.ExitCode == nil || *run.ExitCode != tc.exit {
			t.Errorf("%s: run %+v, want %s with exit code %d", tc.name, run, tc.state, tc.exit)
		}
		name := kubespec.JobName(tc.name, run.ScheduledTime, 1)
		out, _, err := c.RunLog(ctx, r.ID)
		if err != nil || !strings.Contains(string(out), "created Kubernetes Job "+ns+"/"+name) {
			t.Errorf("%s: output %q (%v) does not name the Job", tc.name, out, err)
		}
		if run.Kubernetes == nil || run.Kubernetes.Job != name || run.Kubernetes.Namespace != ns {
			t.Errorf("%s: run.kubernetes = %+v, want %s/%s", tc.name, run.Kubernetes, ns, name)
		}
	}
	if n := jobCount(t, k, ns); n != 2 {
		t.Errorf("%d Jobs in the namespace, want 2", n)
	}
	// The CLI names the runs' Jobs: get runs in a column, describe with
	// the Job and its Pods while the run is active.
	out := almanac(t, c, "get", "runs")
	if !strings.Contains(out, "KUBERNETES JOB") || !strings.Contains(out, ns+"/"+kubespec.JobName("ok", time.Time{}, 1)[:3]) {
		t.Errorf("get runs:\n%s", out)
	}
	tplFile := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(tplFile, []byte(podTemplate(`{labels: {almanac.test/forever: "true"}}`)), 0o600); err != nil {
		t.Fatal(err)
	}
	almanac(t, c, "run", "long", "--schedule", "0 0 1 1 *", "--kubernetes-namespace", ns, "--kubernetes-template", tplFile)
	r, err := c.JobTrigger(ctx, "long")
	if err != nil {
		t.Fatal(err)
	}
	running(t, c, r.ID, true)
	run, err := c.RunGet(ctx, r.ID)
	if err != nil || run.Kubernetes == nil || len(run.Kubernetes.Pods) != 1 || run.Kubernetes.Pods[0].Phase != "Running" {
		t.Fatalf("active run's kubernetes %+v (%v), want its one Pod running", run.Kubernetes, err)
	}
	out = almanac(t, c, "describe", "run", fmt.Sprint(r.ID))
	for _, want := range []string{"Kubernetes:  " + ns + "/" + run.Kubernetes.Job, "Pods:        " + run.Kubernetes.Pods[0].Name + " (Running)"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe run lacks %q:\n%s", want, out)
		}
	}
	if out := almanac(t, c, "describe", "job", "long"); !strings.Contains(out, "namespace "+ns) {
		t.Errorf("describe job:\n%s", out)
	}
	// The web UI's run page too.
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/runs/%d", c.url, r.ID), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`<dd id="run-kubernetes">` + ns + "/" + run.Kubernetes.Job + "</dd>", `<span data-phase="Running">` + run.Kubernetes.Pods[0].Name} {
		if !strings.Contains(string(page), want) {
			t.Errorf("run page (%d) lacks %q", resp.StatusCode, want)
		}
	}
}

// almanac runs a CLI command against the daemon c speaks to.
func almanac(t testing.TB, c *testDaemon, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--server", c.url, "--token", token)
	if code := cli.Main(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("almanac %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// TestDaemonForbidAndReplace: a job due every three seconds whose Pods
// never finish. Under Forbid its later instants are skipped while the
// first run's Job runs; under Replace each instant's run deletes the
// previous run's Job before its own runs.
func TestDaemonForbidAndReplace(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ns := k.Namespace(t)
	c := startDaemon(t, k, clock.Real{})
	ctx := context.Background()
	forever := podTemplate(`{labels: {almanac.test/forever: "true"}}`)
	every3s := func(policy string) func(*apitype.JobSpec) {
		return func(s *apitype.JobSpec) { s.Cron, s.OnCalendar, s.ConcurrencyPolicy = "", []string{"*:*:0/3"}, policy }
	}
	runsOf := func(job string) []apitype.Run {
		page, err := c.RunList(ctx, apiclient.RunFilter{Job: job})
		if err != nil {
			t.Fatal(err)
		}
		return page.Items
	}

	if _, _, err := c.JobPut(ctx, "forbid", kubeJob(ns, forever, every3s("Forbid"))); err != nil {
		t.Fatal(err)
	}
	var first apitype.Run
	eventually(t, "the Forbid job's first run", func() (bool, error) {
		rs := runsOf("forbid")
		if len(rs) > 0 {
			first = rs[len(rs)-1]
		}
		return len(rs) > 0, nil
	})
	running(t, c, first.ID, true)
	eventually(t, "two later instants skipped", func() (bool, error) {
		page, err := c.EventList(ctx, apiclient.EventFilter{Job: "forbid"})
		n := 0
		for _, e := range page.Items {
			if e.Kind == "run.skipped" {
				n++
			}
		}
		return n >= 2, err
	})
	if rs := runsOf("forbid"); len(rs) != 1 || rs[0].State != apitype.RunRunning {
		t.Errorf("runs of the Forbid job %+v, want the first one, running", rs)
	}
	if n := jobCount(t, k, ns); n != 1 {
		t.Errorf("%d Jobs for the Forbid job, want 1", n)
	}
	if _, err := c.JobSuspend(ctx, "forbid"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunKill(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if run := finished(t, c, first.ID); run.State != apitype.RunKilled {
		t.Errorf("killed run = %+v", run)
	}
	eventually(t, "the killed run's Job is deleted", func() (bool, error) { return jobCount(t, k, ns) == 0, nil })

	if _, _, err := c.JobPut(ctx, "replace", kubeJob(ns, forever, every3s("Replace"))); err != nil {
		t.Fatal(err)
	}
	var replaced, next apitype.Run
	eventually(t, "a run replaced by the next", func() (bool, error) {
		for _, r := range runsOf("replace") {
			if r.State == apitype.RunKilled {
				replaced = r
			}
		}
		return replaced.ID != 0, nil
	})
	if _, err := c.JobSuspend(ctx, "replace"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(replaced.Error, "replaced") {
		t.Errorf("replaced run's error %q", replaced.Error)
	}
	for _, r := range runsOf("replace") {
		if !r.Finished() && r.ID > replaced.ID {
			next = r
		}
	}
	if next.ID == 0 {
		t.Fatalf("no active run after the replaced one: %+v", runsOf("replace"))
	}
	running(t, c, next.ID, false)
	eventually(t, "only the active run's Job is left", func() (bool, error) {
		list, err := k.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		var live []string
		for _, j := range list.Items {
			if j.DeletionTimestamp == nil {
				live = append(live, j.Name)
			}
		}
		want := kubespec.JobName("replace", next.ScheduledTime, 1)
		return len(live) == 1 && live[0] == want, fmt.Errorf("Jobs %v, want %s", live, want)
	})
}

// TestDaemonGateClosedThenOpen: a run due while its gate is closed waits,
// with no Job in the cluster, and its Job is created when the gate opens.
func TestDaemonGateClosedThenOpen(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ns := k.Namespace(t)
	// The daemon's clock runs three seconds before a Saturday 03:00 UTC,
	// when the window "maint" opens.
	opens := time.Date(2030, 6, 1, 3, 0, 0, 0, time.UTC)
	clk := offsetClock{time.Until(opens.Add(-3 * time.Second))}
	toml := filepath.Join(t.TempDir(), "maint.toml")
	if err := os.WriteFile(toml, []byte("[updates.periodic]\ntime_zone = \"UTC\"\n[[updates.periodic.window]]\ndays = [ \"Sat\" ]\nstart_time = \"03:00\"\nlength_minutes = 60\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startDaemon(t, k, clk, "--windows", "maint="+toml)
	ctx := context.Background()
	due := clk.Now().Add(-time.Second).UTC().Truncate(time.Second)
	if _, _, err := c.JobPut(ctx, "gated", kubeJob(ns, podTemplate(`{}`), func(s *apitype.JobSpec) {
		s.Cron, s.At, s.Gate = "", &due, "maint"
	})); err != nil {
		t.Fatal(err)
	}
	var id int64
	eventually(t, "the run waits for its gate", func() (bool, error) {
		page, err := c.RunList(ctx, apiclient.RunFilter{Job: "gated"})
		if err != nil || len(page.Items) == 0 {
			return false, err
		}
		r := page.Items[0]
		id = r.ID
		return r.Waiting != nil && r.Waiting.Kind == apitype.WaitGate, nil
	})
	if n := jobCount(t, k, ns); n != 0 && clk.Now().Before(opens) {
		t.Fatalf("%d Jobs while the gate is closed", n)
	}
	run := finished(t, c, id)
	if run.State != apitype.RunSucceeded || run.StartedAt == nil || run.StartedAt.Before(opens) {
		t.Errorf("run = %+v, want succeeded, started once the gate opened at %s", run, opens)
	}
	if n := jobCount(t, k, ns); n != 1 {
		t.Errorf("%d Jobs, want 1", n)
	}
}

// TestDaemonImportedCronJob imports a real `kubectl get cronjobs -A -o
// yaml` for the Kubernetes executor, serves the manifest and runs its
// two-container backup CronJob: the Job is made from the jobTemplate as
// written, in the CronJob's namespace, and succeeds.
func TestDaemonImportedCronJob(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ctx := context.Background()
	for _, ns := range []string{"prod", "search", "web"} {
		if _, err := k.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	}
	src, err := os.ReadFile("../../testdata/import-kubectl/cronjobs-list.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.CronJob("cronjobs-list.yaml", src, importer.CronJobOptions{Executor: importer.ExecutorKubernetes})
	if err != nil || res.Jobs != 3 {
		t.Fatalf("import: %d jobs, %v", res.Jobs, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cronjobs.pp"), []byte(res.Manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startDaemon(t, k, clock.Real{}, "--manifests", dir)
	var spec apitype.JobSpec
	eventually(t, "the manifest's jobs are loaded", func() (bool, error) {
		j, err := c.JobGet(ctx, "prod-db-backup")
		spec = j.Spec
		return err == nil, err
	})
	if spec.Kubernetes == nil || spec.Kubernetes.Namespace != "prod" || spec.TimeZone != "Europe/Berlin" || spec.Cron != "15 3 * * *" {
		t.Fatalf("imported spec %+v", spec)
	}
	eventually(t, "the default service account of prod", func() (bool, error) {
		_, err := k.Client.CoreV1().ServiceAccounts("prod").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
	r, err := c.JobTrigger(ctx, "prod-db-backup")
	if err != nil {
		t.Fatal(err)
	}
	run := finished(t, c, r.ID)
	if run.State != apitype.RunSucceeded {
		out, _, _ := c.RunLog(ctx, r.ID)
		t.Fatalf("run %+v, want succeeded; output:\n%s", run, out)
	}
	j, err := k.Client.BatchV1().Jobs("prod").Get(ctx, kubespec.JobName("prod-db-backup", run.ScheduledTime, 1), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := j.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Image != "registry.example.com/pg-backup:2.3" || strings.Join(cs[0].Args, " ") != "--all --target s3://backups/db" ||
		j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("the Job's Pod template %+v is not the CronJob's", j.Spec.Template.Spec)
	}
}
