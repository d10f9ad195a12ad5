package kubespec

import (
	"strings"
	"testing"
)

const hello = `
metadata:
  labels: {team: data}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: hello
        image: busybox
        command: [sh, -c, "echo hello"]
`

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"yaml", hello, ""},
		{"json", `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"b"}]}}}}`, ""},
		{"empty", "  \n", "empty"},
		{"too long", strings.Repeat("#", MaxTemplateBytes+1), "limit"},
		{"not yaml", "spec: [", "not a batch/v1 JobTemplateSpec"},
		{"unknown field", "spec:\n  templat: {}\n", "unknown field"},
		{"wrong type", "spec:\n  backoffLimit: lots\n", "not a batch/v1 JobTemplateSpec"},
		{"no containers", "spec:\n  template:\n    spec: {}\n", "no containers"},
		{"no image", "spec:\n  template:\n    spec:\n      containers: [{name: a}]\n", "no image"},
		{"no name", "spec:\n  template:\n    spec:\n      containers: [{image: a}]\n", "no name"},
		{"restart always", "spec:\n  template:\n    spec:\n      restartPolicy: Always\n      containers: [{name: a, image: b}]\n", "restartPolicy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := ParseTemplate(tt.text)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("ParseTemplate: %v", err)
				}
				if tpl.Spec.Template.Spec.Containers[0].Name == "" {
					t.Fatalf("no container read: %+v", tpl)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("ParseTemplate error %v, want one containing %q", err, tt.err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestCheckNamespaceAndContext(t *testing.T) {
	for _, ns := range []string{"default", "team-a", "a1"} {
		if err := CheckNamespace(ns); err != nil {
			t.Errorf("CheckNamespace(%q): %v", ns, err)
		}
	}
	for _, ns := range []string{"", "Team", "a_b", "-a", strings.Repeat("a", 64)} {
		if err := CheckNamespace(ns); err == nil {
			t.Errorf("CheckNamespace(%q) accepted", ns)
		}
	}
	if err := CheckContext("kind-kind"); err != nil {
		t.Error(err)
	}
	for _, c := range []string{"a\nb", strings.Repeat("x", MaxContextBytes+1)} {
		if err := CheckContext(c); err == nil {
			t.Errorf("CheckContext(%q) accepted", c)
		}
	}
}

func FuzzParseTemplate(f *testing.F) {
	f.Add(hello)
	f.Add(`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"b"}]}}}}`)
	f.Add("spec: [")
	f.Fuzz(func(t *testing.T, text string) {
		tpl, err := ParseTemplate(text)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if len(tpl.Spec.Template.Spec.Containers) == 0 {
			t.Fatal("accepted a template without containers")
		}
	})
}
