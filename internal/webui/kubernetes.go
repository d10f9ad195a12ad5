package webui

import (
	"context"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// runKubernetes names the Kubernetes Job of a started run of a Kubernetes
// job, with its Pods while this node follows it; nil for any other run.
func (d *daemonBackend) runKubernetes(ctx context.Context, r store.Run) *KubernetesRun {
	if r.StartedAt.IsZero() {
		return nil
	}
	j, err := d.cfg.Store.JobGet(ctx, r.Job)
	if err != nil || j.Spec.Kubernetes == nil {
		return nil
	}
	k := j.Spec.Kubernetes
	out := &KubernetesRun{Context: k.Context, Namespace: k.Namespace, Job: kubespec.JobName(r.Job, r.ScheduledTime, r.Attempt)}
	if live, ok := d.cfg.Jobs.(httpapi.KubernetesRunner); ok && !r.State.Terminal() {
		if kr, ok := live.RunKubernetes(r.ID); ok {
			for _, p := range kr.Pods {
				out.Pods = append(out.Pods, KubernetesPod{Name: p.Name, Phase: p.Phase})
			}
		}
	}
	return out
}
