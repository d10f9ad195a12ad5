package kubeexec_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/kubetest"
	"github.com/almanac-sh/almanac/internal/servetest"
)

func TestMain(m *testing.M) {
	code := servetest.Main(m)
	kubetest.Stop()
	os.Exit(code)
}

// binDaemon is a running `almanac serve` binary, which the test kills with
// SIGKILL.
type binDaemon struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs *servetest.Log
	*testDaemon
}

// serveBinary starts the almanac binary's serve over data with
// --kubeconfig.
func serveBinary(t testing.TB, k *kubetest.Cluster, data string) *binDaemon {
	t.Helper()
	cmd := exec.Command(servetest.Binary(t), "serve", "--data", data, "--listen", "127.0.0.1:0", "--log-format", "json",
		"--token", token, "--kubeconfig", k.Kubeconfig)
	pr, pw := io.Pipe()
	logs := &servetest.Log{}
	cmd.Stderr = io.MultiWriter(logs, pw)
	cmd.Stdout = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &binDaemon{cmd: cmd, done: make(chan struct{}), logs: logs}
	go func() {
		cmd.Wait()
		pw.Close()
		close(d.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-d.done
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	select {
	case u, ok := <-servetest.ServingURL(pr):
		if !ok {
			t.Fatalf("daemon exited before serving:\n%s", logs.String())
		}
		c, err := apiclient.New(u, apiclient.WithToken(token))
		if err != nil {
			t.Fatal(err)
		}
		d.testDaemon = &testDaemon{Client: c, url: u}
	case <-time.After(time.Minute):
		t.Fatalf("daemon did not serve within a minute:\n%s", logs.String())
	}
	return d
}

func (d *binDaemon) kill9() {
	d.cmd.Process.Kill()
	<-d.done
}

// TestKill9DuringRun: the daemon is killed with SIGKILL while a run's Pod
// runs; the Pod then fails with exit code 5 while no daemon is up. The
// restarted daemon attaches to the Job by name and records the true
// outcome; the cluster holds exactly one Job for the run.
func TestKill9DuringRun(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ns := k.Namespace(t)
	data := t.TempDir()
	d := serveBinary(t, k, data)
	ctx := context.Background()
	tpl := podTemplate(`{annotations: {almanac.test/exit-code: "5", almanac.test/duration: 3s}}`)
	if _, _, err := d.JobPut(ctx, "crash", kubeJob(ns, tpl, nil)); err != nil {
		t.Fatal(err)
	}
	r, err := d.JobTrigger(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	running(t, d.testDaemon, r.ID, true)
	d.kill9()
	name := kubespec.JobName("crash", r.ScheduledTime, 1)
	eventually(t, "the Job fails while no daemon runs", func() (bool, error) {
		j, err := k.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && j.Status.Failed > 0, err
	})

	d2 := serveBinary(t, k, data)
	run := finished(t, d2.testDaemon, r.ID)
	if run.State != apitype.RunFailed || run.ExitCode == nil || *run.ExitCode != 5 || !strings.Contains(run.Error, "BackoffLimitExceeded") {
		t.Errorf("run after the restart = %+v, want failed with exit code 5 and BackoffLimitExceeded", run)
	}
	if n := jobCount(t, k, ns); n != 1 {
		t.Errorf("%d Jobs, want exactly 1", n)
	}
}

// TestKill9DuringCreation: the daemon is killed with SIGKILL at once after
// a run is triggered, around its Job's creation. Whichever side of the
// creation the kill fell on, the cluster holds at most one Job for the
// run; if it holds one, the restarted daemon records that Job's outcome,
// and if not, the run is recorded failed, not left running.
func TestKill9DuringCreation(t *testing.T) {
	t.Parallel()
	k := kubetest.Shared(t)
	ns := k.Namespace(t)
	data := t.TempDir()
	d := serveBinary(t, k, data)
	ctx := context.Background()
	if _, _, err := d.JobPut(ctx, "racy", kubeJob(ns, podTemplate(`{annotations: {almanac.test/duration: 1s}}`), nil)); err != nil {
		t.Fatal(err)
	}
	r, err := d.JobTrigger(ctx, "racy")
	if err != nil {
		t.Fatal(err)
	}
	d.kill9()
	name := kubespec.JobName("racy", r.ScheduledTime, 1)
	_, getErr := k.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	created := getErr == nil

	d2 := serveBinary(t, k, data)
	run := finished(t, d2.testDaemon, r.ID)
	if n := jobCount(t, k, ns); n > 1 {
		t.Fatalf("%d Jobs for one run", n)
	}
	if created {
		if run.State != apitype.RunSucceeded {
			t.Errorf("the Job existed, and the run after the restart = %+v, want its success", run)
		}
	} else if run.State == apitype.RunRunning {
		t.Errorf("run left running: %+v", run)
	}
	t.Logf("killed %s the Job was created; run recorded %s (%s)", map[bool]string{true: "after", false: "before"}[created], run.State, run.Error)
	page, err := d2.RunList(ctx, apiclient.RunFilter{Job: "racy"})
	if err != nil || len(page.Items) != 1 {
		t.Errorf("runs of racy %+v (%v), want the one", page.Items, err)
	}
}
