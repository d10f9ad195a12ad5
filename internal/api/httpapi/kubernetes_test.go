package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TestKubernetesJobs puts Kubernetes jobs through the API: the template
// as YAML text or as a JSON object, read back as text; what the
// validator refuses is a 422 naming the field; and only a token that may
// write job specs sets the attribute.
func TestKubernetesJobs(t *testing.T) {
	ps := newPermServer(t)
	yamlTpl := `{"cron":"0 3 * * *","kubernetes":{"namespace":"batch","context":"prod","job_template":"spec:\n  template:\n    spec:\n      containers: [{name: a, image: busybox}]\n"}}`
	objTpl := `{"cron":"0 3 * * *","kubernetes":{"namespace":"batch","job_template":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"busybox"}]}}}}}}`
	tests := []struct {
		name, job, body, token string
		code                   int
		want                   string
	}{
		{"yaml text", "k-yaml", yamlTpl, "root", 201, "containers: [{name: a, image: busybox}]"},
		{"object", "k-obj", objTpl, "root", 201, `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"busybox"}]}}}}`},
		{"operator may not", "k-op", yamlTpl, "operator", 403, ""},
		{"bad namespace", "k-ns", strings.Replace(yamlTpl, `"batch"`, `"Batch_1"`, 1), "root", 422, "kubernetes.namespace"},
		{"bad template", "k-tpl", `{"cron":"0 3 * * *","kubernetes":{"namespace":"b","job_template":"spec: {templat: 1}"}}`, "root", 422, "kubernetes.job_template"},
		{"with a command", "k-cmd", `{"cron":"0 3 * * *","command":"true","kubernetes":{"namespace":"b","job_template":{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"b"}]}}}}}}`, "root", 422, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ps.do("PUT", "/api/v1/jobs/"+tt.job, tt.body, ps.token[tt.token])
			if rec.Code != tt.code {
				t.Fatalf("PUT = %d %s, want %d", rec.Code, rec.Body, tt.code)
			}
			if tt.code == 422 && !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("422 body %s does not name %q", rec.Body, tt.want)
			}
			if tt.code != 201 {
				return
			}
			rec = ps.do("GET", "/api/v1/jobs/"+tt.job, "", ps.token["root"])
			var j apitype.Job
			if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil {
				t.Fatal(err)
			}
			k := j.Spec.Kubernetes
			if k == nil || k.Namespace != "batch" || string(k.JobTemplate) != strings.TrimSpace(tt.want) && !strings.Contains(string(k.JobTemplate), tt.want) {
				t.Errorf("GET kubernetes = %+v, want the template %q", k, tt.want)
			}
		})
	}
}
