package httpapi

import (
	"github.com/almanac-sh/almanac/internal/api/apitype"
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
