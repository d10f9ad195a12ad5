// Package kubespec reads the Kubernetes part of a job spec: the batch/v1
// JobTemplateSpec a run's Job is made from, and the namespace and context
// it names. The job validator and the Kubernetes executor share it, so a
// template that validates is one the executor can create.
package kubespec

import (
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// MaxTemplateBytes bounds a job template's text.
const MaxTemplateBytes = 256 << 10

// MaxContextBytes bounds a kubeconfig context's name.
const MaxContextBytes = 253

// ParseTemplate reads a batch/v1 JobTemplateSpec from YAML or JSON text
// (JSON is YAML). Unknown fields are errors, so a misspelt field is not
// dropped silently; the Pod template needs at least one container, each
// with a name and an image.
func ParseTemplate(text string) (batchv1.JobTemplateSpec, error) {
	var t batchv1.JobTemplateSpec
	switch {
	case strings.TrimSpace(text) == "":
		return t, errors.New("the job template is empty")
	case len(text) > MaxTemplateBytes:
		return t, fmt.Errorf("the job template is %d bytes long; the limit is %d", len(text), MaxTemplateBytes)
	}
	if err := yaml.UnmarshalStrict([]byte(text), &t); err != nil {
		return t, fmt.Errorf("the job template is not a batch/v1 JobTemplateSpec: %s", oneLine(err.Error()))
	}
	cs := t.Spec.Template.Spec.Containers
	if len(cs) == 0 {
		return t, errors.New("the job template has no containers (spec.template.spec.containers)")
	}
	for i, c := range cs {
		switch {
		case c.Name == "":
			return t, fmt.Errorf("spec.template.spec.containers[%d] has no name", i)
		case c.Image == "":
			return t, fmt.Errorf("spec.template.spec.containers[%d] (%s) has no image", i, c.Name)
		}
	}
	switch p := t.Spec.Template.Spec.RestartPolicy; p {
	case "", "Never", "OnFailure":
	default:
		return t, fmt.Errorf("spec.template.spec.restartPolicy %q: a Job's Pods restart Never or OnFailure", p)
	}
	return t, nil
}

// CheckNamespace checks a namespace name (a DNS-1123 label).
func CheckNamespace(ns string) error {
	if ns == "" {
		return errors.New("a Kubernetes job needs a namespace")
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}

// CheckContext checks a kubeconfig context's name: any text without
// control characters, bounded.
func CheckContext(name string) error {
	if len(name) > MaxContextBytes {
		return fmt.Errorf("context is %d bytes long; the limit is %d", len(name), MaxContextBytes)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("context %q contains a control character", name)
		}
	}
	return nil
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
