package httpapi

import (
	"context"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// kubernetesToStore copies a job's kubernetes attribute from the wire.
func kubernetesToStore(k *apitype.KubernetesSpec) *store.KubernetesSpec {
	if k == nil {
		return nil
	}
	return &store.KubernetesSpec{Namespace: k.Namespace, Context: k.Context, JobTemplate: string(k.JobTemplate)}
}

// kubernetesFromStore copies a job's kubernetes attribute to the wire.
func kubernetesFromStore(k *store.KubernetesSpec) *apitype.KubernetesSpec {
	if k == nil {
		return nil
	}
	return &apitype.KubernetesSpec{Namespace: k.Namespace, Context: k.Context, JobTemplate: apitype.TemplateText(k.JobTemplate)}
}

// KubernetesRunner is implemented by a Controller that follows runs of
// Kubernetes jobs: their Pods and phases while they are active.
type KubernetesRunner interface {
	RunKubernetes(id int64) (job.KubernetesRun, bool)
}

// addKubernetes names the Kubernetes Job of the started runs of
// Kubernetes jobs (out[i] is runs[i]), with their Pods while this node
// follows them. A run whose job is gone, or that cannot be read, is left
// as it is.
func (s *Server) addKubernetes(ctx context.Context, runs []store.Run, out []apitype.Run) {
	specs := map[string]*store.KubernetesSpec{}
	live, _ := s.cfg.Controller.(KubernetesRunner)
	for i, r := range runs {
		if r.StartedAt.IsZero() {
			continue
		}
		k, seen := specs[r.Job]
		if !seen {
			if j, err := s.cfg.Store.JobGet(ctx, r.Job); err == nil {
				k = j.Spec.Kubernetes
			}
			specs[r.Job] = k
		}
		if k == nil {
			continue
		}
		rk := &apitype.RunKubernetes{Context: k.Context, Namespace: k.Namespace, Job: kubespec.JobName(r.Job, r.ScheduledTime, r.Attempt)}
		if live != nil && !r.State.Terminal() {
			if kr, ok := live.RunKubernetes(r.ID); ok {
				for _, p := range kr.Pods {
					rk.Pods = append(rk.Pods, apitype.KubernetesPod{Name: p.Name, Phase: p.Phase})
				}
			}
		}
		out[i].Kubernetes = rk
	}
}
