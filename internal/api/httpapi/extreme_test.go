package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestExtremeValuesNever500 sends every numeric and time field of a job at
// and beyond its limits: the answer is 2xx or 4xx, never a server error.
func TestExtremeValuesNever500(t *testing.T) {
	b := setup(t)
	fields := map[string][]string{
		"starting_deadline_seconds":     {"0", "31622400", "31622401", "10000000000", "9223372036854775807", "-9223372036854775808"},
		"backoff_limit":                 {"0", "100", "101", "1000000", "2147483647", "-1"},
		"successful_jobs_history_limit": {"0", "1000", "1001", "2147483647", "-1"},
		"failed_jobs_history_limit":     {"0", "1000", "1001", "2147483647", "-1"},
		"timeout":                       {`"1s"`, `"8784h"`, `"8785h"`, `"2562047h"`, `"-1s"`},
		"at":                            {`"1970-01-01T00:00:00Z"`, `"1969-12-31T23:59:59Z"`, `"9998-12-31T23:59:59Z"`, `"9999-12-31T23:59:59-14:00"`, `"0001-01-01T00:00:00Z"`},
	}
	for field, values := range fields {
		for _, v := range values {
			t.Run(field+"="+v, func(t *testing.T) {
				body := fmt.Sprintf(`{"cron":"0 3 * * *","command":"true",%q:%s}`, field, v)
				if field == "at" {
					body = fmt.Sprintf(`{"at":%s,"command":"true"}`, v)
				}
				r := b.do(t, "PUT", "/api/v1/jobs/extreme", body)
				if r.code >= 500 {
					t.Fatalf("PUT %s = %d %s", body, r.code, r.body)
				}
			})
		}
	}
	if r := b.do(t, "PUT", "/api/v1/jobs/daily", `{"cron":"0 3 * * *","command":"true"}`); r.code >= 300 {
		t.Fatalf("PUT daily: %d %s", r.code, r.body)
	}
	for _, from := range []string{"9999-12-31T00:00:00Z", "9998-12-31T23:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"} {
		r := b.do(t, "GET", "/api/v1/jobs/daily/next?from="+from, "")
		if r.code >= 500 {
			t.Errorf("next?from=%s = %d %s", from, r.code, r.body)
		}
		if strings.HasPrefix(from, "9999") && r.code != 400 {
			t.Errorf("next?from=%s = %d, want 400", from, r.code)
		}
	}
}

// TestLongNameRefused checks the rule the API and manifests share:
// a 129-byte name is refused with 422, a 128-byte one accepted.
func TestLongNameRefused(t *testing.T) {
	b := setup(t)
	for n, want := range map[int]int{128: 201, 129: 422} {
		r := b.do(t, "PUT", "/api/v1/jobs/"+strings.Repeat("a", n), `{"cron":"0 3 * * *","command":"true"}`)
		if r.code != want {
			t.Errorf("%d-byte name: %d %s, want %d", n, r.code, r.body, want)
		}
	}
}
