package kubeexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// Config configures an Executor.
type Config struct {
	// Kubeconfig is the kubeconfig file (serve --kubeconfig); empty means
	// what kubectl reads: $KUBECONFIG, ~/.kube/config, or the in-cluster
	// configuration of a Pod.
	Kubeconfig string
	// Lookup reads a job's spec; Attach needs it to find a run's Job (its
	// namespace and context) after a restart.
	Lookup func(ctx context.Context, name string) (store.JobSpec, error)
	// MaxOutput bounds the output kept per run (default job.DefaultMaxOutput).
	MaxOutput int
	// Logger receives what goes wrong outside a run (default slog.Default()).
	Logger *slog.Logger
	// QPS and Burst bound the requests per cluster (default 50 and 100).
	QPS   float32
	Burst int
	// Clock times how long a finished run waits for its Pods' logs
	// (default the wall clock).
	Clock clock.Clock
}

// Executor implements job.Executor on Kubernetes. Create it with New and
// Close it when the daemon stops: its informers then stop, the Jobs keep
// running and the next life attaches to them.
type Executor struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	clusters map[string]*cluster // by context name ("" = current)
	closed   bool
	stop     chan struct{}
}

// New returns an Executor. It reads no configuration yet: a cluster's
// client is made when a job first names its context, so a daemon without
// Kubernetes jobs needs no kubeconfig.
func New(cfg Config) *Executor {
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = job.DefaultMaxOutput
	}
	if cfg.QPS <= 0 {
		cfg.QPS = 50
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 100
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Executor{cfg: cfg, log: log, clusters: map[string]*cluster{}, stop: make(chan struct{})}
}

// Close stops following the Jobs; they run on.
func (e *Executor) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		close(e.stop)
	}
}

// cluster is one kubeconfig context's client and the namespaces followed
// in it.
type cluster struct {
	name   string // the context as the job names it ("" = current)
	client *client
	mu     sync.Mutex
	ns     map[string]*watcher
}

func (e *Executor) cluster(name string) (*cluster, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("the Kubernetes executor is stopped")
	}
	if c := e.clusters[name]; c != nil {
		return c, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if e.cfg.Kubeconfig != "" {
		rules.ExplicitPath = e.cfg.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: name})
	rc, err := cc.ClientConfig()
	if err != nil {
		if name != "" {
			return nil, fmt.Errorf("kubernetes context %q: %w", name, err)
		}
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	rc.QPS, rc.Burst = e.cfg.QPS, e.cfg.Burst
	rc.UserAgent = "almanac"
	cl, err := newClient(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	c := &cluster{name: name, client: cl, ns: map[string]*watcher{}}
	e.clusters[name] = c
	return c, nil
}

// Start implements job.Executor: it creates the run's Job, or adopts the
// one a previous attempt at creating it left.
func (e *Executor) Start(ctx context.Context, run store.Run, spec store.JobSpec) (job.Process, error) {
	k := spec.Kubernetes
	if k == nil {
		return nil, errors.New("the job has no kubernetes attribute")
	}
	want, err := Build(run, spec)
	if err != nil {
		return nil, err
	}
	c, err := e.cluster(k.Context)
	if err != nil {
		return nil, err
	}
	w := e.watch(c, k.Namespace)
	p := w.register(run, spec, want.Name, e.cfg.MaxOutput)
	got, err := c.client.createJob(ctx, want)
	switch {
	case apierrors.IsAlreadyExists(err):
		got, err = c.client.getJob(ctx, k.Namespace, want.Name)
		if err == nil && got.Labels[kubespec.LabelRunID] != want.Labels[kubespec.LabelRunID] {
			err = fmt.Errorf("job %s/%s exists and belongs to almanac run %q, not %d", k.Namespace, want.Name, got.Labels[kubespec.LabelRunID], run.ID)
		}
		if err == nil {
			p.out.notef("adopted Kubernetes Job %s/%s created earlier", k.Namespace, want.Name)
		}
	case err == nil:
		p.out.notef("created Kubernetes Job %s/%s", k.Namespace, want.Name)
	}
	if err != nil {
		w.unregister(p)
		return nil, fmt.Errorf("create Kubernetes Job %s/%s: %w", k.Namespace, want.Name, err)
	}
	p.observeJob(got)
	w.start()
	return p, nil
}

// Attach implements job.Executor: it finds the Job of a run a previous
// life of the daemon started, by name. A run whose Job does not exist
// (the daemon stopped before creating it, or it was deleted) cannot be
// attached to.
func (e *Executor) Attach(ctx context.Context, run store.Run) (job.Process, error) {
	if e.cfg.Lookup == nil {
		return nil, job.ErrNotAttachable
	}
	spec, err := e.cfg.Lookup(ctx, run.Job)
	if err != nil || spec.Kubernetes == nil {
		return nil, job.ErrNotAttachable
	}
	k := spec.Kubernetes
	c, err := e.cluster(k.Context)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", job.ErrNotAttachable, err)
	}
	name := kubespec.JobName(run.Job, run.ScheduledTime, run.Attempt)
	w := e.watch(c, k.Namespace)
	p := w.register(run, spec, name, e.cfg.MaxOutput)
	got, err := c.client.getJob(ctx, k.Namespace, name)
	if err == nil && got.Labels[kubespec.LabelRunID] != strconv.FormatInt(run.ID, 10) {
		err = fmt.Errorf("job %s/%s belongs to almanac run %q", k.Namespace, name, got.Labels[kubespec.LabelRunID])
	}
	if err != nil {
		w.unregister(p)
		return nil, fmt.Errorf("%w: Kubernetes Job %s/%s: %v", job.ErrNotAttachable, k.Namespace, name, err)
	}
	p.out.notef("attached to Kubernetes Job %s/%s again", k.Namespace, name)
	p.observeJob(got)
	w.start()
	return p, nil
}

