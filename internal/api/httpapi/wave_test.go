package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestWaveRoutes checks the wave routes' answers that do not depend on the
// controller's wave logic: unknown jobs, jobs without a wave, pause of a
// job that does not fan out, pause and resume of one that does, bad
// parameters and methods.
func TestWaveRoutes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "solo", Cron: "* * * * *", Shell: "true"}, Version: 1})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "fleet", Cron: "* * * * *", Shell: "true", Nodes: "role=db"}, Version: 1})
	tests := []struct {
		name, method, path string
		code               int
		msg                string // substring of the error message
	}{
		{"status of unknown job", "GET", "/api/v1/jobs/nope/wave", 404, `job "nope" not found`},
		{"pause unknown job", "POST", "/api/v1/jobs/nope/wave/pause", 404, `job "nope" not found`},
		{"resume unknown job", "POST", "/api/v1/jobs/nope/wave/resume", 404, `job "nope" not found`},
		{"abort unknown job", "POST", "/api/v1/jobs/nope/wave/abort", 404, `job "nope" not found`},
		{"invalid job name", "GET", "/api/v1/jobs/a%20b/wave", 404, `not found`},
		{"no wave, nodes any", "GET", "/api/v1/jobs/solo/wave", 404,
			`job "solo" has no wave: no instant of it has fanned out to nodes (its nodes selector is any: each instant is one run on any node)`},
		{"no wave yet", "GET", "/api/v1/jobs/fleet/wave", 404, `job "fleet" has no wave: no instant of it has fanned out to nodes`},
		{"no wave at instant", "GET", "/api/v1/jobs/fleet/wave?instant=2030-06-01T14:00:00%2B02:00", 404,
			`job "fleet" has no wave at 2030-06-01T12:00:00Z: no runs of that instant were fanned out to nodes`},
		{"bad instant", "GET", "/api/v1/jobs/fleet/wave?instant=noon", 400, `"noon" is not an RFC 3339 time`},
		{"instant out of range", "GET", "/api/v1/jobs/fleet/wave?instant=0001-01-01T00:00:00Z", 400, `is outside 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z`},
		{"unknown parameter", "GET", "/api/v1/jobs/fleet/wave?at=x", 400, `unknown query parameter`},
		{"pause without fan-out", "POST", "/api/v1/jobs/solo/wave/pause", 409,
			`job "solo" does not fan out (its nodes selector is any), so it has no waves to pause`},
		{"abort with nothing waiting", "POST", "/api/v1/jobs/solo/wave/abort", 200, ""},
		{"pause is a POST", "GET", "/api/v1/jobs/fleet/wave/pause", 405, "not allowed"},
		{"status is a GET", "POST", "/api/v1/jobs/fleet/wave", 405, "not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := b.do(t, tt.method, tt.path, "")
			if r.code != tt.code {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, r.code, r.body, tt.code)
			}
			if tt.code >= 400 {
				if e := r.apiErr(t); !strings.Contains(e.Message, tt.msg) || strings.Contains(e.Message, "\n") {
					t.Errorf("message %q, want it to contain %q", e.Message, tt.msg)
				}
			}
		})
	}

	// Pause and resume set the job's wave_paused, and are idempotent.
	for _, step := range []struct {
		op   string
		want bool
	}{{"pause", true}, {"pause", true}, {"resume", false}, {"resume", false}} {
		r := b.do(t, "POST", "/api/v1/jobs/fleet/wave/"+step.op, "")
		var j apitype.Job
		r.decode(t, &j)
		if r.code != http.StatusOK || j.Name != "fleet" || j.Spec.WavePaused != step.want {
			t.Fatalf("%s: %d %s", step.op, r.code, r.body)
		}
		if st, _ := b.st.Job("fleet"); st.Spec.WavePaused != step.want {
			t.Fatalf("after %s the stored job has wave_paused %v", step.op, st.Spec.WavePaused)
		}
	}
	// Resume needs no fan-out: it clears a pause left from before the
	// job's nodes became any.
	if r := b.do(t, "POST", "/api/v1/jobs/solo/wave/resume", ""); r.code != http.StatusOK {
		t.Fatalf("resume solo: %d %s", r.code, r.body)
	}
	var res apitype.WaveAbortResult
	b.do(t, "POST", "/api/v1/jobs/fleet/wave/abort", "").decode(t, &res)
	if res.Job != "fleet" || res.Skipped != 0 {
		t.Errorf("abort = %+v", res)
	}
}

// TestWaveRoutesGuarded: the mutating wave routes are guarded like the
// other job actions (token, cross-origin), and status needs the token.
func TestWaveRoutesGuarded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
		req   []string // method, path, then header pairs
		code  int
	}{
		{"status without token", "s3cret", []string{"GET", "/api/v1/jobs/a/wave"}, 401},
		{"pause without token", "s3cret", []string{"POST", "/api/v1/jobs/a/wave/pause"}, 401},
		{"resume with a wrong token", "s3cret", []string{"POST", "/api/v1/jobs/a/wave/resume", "Authorization", "Bearer nope"}, 401},
		{"abort without token", "s3cret", []string{"POST", "/api/v1/jobs/a/wave/abort"}, 401},
		{"abort with the token", "s3cret", []string{"POST", "/api/v1/jobs/a/wave/abort", "Authorization", "Bearer s3cret"}, 200},
		{"cross-site pause", "", []string{"POST", "/api/v1/jobs/a/wave/pause", "Sec-Fetch-Site", "cross-site"}, 403},
		{"cross-origin abort", "", []string{"POST", "/api/v1/jobs/a/wave/abort", "Origin", "http://evil.example"}, 403},
		{"cross-origin resume", "s3cret", []string{"POST", "/api/v1/jobs/a/wave/resume", "Origin", "http://evil.example", "Authorization", "Bearer s3cret"}, 403},
		{"foreign host", "", []string{"POST", "/api/v1/jobs/a/wave/pause", "Host", "evil.example"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *httpapi.Config) { c.Token = tt.token })
			b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true", Nodes: "all"}, Version: 1})
			r := b.do(t, tt.req[0], tt.req[1], "", tt.req[2:]...)
			if r.code != tt.code {
				t.Fatalf("status %d, want %d: %s", r.code, tt.code, r.body)
			}
			if j, _ := b.st.Job("a"); r.code >= 400 && (j.Spec.WavePaused || len(b.ctrl.Changed()) > 0) {
				t.Errorf("a refused request changed the job: %+v", j.Spec)
			}
		})
	}
}
