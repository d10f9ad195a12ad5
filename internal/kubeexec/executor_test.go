package kubeexec

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/kubetest"
	"github.com/almanac-sh/almanac/internal/store"
)

// runIDs keeps the runs of different tests apart.
var runIDs atomic.Int64

// template is a job template whose Pod kwok (kube/kwok/stages.yaml) runs
// with the given Pod annotations and labels.
func template(annotations, labels map[string]string) string {
	q := func(m map[string]string) string {
		var parts []string
		for k, v := range m {
			parts = append(parts, fmt.Sprintf("%q: %q", k, v))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf(`
metadata:
  labels: {team: data}
spec:
  template:
    metadata:
      annotations: %s
      labels: %s
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: registry.example/batch:1
        command: [run]
`, q(annotations), q(labels))
}

func kubeSpec(name, ns, tpl string) store.JobSpec {
	return store.JobSpec{Name: name, Kubernetes: &store.KubernetesSpec{Namespace: ns, JobTemplate: tpl}}
}

func newRun(job string) store.Run {
	return store.Run{ID: runIDs.Add(1) + time.Now().UnixNano()%1_000_000*1000, Job: job,
		ScheduledTime: time.Date(2026, 5, 1, 3, 0, 0, 0, time.UTC), Attempt: 1}
}

func newExecutor(t *testing.T, c *kubetest.Cluster, specs ...store.JobSpec) *Executor {
	e := New(Config{Kubeconfig: c.Kubeconfig, Lookup: func(_ context.Context, name string) (store.JobSpec, error) {
		for _, s := range specs {
			if s.Name == name {
				return s, nil
			}
		}
		return store.JobSpec{}, store.ErrNotFound
	}})
	t.Cleanup(e.Close)
	return e
}

// wait waits for p to end, failing t after a minute.
func wait(t *testing.T, p job.Process) job.Result {
	t.Helper()
	select {
	case <-p.Done():
		return p.Result()
	case <-time.After(time.Minute):
		out, _ := p.(job.LiveOutput).OutputSince(0)
		t.Fatalf("the run did not end; output so far:\n%s", out)
		return job.Result{}
	}
}

// waitRunning waits until a Pod of p's Job runs.
func waitRunning(t *testing.T, p job.Process) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, pod := range p.(*process).Kubernetes().Pods {
			if pod.Phase == string(corev1.PodRunning) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no Pod of the run's Job ran within a minute")
}

func TestRunSucceeds(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	spec := kubeSpec("hello", ns, template(map[string]string{"almanac.test/duration": "300ms"}, nil))
	spec.TimeoutSeconds = 600
	e := newExecutor(t, c, spec)
	run := newRun("hello")
	p, err := e.Start(context.Background(), run, spec)
	if err != nil {
		t.Fatal(err)
	}
	res := wait(t, p)
	out := string(res.Output)
	if res.Err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("result %+v, want exit code 0; output:\n%s", res, out)
	}
	name := kubespec.JobName("hello", run.ScheduledTime, 1)
	for _, want := range []string{"created Kubernetes Job " + ns + "/" + name, ": Running", ": Succeeded (exit code 0)", "complete",
		"the cluster does not serve the log of Pod"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	j, err := c.Client.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if j.Labels[kubespec.LabelJob] != "hello" || j.Labels[kubespec.LabelRunID] != fmt.Sprint(run.ID) || j.Labels["team"] != "data" ||
		j.Labels[kubespec.LabelInstant] != fmt.Sprint(run.ScheduledTime.Unix()) || j.Annotations[kubespec.AnnotationJob] != "hello" {
		t.Errorf("labels %v annotations %v", j.Labels, j.Annotations)
	}
	if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d != 600 {
		t.Errorf("activeDeadlineSeconds %v, want 600 (the timeout)", d)
	}
	if b := j.Spec.BackoffLimit; b == nil || *b != 0 {
		t.Errorf("backoffLimit %v, want 0", b)
	}
	k := p.(*process).Kubernetes()
	if k.Namespace != ns || k.Job != name || len(k.Pods) != 1 || k.Pods[0].Phase != "Succeeded" {
		t.Errorf("Kubernetes() = %+v", k)
	}
}

func TestRunFailsWithExitCode(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	spec := kubeSpec("fails", ns, template(map[string]string{"almanac.test/exit-code": "7", "almanac.test/duration": "200ms"}, nil))
	e := newExecutor(t, c, spec)
	p, err := e.Start(context.Background(), newRun("fails"), spec)
	if err != nil {
		t.Fatal(err)
	}
	res := wait(t, p)
	if res.ExitCode == nil || *res.ExitCode != 7 {
		t.Fatalf("exit code %v, want 7; output:\n%s", res.ExitCode, res.Output)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "BackoffLimitExceeded") {
		t.Errorf("error %v, want BackoffLimitExceeded", res.Err)
	}
}

func TestRunTimesOut(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	spec := kubeSpec("slow", ns, template(nil, map[string]string{"almanac.test/forever": "true"}))
	spec.TimeoutSeconds = 2
	e := newExecutor(t, c, spec)
	p, err := e.Start(context.Background(), newRun("slow"), spec)
	if err != nil {
		t.Fatal(err)
	}
	res := wait(t, p)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "DeadlineExceeded") {
		t.Fatalf("result %+v, want DeadlineExceeded; output:\n%s", res, res.Output)
	}
}

func TestKillDeletesTheJob(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	spec := kubeSpec("forever", ns, template(nil, map[string]string{"almanac.test/forever": "true"}))
	e := newExecutor(t, c, spec)
	run := newRun("forever")
	p, err := e.Start(context.Background(), run, spec)
	if err != nil {
		t.Fatal(err)
	}
	waitRunning(t, p)
	p.Terminate()
	res := wait(t, p)
	if res.Err == nil || res.ExitCode != nil {
		t.Errorf("result %+v, want an error and no exit code", res)
	}
	ctx := context.Background()
	if _, err := c.Client.BatchV1().Jobs(ns).Get(ctx, kubespec.JobName("forever", run.ScheduledTime, 1), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Job is still there after the kill: %v", err)
	}
	pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("Pods left after a foreground deletion: %v %v", pods, err)
	}
}

