package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// TestJobNodes: a job's nodes selector is stored (trimmed) and read back.
func TestJobNodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tt := range []struct{ in, want string }{
		{"", ""}, {" all ", "all"}, {"role=db, zone notin (eu)", "role=db, zone notin (eu)"},
	} {
		r := b.do(t, "PUT", "/api/v1/jobs/fleet", `{"cron":"0 2 * * *","command":"true","nodes":"`+tt.in+`"}`)
		if r.code != http.StatusCreated && r.code != http.StatusOK {
			t.Fatalf("put nodes %q: %d %s", tt.in, r.code, r.body)
		}
		var j apitype.Job
		b.do(t, "GET", "/api/v1/jobs/fleet", "").decode(t, &j)
		if j.Spec.Nodes != tt.want {
			t.Errorf("nodes %q read back as %q, want %q", tt.in, j.Spec.Nodes, tt.want)
		}
		if st, _ := b.st.Job("fleet"); st.Spec.Nodes != tt.want {
			t.Errorf("nodes %q stored as %q", tt.in, st.Spec.Nodes)
		}
	}
}
