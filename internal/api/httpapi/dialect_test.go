package httpapi_test

import (
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TestScheduleDialectFields: on_calendar, cron_dialect and
// randomized_delay_seconds round-trip through PUT and GET, and bad values
// answer 422 naming the field.
func TestScheduleDialectFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, "PUT", "/api/v1/jobs/report", `{"on_calendar":[" Mon..Fri *-*-* 09:00 ","Sat 12:00"],"time_zone":"Europe/Berlin","randomized_delay_seconds":120,"command":"true"}`)
	if r.code != 201 && r.code != 200 {
		t.Fatalf("PUT: %d %s", r.code, r.body)
	}
	var j apitype.Job
	b.do(t, "GET", "/api/v1/jobs/report", "").decode(t, &j)
	if strings.Join(j.Spec.OnCalendar, "|") != "Mon..Fri *-*-* 09:00|Sat 12:00" || j.Spec.RandomizedDelaySeconds != 120 || j.Spec.Cron != "" {
		t.Fatalf("GET spec = %+v", j.Spec)
	}
	if r := b.do(t, "PUT", "/api/v1/jobs/kube", `{"cron":"0 0 */2 * 1","cron_dialect":"kubernetes","command":"true"}`); r.code != 201 && r.code != 200 {
		t.Fatalf("PUT kubernetes: %d %s", r.code, r.body)
	}
	b.do(t, "GET", "/api/v1/jobs/kube", "").decode(t, &j)
	if j.Spec.CronDialect != "kubernetes" {
		t.Fatalf("GET spec = %+v", j.Spec)
	}
	for _, tc := range []struct{ body, field, msg string }{
		{`{"on_calendar":["Fri..Mon"],"command":"true"}`, "on_calendar[0]", "column 6"},
		{`{"on_calendar":["daily"],"cron":"* * * * *","command":"true"}`, "cron", "only one"},
		{`{"cron":"0 0 L * *","cron_dialect":"kubernetes","command":"true"}`, "cron", "Kubernetes"},
		{`{"cron":"* * * * *","cron_dialect":"quartz","command":"true"}`, "cron_dialect", "quartz"},
		{`{"cron":"* * * * *","randomized_delay_seconds":-5,"command":"true"}`, "randomized_delay_seconds", "-5"},
	} {
		r := b.do(t, "PUT", "/api/v1/jobs/bad", tc.body)
		if r.code != 422 {
			t.Errorf("%s: %d %s, want 422", tc.body, r.code, r.body)
			continue
		}
		if e := r.apiErr(t); e.Field != tc.field || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: field %q message %q, want %q containing %q", tc.body, e.Field, e.Message, tc.field, tc.msg)
		}
	}
}
