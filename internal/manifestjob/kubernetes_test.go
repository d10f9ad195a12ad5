package manifestjob

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestKubernetesAttribute: a job's kubernetes hash reaches the spec, the
// template as YAML text or as a nested hash (kept as JSON); mistakes are
// positioned.
func TestKubernetesAttribute(t *testing.T) {
	set, err := FromCatalog(compile(t, `
job { 'text':
  cron => '0 3 * * *',
  kubernetes => { namespace => 'batch', context => 'prod', job_template => "spec:\n  template:\n    spec:\n      containers: [{name: a, image: busybox}]\n" },
}
job { 'hash':
  cron => '0 4 * * *',
  kubernetes => {
    namespace => 'batch',
    job_template => { spec => { backoffLimit => 2, template => { spec => { restartPolicy => 'Never', containers => [{ name => 'a', image => 'busybox', args => ['--all'] }] } } } },
  },
}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(set.Jobs)
	for _, want := range []string{
		`"kubernetes":{"namespace":"batch","context":"prod","job_template":"spec:\n  template:\n    spec:\n      containers: [{name: a, image: busybox}]\n"}`,
		`"kubernetes":{"namespace":"batch","job_template":"{\"spec\":{\"backoffLimit\":2,\"template\":{\"spec\":{\"containers\":[{\"args\":[\"--all\"],\"image\":\"busybox\",\"name\":\"a\"}],\"restartPolicy\":\"Never\"}}}}"}`,
	} {
		if !strings.Contains(strings.ReplaceAll(string(got), `\\`, `\`), strings.ReplaceAll(want, `\\`, `\`)) && !strings.Contains(string(got), want) {
			t.Errorf("jobs %s\ndo not contain %s", got, want)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"job { 'a': cron => '* * * * *' }", "the 'command' attribute is required"},
		{"job { 'a': cron => '* * * * *', kubernetes => { namespace => 'b', job_template => 'spec: [' } }", "site.pp:1:7: Job[a]: kubernetes.job_template: the job template is not a batch/v1 JobTemplateSpec"},
		{"job { 'a': cron => '* * * * *', kubernetes => { namespace => 'b', job_template => 3 } }", "job_template must be YAML text (a String) or a Hash"},
		{"job { 'a': cron => '* * * * *', kubernetes => { namespace => 'b', image => 'x' } }", `unknown key "image"`},
		{"job { 'a': cron => '* * * * *', command => 'x', kubernetes => { namespace => 'b', job_template => { spec => { template => { spec => { containers => [{ name => 'a', image => 'b' }] } } } } } }", "not both"},
	} {
		_, err := fromCatalogErr(t, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}
