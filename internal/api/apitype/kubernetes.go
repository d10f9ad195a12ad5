package apitype

import (
	"bytes"
	"encoding/json"
)

// KubernetesSpec is a job's kubernetes attribute: each run is one
// batch/v1 Job made from JobTemplate in Namespace of the cluster Context
// names (docs/kubernetes.md).
type KubernetesSpec struct {
	// Namespace is where the Jobs are created.
	Namespace string `json:"namespace"`
	// Context is a context of the daemon's kubeconfig; empty means its
	// current one.
	Context string `json:"context,omitempty"`
	// JobTemplate is a batch/v1 JobTemplateSpec: YAML or JSON text, or
	// (when sent) a JSON object, which is kept as its text.
	JobTemplate TemplateText `json:"job_template"`
}

// TemplateText is a job template's text. It is written as a JSON string
// and read from a string or an object.
type TemplateText string

// UnmarshalJSON implements json.Unmarshaler.
func (t *TemplateText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return err
		}
		*t = TemplateText(c.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = TemplateText(s)
	return nil
}

// RunKubernetes is where a run of a Kubernetes job executes.
type RunKubernetes struct {
	// Context is the kubeconfig context ("" for the current one).
	Context string `json:"context,omitempty"`
	// Namespace and Job name the run's Kubernetes Job.
	Namespace string `json:"namespace"`
	Job       string `json:"job"`
	// Pods are the Job's Pods with their phases, while the run is active
	// on a node that follows it; the run's output records them too.
	Pods []KubernetesPod `json:"pods,omitempty"`
}

// KubernetesPod is one Pod of a run's Job.
type KubernetesPod struct {
	Name  string `json:"name"`
	Phase string `json:"phase"`
}
