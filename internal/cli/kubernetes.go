package cli

import (
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// kubernetesTarget is where a Kubernetes job's runs go: "namespace NS"
// and ", context CTX" when it names one.
func kubernetesTarget(k *apitype.KubernetesSpec) string {
	s := "namespace " + k.Namespace
	if k.Context != "" {
		s += ", context " + k.Context
	}
	return s
}

// runKubernetesJob names a run's Kubernetes Job: "[CONTEXT:]NAMESPACE/JOB".
func runKubernetesJob(k *apitype.RunKubernetes) string {
	if k == nil {
		return ""
	}
	s := k.Namespace + "/" + k.Job
	if k.Context != "" {
		s = k.Context + ":" + s
	}
	return s
}

// runKubernetesPods lists a run's Pods with their phases: "NAME (PHASE), ...".
func runKubernetesPods(k *apitype.RunKubernetes) string {
	if k == nil {
		return ""
	}
	parts := make([]string, len(k.Pods))
	for i, p := range k.Pods {
		parts[i] = p.Name + " (" + p.Phase + ")"
	}
	return strings.Join(parts, ", ")
}
