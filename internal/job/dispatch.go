package job

import (
	"context"
	"errors"

	"github.com/almanac-sh/almanac/internal/store"
)

// Dispatch is the Executor that hands each run to the executor its job
// asks for: a job with a kubernetes attribute to Kubernetes, every other
// to Host. The controller sees one executor.
type Dispatch struct {
	// Host runs commands on this machine (Supervised, Exec).
	Host Executor
	// Kubernetes runs Kubernetes Jobs; nil refuses them.
	Kubernetes Executor
	// Lookup reads a job's spec, which says where a run left running by a
	// previous life of the daemon executes; nil sends every attach to Host.
	Lookup func(ctx context.Context, name string) (store.JobSpec, error)
}

// errNoKubernetes is a Kubernetes job's start on a daemon without the
// Kubernetes executor.
var errNoKubernetes = errors.New("this almanac daemon does not run Kubernetes jobs")

// Start implements Executor.
func (d *Dispatch) Start(ctx context.Context, run store.Run, spec store.JobSpec) (Process, error) {
	if spec.Kubernetes == nil {
		return d.Host.Start(ctx, run, spec)
	}
	if d.Kubernetes == nil {
		return nil, errNoKubernetes
	}
	return d.Kubernetes.Start(ctx, run, spec)
}

// Attach implements Executor.
func (d *Dispatch) Attach(ctx context.Context, run store.Run) (Process, error) {
	if d.Kubernetes != nil && d.Lookup != nil {
		if spec, err := d.Lookup(ctx, run.Job); err == nil && spec.Kubernetes != nil {
			return d.Kubernetes.Attach(ctx, run)
		}
	}
	return d.Host.Attach(ctx, run)
}

// Sweep implements sweeper for the executors that keep per-run state.
func (d *Dispatch) Sweep(keep map[int64]bool) {
	for _, e := range []Executor{d.Host, d.Kubernetes} {
		if sw, ok := e.(sweeper); ok {
			sw.Sweep(keep)
		}
	}
}

// KubernetesRun is where a run of a Kubernetes job executes: the
// kubeconfig context ("" for the current one), the namespace, the Job and
// its Pods with their phases.
type KubernetesRun struct {
	Context   string
	Namespace string
	Job       string
	Pods      []KubernetesPod
}

// KubernetesPod is one Pod of a run's Job and its phase (Pending, Running,
// Succeeded, Failed, or Deleted once gone).
type KubernetesPod struct {
	Name  string
	Phase string
}

// kubernetesProcess is a Process that runs as a Kubernetes Job.
type kubernetesProcess interface {
	Kubernetes() KubernetesRun
}

// RunKubernetes describes an active run of a Kubernetes job that this node
// follows; false for any other run.
func (c *Controller) RunKubernetes(id int64) (KubernetesRun, bool) {
	v, ok := c.live.Load(id)
	if !ok {
		return KubernetesRun{}, false
	}
	k, ok := v.(kubernetesProcess)
	if !ok {
		return KubernetesRun{}, false
	}
	return k.Kubernetes(), true
}
