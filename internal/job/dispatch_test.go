package job

import (
	"context"
	"errors"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
)

// recorder is an executor that records what it was asked.
type recorder struct {
	name    string
	started []string
	swept   bool
}

func (r *recorder) Start(_ context.Context, run store.Run, _ store.JobSpec) (Process, error) {
	r.started = append(r.started, run.Job)
	return nil, nil
}

func (r *recorder) Attach(_ context.Context, run store.Run) (Process, error) {
	r.started = append(r.started, "attach:"+run.Job)
	return nil, nil
}

func (r *recorder) Sweep(map[int64]bool) { r.swept = true }

// TestDispatch: runs of Kubernetes jobs go to the Kubernetes executor,
// every other to the host's, for Start and, by the job's spec, Attach; the
// sweep reaches the executor that keeps per-run state; without a
// Kubernetes executor a Kubernetes job's run is refused.
func TestDispatch(t *testing.T) {
	host, kube := &recorder{name: "host"}, &recorder{name: "kube"}
	specs := map[string]store.JobSpec{
		"k": {Name: "k", Kubernetes: &store.KubernetesSpec{Namespace: "n", JobTemplate: "x"}},
		"h": {Name: "h", Shell: "true"},
	}
	d := &Dispatch{Host: host, Kubernetes: kube, Lookup: func(_ context.Context, name string) (store.JobSpec, error) {
		s, ok := specs[name]
		if !ok {
			return s, store.ErrNotFound
		}
		return s, nil
	}}
	ctx := context.Background()
	for _, name := range []string{"k", "h"} {
		d.Start(ctx, store.Run{Job: name}, specs[name])
		d.Attach(ctx, store.Run{Job: name})
	}
	d.Attach(ctx, store.Run{Job: "gone"})
	d.Sweep(nil)
	if got := kube.started; len(got) != 2 || got[0] != "k" || got[1] != "attach:k" {
		t.Errorf("kubernetes executor got %v", got)
	}
	if got := host.started; len(got) != 3 || got[0] != "h" || got[1] != "attach:h" || got[2] != "attach:gone" {
		t.Errorf("host executor got %v", got)
	}
	if !host.swept || !kube.swept {
		t.Error("the sweep did not reach both executors")
	}
	none := &Dispatch{Host: host}
	if _, err := none.Start(ctx, store.Run{Job: "k"}, specs["k"]); !errors.Is(err, errNoKubernetes) {
		t.Errorf("Start without a Kubernetes executor: %v", err)
	}
}
