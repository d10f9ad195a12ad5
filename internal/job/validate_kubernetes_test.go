package job

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

const kubeTemplate = "spec:\n  template:\n    spec:\n      containers: [{name: a, image: busybox}]\n"

func TestValidateKubernetes(t *testing.T) {
	base := func() store.JobSpec {
		return store.JobSpec{Name: "k", Cron: "0 3 * * *", Kubernetes: &store.KubernetesSpec{Namespace: "batch", JobTemplate: kubeTemplate}}
	}
	tests := []struct {
		name   string
		change func(*store.JobSpec)
		field  string // "" = valid
	}{
		{"valid", func(*store.JobSpec) {}, ""},
		{"with context", func(s *store.JobSpec) { s.Kubernetes.Context = "prod-eu" }, ""},
		{"with a command too", func(s *store.JobSpec) { s.Shell = "true" }, "command"},
		{"no namespace", func(s *store.JobSpec) { s.Kubernetes.Namespace = "" }, "kubernetes.namespace"},
		{"bad namespace", func(s *store.JobSpec) { s.Kubernetes.Namespace = "Upper" }, "kubernetes.namespace"},
		{"bad context", func(s *store.JobSpec) { s.Kubernetes.Context = "a\nb" }, "kubernetes.context"},
		{"no template", func(s *store.JobSpec) { s.Kubernetes.JobTemplate = "" }, "kubernetes.job_template"},
		{"unparsable template", func(s *store.JobSpec) { s.Kubernetes.JobTemplate = "spec: [" }, "kubernetes.job_template"},
		{"run_as", func(s *store.JobSpec) { s.RunAs = "nobody" }, "run_as"},
		{"env", func(s *store.JobSpec) { s.Env = map[string]string{"A": "b"} }, "env"},
		{"cwd", func(s *store.JobSpec) { s.Cwd = "/tmp" }, "cwd"},
		{"fanned out", func(s *store.JobSpec) { s.Nodes = "all" }, "nodes"},
		{"no command nor kubernetes", func(s *store.JobSpec) { s.Kubernetes = nil }, "command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := base()
			tt.change(&spec)
			err := Validate(&spec, ParseCron)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.field+": ") {
				t.Fatalf("Validate error %v, want one naming %s", err, tt.field)
			}
		})
	}
}

// TestKubernetesRulesDocumented checks the template bound docs/jobs.md states.
func TestKubernetesRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/jobs.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{strconv.Itoa(kubespec.MaxTemplateBytes) + " bytes", strconv.Itoa(kubespec.MaxContextBytes) + " bytes"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/jobs.md does not state %q", want)
		}
	}
}