// Build makes the batch/v1 Job of a run from its job's spec: the template's
// metadata and spec, the deterministic name, almanac's labels on the Job
// and its Pods, the timeout as activeDeadlineSeconds, and a backoffLimit of
// 0 unless the template sets one (almanac's backoff_limit retries with a
// new Job per attempt).
func Build(run store.Run, spec store.JobSpec) (*batchv1.Job, error) {
	k := spec.Kubernetes
	if err := kubespec.CheckNamespace(k.Namespace); err != nil {
		return nil, err
	}
	t, err := kubespec.ParseTemplate(k.JobTemplate)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{
		kubespec.LabelJob:     kubespec.LabelValue(spec.Name),
		kubespec.LabelRunID:   strconv.FormatInt(run.ID, 10),
		kubespec.LabelInstant: strconv.FormatInt(run.ScheduledTime.Unix(), 10),
		kubespec.LabelAttempt: strconv.Itoa(run.Attempt),
	}
	j := &batchv1.Job{
		ObjectMeta: *t.ObjectMeta.DeepCopy(),
		Spec:       *t.Spec.DeepCopy(),
	}
	j.Name = kubespec.JobName(spec.Name, run.ScheduledTime, run.Attempt)
	j.GenerateName = ""
	j.Namespace = k.Namespace
	j.Labels = merge(j.Labels, labels)
	j.Annotations = merge(j.Annotations, map[string]string{
		kubespec.AnnotationJob:       spec.Name,
		kubespec.AnnotationScheduled: run.ScheduledTime.UTC().Format(time.RFC3339),
	})
	j.Spec.Template.Labels = merge(j.Spec.Template.Labels, labels)
	if j.Spec.Template.Spec.RestartPolicy == "" {
		j.Spec.Template.Spec.RestartPolicy = "Never"
	}
	if spec.TimeoutSeconds > 0 {
		s := spec.TimeoutSeconds
		if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d > s {
			j.Spec.ActiveDeadlineSeconds = &s
		}
	}
	if j.Spec.BackoffLimit == nil {
		zero := int32(0)
		j.Spec.BackoffLimit = &zero
	}
	return j, nil
}

// merge returns a copy of base with over's entries set.
func merge(base, over map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	maps.Copy(m, base)
	maps.Copy(m, over)
	return m
}
