package job

import (
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// kubernetes checks a Kubernetes job: a namespace, a context if any, a
// job template that parses as a batch/v1 JobTemplateSpec, and none of the
// fields that describe a local command (the template says what runs). Its
// runs are not fanned out over almanac's nodes: the cluster places them.
func (v *validator) kubernetes(spec *store.JobSpec) {
	k := spec.Kubernetes
	if len(spec.Command) > 0 || spec.Shell != "" {
		v.add("command", "a job runs either a command or a Kubernetes Job (kubernetes), not both")
	}
	if err := kubespec.CheckNamespace(k.Namespace); err != nil {
		v.add("kubernetes.namespace", "%v", err)
	}
	if err := kubespec.CheckContext(k.Context); err != nil {
		v.add("kubernetes.context", "%v", err)
	}
	if _, err := kubespec.ParseTemplate(k.JobTemplate); err != nil {
		v.add("kubernetes.job_template", "%v", err)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"run_as", spec.RunAs != ""},
		{"cwd", spec.Cwd != ""},
		{"env", len(spec.Env) > 0},
		{"nodes", spec.Nodes != "" && spec.Nodes != "any"},
	} {
		if f.set {
			v.add(f.name, "does not apply to a Kubernetes job: its job template says what runs, as whom and where")
		}
	}
}
