package importer

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/almanac-sh/almanac/internal/kubespec"
)

// The executors a CronJob can be imported for (CronJobOptions.Executor).
const (
	// ExecutorHost runs the first container's command (or, with a
	// container runtime, its image) on almanac's host.
	ExecutorHost = "host"
	// ExecutorKubernetes keeps the CronJob's jobTemplate: each run is a
	// Kubernetes Job made from it, in the CronJob's namespace.
	ExecutorKubernetes = "kubernetes"
)

// cronJobToKubernetesJob maps one CronJob to a Kubernetes job: its
// schedule and zone, its policies and history limits and suspend, and its
// jobTemplate as it is written (the Job's own backoffLimit and
// activeDeadlineSeconds stay in it, so the job has no backoff_limit or
// timeout of its own). false when it cannot be run as a job.
func cronJobToKubernetesJob(file, what string, node *yaml.Node, cj *cronJob, taken *names, opts CronJobOptions, warn func(string, ...any)) (*job, bool) {
	spec := &cj.Spec
	tplNode := jobTemplateNode(node)
	if tplNode == nil {
		warn("no spec.jobTemplate; not imported")
		return nil, false
	}
	var buf strings.Builder
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	err := enc.Encode(tplNode)
	if err == nil {
		err = enc.Close()
	}
	text := buf.String()
	if err != nil {
		warn("spec.jobTemplate: %v; not imported", err)
		return nil, false
	}
	if _, err := kubespec.ParseTemplate(text); err != nil {
		warn("spec.jobTemplate: %v; not imported", err)
		return nil, false
	}
	ns := cj.Metadata.Namespace
	if ns == "" {
		ns = "default"
		warn("no metadata.namespace; the Jobs go to namespace default")
	}
	if err := kubespec.CheckNamespace(ns); err != nil {
		warn("%v; not imported", err)
		return nil, false
	}
	base := cj.Metadata.Name
	if cj.Metadata.Namespace != "" && !opts.NoNamespacePrefix {
		base = cj.Metadata.Namespace + "-" + base
	}
	j := &job{name: taken.make(base)}
	j.comments = append(j.comments, fmt.Sprintf("%s: %s: %s %s (%s), run as Kubernetes Jobs", file, what, cj.Kind, cj.Metadata.Name, cj.APIVersion))
	for _, k := range sortedKeys(spec.Extra) {
		j.comments = append(j.comments, "not imported: CronJob field "+k)
		warn("CronJob field %s is not imported", k)
	}
	if !cronJobSchedule(j, spec.Schedule, spec.TimeZone, warn) {
		return nil, false
	}
	j.set("kubernetes", fmt.Sprintf("{\n    namespace    => %s,\n    job_template => %s,\n  }", quote(ns), quote(text)))
	cronJobLimits(j, cj, warn)
	return j, true
}

// jobTemplateNode is the spec.jobTemplate mapping of a CronJob's node.
func jobTemplateNode(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return mappingValue(mappingValue(n, "spec"), "jobTemplate")
}

// mappingValue is the value of key in mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}
