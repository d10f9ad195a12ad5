package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestRunAsIDsOutOfRange sends run_as ids past 32 bits, which once wrapped
// to a real user (4294967296 to root): each is refused with 422 naming the
// field and the id, and no job is created.
func TestRunAsIDsOutOfRange(t *testing.T) {
	b := setup(t)
	for _, runAs := range []string{"4294967296", "4294967297", "-1", "9223372036854775808",
		"65534:4294967296", "65534:4294967297", "65534:-1", "65534:9223372036854775808"} {
		t.Run(runAs, func(t *testing.T) {
			r := b.do(t, "PUT", "/api/v1/jobs/wrap", fmt.Sprintf(`{"cron":"0 3 * * *","command":"true","run_as":%q}`, runAs))
			if r.code != 422 || !strings.Contains(r.body, "run_as") || !strings.Contains(r.body, strings.TrimPrefix(runAs, "65534:")) {
				t.Fatalf("PUT run_as %q = %d %s, want 422 naming run_as and the id", runAs, r.code, r.body)
			}
			if r := b.do(t, "GET", "/api/v1/jobs/wrap", ""); r.code != 404 {
				t.Fatalf("after the refusal GET = %d %s, want 404", r.code, r.body)
			}
		})
	}
}
