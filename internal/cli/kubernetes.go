package cli

import (
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/inputfile"
)

// kubernetesFlags reads run's --kubernetes-* flags: nil when none is
// given; a usage error when they are incomplete or come with a COMMAND.
func kubernetesFlags(ns, tplFile, context string, command bool) (*apitype.KubernetesSpec, error) {
	if ns == "" && tplFile == "" && context == "" {
		return nil, nil
	}
	switch {
	case command:
		return nil, usagef("run: a Kubernetes job (--kubernetes-*) runs its template, not a COMMAND")
	case ns == "" || tplFile == "":
		return nil, usagef("run: a Kubernetes job needs --kubernetes-namespace and --kubernetes-template")
	}
	tpl, err := inputfile.Read(tplFile)
	if err != nil {
		return nil, usagef("run: --kubernetes-template: %v", unwrapPath(err))
	}
	return &apitype.KubernetesSpec{Namespace: ns, Context: context, JobTemplate: apitype.TemplateText(tpl)}, nil
}

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