// TestCreateIsIdempotentAndAttachFindsTheJob is a daemon that dies during
// creation or during the run: a second Start of the same run adopts the
// Job instead of making another, and a new executor attaches to it and
// collects its true outcome.
func TestCreateIsIdempotentAndAttachFindsTheJob(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	spec := kubeSpec("twice", ns, template(map[string]string{"almanac.test/exit-code": "3", "almanac.test/duration": "1s"}, nil))
	run := newRun("twice")
	first := newExecutor(t, c, spec)
	if _, err := first.Start(context.Background(), run, spec); err != nil {
		t.Fatal(err)
	}
	first.Close()
	second := newExecutor(t, c, spec)
	p, err := second.Start(context.Background(), run, spec)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := p.(job.LiveOutput).OutputSince(0); !strings.Contains(string(out), "adopted Kubernetes Job") {
		t.Errorf("second start did not adopt the Job:\n%s", out)
	}
	second.Close()
	third := newExecutor(t, c, spec)
	p, err = third.Attach(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	res := wait(t, p)
	if res.ExitCode == nil || *res.ExitCode != 3 {
		t.Errorf("attached run's exit code %v, want 3; output:\n%s", res.ExitCode, res.Output)
	}
	jobs, err := c.Client.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(jobs.Items) != 1 {
		t.Fatalf("%d Jobs (%v), want exactly 1", len(jobs.Items), err)
	}
	// A run whose Job was never created cannot be attached to.
	other := newRun("twice")
	other.Attempt = 2
	if _, err := third.Attach(context.Background(), other); err == nil {
		t.Error("attached to a run without a Job")
	}
}

// TestForbiddenNamespace: a namespace the daemon's credentials may not use
// fails the run at once with Kubernetes' own message.
func TestForbiddenNamespace(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc := restrictedKubeconfig(t, c, ns, "nobody")
	spec := kubeSpec("denied", ns, template(nil, nil))
	e := New(Config{Kubeconfig: kc})
	defer e.Close()
	start := time.Now()
	_, err := e.Start(ctx, newRun("denied"), spec)
	if err == nil || !strings.Contains(err.Error(), "forbidden") || !strings.Contains(err.Error(), "cannot create resource \"jobs\"") {
		t.Fatalf("Start error %v, want Kubernetes' forbidden message", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the refusal took %s", d)
	}
}

// restrictedKubeconfig writes a kubeconfig for service account sa of ns,
// with a token the API issues.
func restrictedKubeconfig(t *testing.T, c *kubetest.Cluster, ns, sa string) string {
	t.Helper()
	tok, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), sa, &authTokenRequest, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AuthInfos = map[string]*clientcmdapi.AuthInfo{"sa": {Token: tok.Status.Token}}
	cfg.Contexts["test"].AuthInfo = "sa"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHistoryLimitPrunesOldJobs(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	one := 1
	spec := kubeSpec("pruned", ns, template(map[string]string{"almanac.test/duration": "100ms"}, nil))
	spec.SuccessfulJobsHistoryLimit = &one
	e := newExecutor(t, c, spec)
	var last string
	for i := range 3 {
		run := newRun("pruned")
		run.ScheduledTime = run.ScheduledTime.Add(time.Duration(i) * time.Hour)
		p, err := e.Start(context.Background(), run, spec)
		if err != nil {
			t.Fatal(err)
		}
		wait(t, p)
		p.(*process).Release()
		last = kubespec.JobName("pruned", run.ScheduledTime, 1)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		jobs, err := c.Client.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, j := range jobs.Items {
			if j.DeletionTimestamp == nil {
				names = append(names, j.Name)
			}
		}
		if len(names) == 1 && names[0] == last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jobs %v, want only the newest %s", names, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var authTokenRequest = authv1TokenRequest()

// TestUnreadableKubeconfig: a kubeconfig that cannot be read fails the
// run's start with the reason, and nothing is read before a job needs it.
func TestUnreadableKubeconfig(t *testing.T) {
	e := New(Config{Kubeconfig: filepath.Join(t.TempDir(), "missing")})
	defer e.Close()
	spec := kubeSpec("k", "default", template(nil, nil))
	_, err := e.Start(context.Background(), newRun("k"), spec)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Start error %v, want one naming the kubeconfig", err)
	}
	if _, err := e.Attach(context.Background(), newRun("k")); !errors.Is(err, job.ErrNotAttachable) {
		t.Errorf("Attach without a Lookup: %v", err)
	}
}

// TestWatchForbidden: credentials that may create Jobs but not watch them
// end the run with Kubernetes' refusal instead of waiting forever.
func TestWatchForbidden(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "creator"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "create-only"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"create", "get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "creator"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "creator", Namespace: ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "create-only"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e := New(Config{Kubeconfig: restrictedKubeconfig(t, c, ns, "creator")})
	defer e.Close()
	spec := kubeSpec("blind", ns, template(nil, map[string]string{"almanac.test/forever": "true"}))
	var (
		p   job.Process
		err error
	)
	// RBAC bindings take effect within moments of their creation.
	for range 100 {
		if p, err = e.Start(ctx, newRun("blind"), spec); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	res := wait(t, p)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "forbidden") || !strings.Contains(res.Err.Error(), "cannot watch") {
		t.Errorf("result %+v, want the watch's refusal", res)
	}
}
