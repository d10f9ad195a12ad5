package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

type testBundle struct {
	st      *apitest.MemStore
	ctrl    *apitest.Controller
	srv     *httpapi.Server
	metrics *httpapi.Metrics
}

func setup(t *testing.T, mod ...func(*httpapi.Config)) *testBundle {
	t.Helper()
	st := apitest.NewMemStore()
	ctrl := &apitest.Controller{St: st, Now: t0}
	cfg := httpapi.Config{Store: st, Controller: ctrl, Clock: clock.NewFake(t0), Metrics: httpapi.NewMetrics(st), Version: "test"}
	for _, f := range mod {
		f(&cfg)
	}
	return &testBundle{st: st, ctrl: ctrl, srv: httpapi.New(cfg), metrics: cfg.Metrics}
}

type response struct {
	code int
	body string
	hdr  http.Header
}

// apiErr decodes an error body, failing the test if it is not one.
func (r response) apiErr(t *testing.T) *apitype.Error {
	t.Helper()
	var eb apitype.ErrorBody
	if err := json.Unmarshal([]byte(r.body), &eb); err != nil || eb.Error == nil {
		t.Fatalf("body is not a JSON error: %q", r.body)
	}
	if eb.Error.Message == "" {
		t.Fatalf("error has no message: %q", r.body)
	}
	return eb.Error
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.body), v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
}

// do sends a request to the server as a local client would.
func (b *testBundle) do(t *testing.T, method, path, body string, hdr ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Host = "127.0.0.1:8080"
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	b.srv.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

func TestJobLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	next := time.Date(2030, 6, 2, 2, 0, 0, 0, time.UTC)
	b.ctrl.SetNext("backup", next)

	spec := `{"cron":"0 2 * * *","time_zone":"europe-berlin","command":["tar","czf","/tmp/b.tgz","/etc"],"concurrency_policy":"forbid","timeout":"1h"}`
	r := b.do(t, "PUT", "/api/v1/jobs/backup", spec)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	var j apitype.Job
	r.decode(t, &j)
	if j.Name != "backup" || j.Source != "api" || j.Spec.TimeZone != "Europe/Berlin" ||
		j.Spec.ConcurrencyPolicy != "Forbid" || time.Duration(j.Spec.Timeout) != time.Hour ||
		j.Spec.Command.String() != "tar czf /tmp/b.tgz /etc" {
		t.Fatalf("created job = %+v", j)
	}
	if j.Status.NextScheduleTime == nil || !j.Status.NextScheduleTime.Equal(next) {
		t.Fatalf("next_schedule_time = %v, want %v", j.Status.NextScheduleTime, next)
	}

	// The same spec again changes nothing and logs nothing.
	if r := b.do(t, "PUT", "/api/v1/jobs/backup", spec); r.code != http.StatusOK {
		t.Fatalf("idempotent put: %d %s", r.code, r.body)
	}
	if n := len(b.st.Events()); n != 1 {
		t.Fatalf("%d events after an unchanged put, want 1", n)
	}
	r = b.do(t, "PUT", "/api/v1/jobs/backup", `{"cron":"0 3 * * *","command":"echo hi"}`)
	if r.code != http.StatusOK {
		t.Fatalf("update: %d %s", r.code, r.body)
	}
	r.decode(t, &j)
	if j.Spec.Cron != "0 3 * * *" || j.Spec.Command.Shell != "echo hi" || j.Spec.ConcurrencyPolicy != "Allow" {
		t.Fatalf("updated job = %+v", j.Spec)
	}

	r = b.do(t, "POST", "/api/v1/jobs/backup/suspend", "")
	r.decode(t, &j)
	if r.code != http.StatusOK || !j.Spec.Suspend {
		t.Fatalf("suspend: %d %s", r.code, r.body)
	}
	b.do(t, "POST", "/api/v1/jobs/backup/suspend", "") // idempotent
	r = b.do(t, "POST", "/api/v1/jobs/backup/resume", "")
	j = apitype.Job{}
	r.decode(t, &j)
	if r.code != http.StatusOK || j.Spec.Suspend {
		t.Fatalf("resume: %d %s", r.code, r.body)
	}

	r = b.do(t, "POST", "/api/v1/jobs/backup/trigger", "")
	if r.code != http.StatusCreated {
		t.Fatalf("trigger: %d %s", r.code, r.body)
	}
	var tr apitype.TriggerResult
	r.decode(t, &tr)
	if tr.Run.Job != "backup" || tr.Run.Reason != "manual" || tr.Run.ID == 0 {
		t.Fatalf("trigger result = %+v", tr)
	}

	var page apitype.Page[apitype.Job]
	r = b.do(t, "GET", "/api/v1/jobs", "")
	r.decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].Name != "backup" {
		t.Fatalf("list = %s", r.body)
	}

	kinds := []store.EventKind{}
	for _, e := range b.st.Events() {
		kinds = append(kinds, e.Kind)
	}
	want := []store.EventKind{store.EventJobCreated, store.EventJobUpdated, store.EventJobSuspended, store.EventJobResumed, store.EventRunScheduled}
	if len(kinds) != len(want) {
		t.Fatalf("events = %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("events = %v, want %v", kinds, want)
		}
	}

	if r := b.do(t, "DELETE", "/api/v1/jobs/backup", ""); r.code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if r := b.do(t, "GET", "/api/v1/jobs/backup", ""); r.code != http.StatusNotFound || !strings.Contains(r.apiErr(t).Message, `"backup"`) {
		t.Fatalf("get after delete: %d %s", r.code, r.body)
	}
	if got := strings.Join(b.ctrl.Changed(), ","); got != "backup,backup,backup,backup,backup" {
		t.Fatalf("controller told of changes %q", got)
	}
}

func TestManifestJobsAreReadOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "web", Cron: "* * * * *", Shell: "true"}, Source: store.SourceManifest, Version: 1})
	if r := b.do(t, "PUT", "/api/v1/jobs/web", `{"cron":"* * * * *","command":"false"}`); r.code != http.StatusConflict {
		t.Fatalf("put manifest job: %d %s", r.code, r.body)
	}
	if r := b.do(t, "DELETE", "/api/v1/jobs/web", ""); r.code != http.StatusConflict {
		t.Fatalf("delete manifest job: %d %s", r.code, r.body)
	}
	if r := b.do(t, "POST", "/api/v1/jobs/web/suspend", ""); r.code != http.StatusOK {
		t.Fatalf("suspend manifest job: %d %s", r.code, r.body)
	}
	if j, _ := b.st.Job("web"); !j.Spec.Suspend || j.Source != store.SourceManifest {
		t.Fatalf("after suspend: %+v", j)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	big := `{"cron":"* * * * *","command":"` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`
	tests := []struct {
		name, method, path, body string
		hdr                      []string
		code                     int
		field                    string
		msg                      string
	}{
		{"no schedule", "PUT", "/api/v1/jobs/a", `{"command":"true"}`, nil, 422, "cron", "cron"},
		{"bad nodes", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","nodes":"role in (db"}`, nil, 422, "nodes", "col 12: value list not closed"},
		{"both schedules", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","at":"2030-01-01T00:00:00Z","command":"true"}`, nil, 422, "cron", "not both"},
		{"no command", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *"}`, nil, 422, "command", "needs a command"},
		{"empty argv0", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":[""]}`, nil, 422, "command[0]", "empty"},
		{"command type", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":5}`, nil, 400, "command", "string or an array"},
		{"bad zone", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","time_zone":"Mars/Olympus"}`, nil, 422, "time_zone", "Mars/Olympus"},
		{"bad policy", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","concurrency_policy":"Sometimes"}`, nil, 422, "concurrency_policy", "Allow, Forbid, Replace"},
		{"negative deadline", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","starting_deadline_seconds":-1}`, nil, 422, "starting_deadline_seconds", "-1"},
		{"deadline type", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","starting_deadline_seconds":"soon"}`, nil, 400, "starting_deadline_seconds", "integer"},
		{"backoff", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","backoff_limit":1000}`, nil, 422, "backoff_limit", "1000"},
		{"timeout fraction", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","timeout":"1.5s"}`, nil, 422, "timeout", "whole"},
		{"timeout text", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","timeout":"soon"}`, nil, 400, "", "soon"},
		{"history", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","failed_jobs_history_limit":-2}`, nil, 422, "failed_jobs_history_limit", "-2"},
		{"relative cwd", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","cwd":"tmp"}`, nil, 422, "cwd", "absolute"},
		{"env name", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","env":{"A=B":"c"}}`, nil, 422, "env", "A=B"},
		{"require self", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","require":["a"]}`, nil, 422, "require[0]", "itself"},
		{"before cycle", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","require":["b"],"before":["b"]}`, nil, 422, "before[0]", "cycle"},
		{"require bad name", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","require":["b","no spaces"]}`, nil, 422, "require[1]", "no spaces"},
		{"unknown field", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true","shedule":"x"}`, nil, 400, "shedule", "unknown field"},
		{"syntax", "PUT", "/api/v1/jobs/a", `{"cron":`, nil, 400, "", "ends in the middle"},
		{"bad json", "PUT", "/api/v1/jobs/a", `{"cron" 1}`, nil, 400, "", "byte"},
		{"array body", "PUT", "/api/v1/jobs/a", `[1]`, nil, 400, "", "JSON object"},
		{"two values", "PUT", "/api/v1/jobs/a", `{"cron":"* * * * *","command":"true"} {}`, nil, 400, "", "more than one"},
		{"empty body", "PUT", "/api/v1/jobs/a", ``, nil, 400, "", "empty"},
		{"too large", "PUT", "/api/v1/jobs/a", big, nil, 413, "", "1 MiB"},
		{"content type", "PUT", "/api/v1/jobs/a", `{}`, []string{"Content-Type", "text/plain"}, 415, "", "text/plain"},
		{"bad name", "PUT", "/api/v1/jobs/-x", `{"cron":"* * * * *","command":"true"}`, nil, 422, "name", "-x"},
		{"missing job", "GET", "/api/v1/jobs/nope", "", nil, 404, "", `"nope"`},
		{"trigger missing", "POST", "/api/v1/jobs/nope/trigger", "", nil, 404, "", `"nope"`},
		{"bad run id", "GET", "/api/v1/runs/abc", "", nil, 400, "id", "abc"},
		{"missing run", "GET", "/api/v1/runs/99", "", nil, 404, "", "99"},
		{"missing run log", "GET", "/api/v1/runs/99/log", "", nil, 404, "", "99"},
		{"bad state", "GET", "/api/v1/runs?state=done", "", nil, 400, "?state", "done"},
		{"bad page", "GET", "/api/v1/runs?page=x", "", nil, 400, "?page", "x"},
		{"bad limit", "GET", "/api/v1/events?limit=5000", "", nil, 400, "?limit", "5000"},
		{"zero limit", "GET", "/api/v1/runs?limit=0", "", nil, 400, "?limit", "between 1 and 1000"},
		{"zero job limit", "GET", "/api/v1/jobs?limit=0", "", nil, 400, "?limit", "between 1 and 1000"},
		{"zero fires", "GET", "/api/v1/jobs/a/next?n=0", "", nil, 400, "?n", "between 1 and 100"},
		{"unknown param", "GET", "/api/v1/runs?stat=failed", "", nil, 400, "?stat", "unknown query parameter"},
		{"runs of unknown job", "GET", "/api/v1/runs?job=nope", "", nil, 404, "?job", "nope"},
		{"bad kind", "GET", "/api/v1/events?kind=run.exploded", "", nil, 400, "?kind", "run.exploded"},
		{"bad event job", "GET", "/api/v1/events?job=a%20b", "", nil, 422, "?job", "a b"},
		{"unknown route", "GET", "/api/v1/nothing", "", nil, 404, "", "no such API route"},
		{"wrong method", "PATCH", "/api/v1/jobs/a", "", nil, 405, "", "(allowed: DELETE, GET, HEAD, PUT)"},
		{"wrong method on healthz", "POST", "/healthz", "", nil, 405, "", "(allowed: GET, HEAD)"},
		{"wrong method on a sub-route", "DELETE", "/api/v1/jobs/a/trigger", "", nil, 405, "", "(allowed: POST)"},
		{"unknown sub-route", "GET", "/api/v1/jobs/a/b/c", "", nil, 404, "", "no such API route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			r := b.do(t, tt.method, tt.path, tt.body, tt.hdr...)
			if r.code != tt.code {
				t.Fatalf("%s %s: status %d, want %d (%s)", tt.method, tt.path, r.code, tt.code, r.body)
			}
			e := r.apiErr(t)
			if e.Field != tt.field {
				t.Errorf("field = %q, want %q (%s)", e.Field, tt.field, e.Message)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
			if b.st.Jobs() != 0 {
				t.Errorf("bad input stored a job: %v", b.st.Jobs())
			}
		})
	}
}

// failingController rejects every PutJob with err.
type failingController struct {
	*apitest.Controller
	err error
}

func (f failingController) PutJob(context.Context, store.JobSpec, store.Source) (store.Job, bool, error) {
	return store.Job{}, false, f.err
}

func TestControllerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err   error
		code  int
		field string
		msg   string
	}{
		{&apitype.Error{Code: apitype.CodeInvalid, Field: "cron", Message: "never fires: February has no day 31"}, 422, "cron", "never fires"},
		{fmt.Errorf("job x: %w", store.ErrConflict), 409, "", "conflict"},
		{fmt.Errorf("job x: %w", store.ErrStaleTerm), 503, "", "leadership"},
		{errors.New("disk I/O error at /secret/path"), 500, "", "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			b := setup(t, func(c *httpapi.Config) {
				c.Controller = failingController{c.Controller.(*apitest.Controller), tt.err}
			})
			r := b.do(t, "PUT", "/api/v1/jobs/x", `{"cron":"0 0 31 2 *","command":"true"}`)
			e := r.apiErr(t)
			if r.code != tt.code || e.Field != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("%d %+v, want %d field %q message containing %q", r.code, e, tt.code, tt.field, tt.msg)
			}
			if strings.Contains(r.body, "secret") {
				t.Fatalf("internal detail leaked: %s", r.body)
			}
		})
	}
}

func TestNextFires(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "0 * * * *", Shell: "true", TimeZone: "Europe/Berlin"}, Version: 1})
	var fires []time.Time
	for i := range 8 {
		fires = append(fires, t0.Add(time.Duration(i+1)*time.Hour))
	}
	b.ctrl.SetNext("a", fires...)
	b.ctrl.SetOutlook("a", fires[1], job.Outlook{State: job.Waits, Until: fires[3], Reason: `schedule gate "w" is closed`})
	b.ctrl.SetOutlook("a", fires[2], job.Outlook{State: job.WillMiss, Reason: `schedule gate "w" opens only after the starting deadline`})
	var nf apitype.NextFires
	r := b.do(t, "GET", "/api/v1/jobs/a/next?n=3", "")
	r.decode(t, &nf)
	if r.code != 200 || nf.Job != "a" || nf.TimeZone != "Europe/Berlin" || len(nf.Next) != 3 || !nf.Next[0].Equal(fires[0]) {
		t.Fatalf("next = %d %s", r.code, r.body)
	}
	// Each fire says what the job's gate does to it.
	for _, want := range []string{`"outlook":"on-time"`, `"outlook":"waits","until":"` + fires[3].Format(time.RFC3339), `"outlook":"will-miss","reason":"schedule gate \"w\" opens only after`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("next fires lack %s: %s", want, r.body)
		}
	}
	if len(nf.Fires) != 3 || nf.Fires[0].Until != nil || nf.Fires[1].Until == nil || !nf.Fires[1].Until.Equal(fires[3]) {
		t.Errorf("fires = %+v", nf.Fires)
	}
	r = b.do(t, "GET", "/api/v1/jobs/a/next?from="+fires[5].Format(time.RFC3339), "")
	nf = apitype.NextFires{}
	r.decode(t, &nf)
	if len(nf.Next) != 2 || !nf.Next[0].Equal(fires[6]) {
		t.Fatalf("next from = %s", r.body)
	}
	for q, field := range map[string]string{"?n=500": "?n", "?from=tomorrow": "?from", "?m=1": "?m"} {
		if r := b.do(t, "GET", "/api/v1/jobs/a/next"+q, ""); r.code != 400 || r.apiErr(t).Field != field {
			t.Errorf("%s: %d %s", q, r.code, r.body)
		}
	}
}

func TestSecurity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
		req   []string // method, path, then header pairs
		code  int
	}{
		{"loopback, no token", "", []string{"GET", "/api/v1/jobs"}, 200},
		{"localhost name", "", []string{"GET", "/api/v1/jobs", "Host", "localhost:8080"}, 200},
		{"ipv6 loopback", "", []string{"GET", "/api/v1/jobs", "Host", "[::1]:8080"}, 200},
		{"rebinding host", "", []string{"GET", "/api/v1/jobs", "Host", "evil.example:8080"}, 403},
		{"cross-site post", "", []string{"POST", "/api/v1/jobs/a/trigger", "Sec-Fetch-Site", "cross-site"}, 403},
		{"cross-origin post", "", []string{"POST", "/api/v1/jobs/a/trigger", "Origin", "http://evil.example"}, 403},
		{"token missing", "s3cret", []string{"GET", "/api/v1/jobs"}, 401},
		{"token wrong", "s3cret", []string{"GET", "/api/v1/jobs", "Authorization", "Bearer nope"}, 401},
		{"token wrong scheme", "s3cret", []string{"GET", "/api/v1/jobs", "Authorization", "Basic s3cret"}, 401},
		{"token right", "s3cret", []string{"GET", "/api/v1/jobs", "Authorization", "Bearer s3cret", "Host", "almanac.internal:8080"}, 200},
		{"token cookie", "s3cret", []string{"GET", "/api/v1/jobs", "Cookie", "almanac_token=s3cret", "Host", "10.0.0.1"}, 200},
		{"metrics need token", "s3cret", []string{"GET", "/metrics"}, 401},
		{"healthz open", "s3cret", []string{"GET", "/healthz", "Host", "10.0.0.1"}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *httpapi.Config) { c.Token = tt.token })
			b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1})
			r := b.do(t, tt.req[0], tt.req[1], "", tt.req[2:]...)
			if r.code != tt.code {
				t.Fatalf("status %d, want %d: %s", r.code, tt.code, r.body)
			}
			if r.code >= 400 {
				r.apiErr(t)
			}
			if r.code == 401 && r.hdr.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}
