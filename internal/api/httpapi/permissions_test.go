package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

type fakeAgent struct{}

func (fakeAgent) Trigger(string) bool  { return true }
func (fakeAgent) Status() agent.Status { return agent.Status{} }
func (fakeAgent) ListReports(context.Context, agent.ReportFilter) ([]*agent.Report, error) {
	return nil, nil
}
func (fakeAgent) GetReport(context.Context, int64) (*agent.Report, error) {
	return nil, agent.ErrNotFound
}

type fakeWindows struct{}

func (fakeWindows) Windows(context.Context, time.Time) ([]apitype.Window, error) { return nil, nil }

type fakeCluster struct{}

func (fakeCluster) Cluster(context.Context) (apitype.Cluster, error) { return apitype.Cluster{}, nil }

// permServer is a Server over the real SQLite store with every route the
// daemon registers, the bootstrap token "boot-secret" and named tokens.
type permServer struct {
	srv   *httpapi.Server
	st    *sqlitestore.Store
	runs  map[string]int64 // job -> a run of it
	token map[string]string
}

func newPermServer(t *testing.T) *permServer {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(t0)
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctrl := &apitest.Controller{St: st, Now: t0}
	srv := httpapi.New(httpapi.Config{Store: st, Controller: ctrl, Clock: clk, Metrics: httpapi.NewMetrics(st),
		Token: "boot-secret", Tokens: st})
	srv.Handle("GET /api/v1/windows", httpapi.WindowsHandler(fakeWindows{}, clk))
	srv.Handle("GET /api/v1/cluster", httpapi.ClusterHandler(fakeCluster{}))
	srv.HandleApplies(fakeAgent{})
	ps := &permServer{srv: srv, st: st, runs: map[string]int64{}, token: map[string]string{"bootstrap": "boot-secret"}}
	for _, tok := range []struct {
		name, role, prefix string
		expires            time.Time
	}{
		{"viewer", "viewer", "", time.Time{}}, {"operator", "operator", "", time.Time{}}, {"root", "admin", "", t0.Add(time.Hour)},
		{"web-viewer", "viewer", "web-", time.Time{}}, {"web-operator", "operator", "web-", time.Time{}}, {"web-admin", "admin", "web-", time.Time{}},
		{"expired", "admin", "", t0}, {"revoked", "admin", "", time.Time{}},
	} {
		secret := "secret-" + tok.name
		ps.token[tok.name] = secret
		if err := st.TokenCreate(ctx, store.TokenCreateParams{Token: store.Token{Name: tok.name, Role: tok.role, JobPrefix: tok.prefix,
			Hash: apitoken.Hash(secret), ExpiresAt: tok.expires}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.TokenDelete(ctx, store.TokenDeleteParams{Name: "revoked"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web-a", "db-a"} {
		if _, _, err := ctrl.PutJob(ctx, store.JobSpec{Name: name, Cron: "* * * * *", Command: []string{"true"}}, store.SourceAPI); err != nil {
			t.Fatal(err)
		}
		r, err := ctrl.Trigger(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		ps.runs[name] = r.ID
	}
	return ps
}

func (ps *permServer) do(method, path, body, secret string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "almanac.example:8080"
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	rec := httptest.NewRecorder()
	ps.srv.ServeHTTP(rec, req)
	return rec
}

// TestRoutePermissions requests every route of the API with every kind of
// token: each role, a role confined to jobs "web-" asking for its own job
// and for another's, an expired and a revoked token. It fails when a route
// has no rule in the permission table or no case here.
func TestRoutePermissions(t *testing.T) {
	ps := newPermServer(t)
	job := func(name, suffix string) string { return "/api/v1/jobs/" + name + suffix }
	run := func(name, suffix string) string { return fmt.Sprintf("/api/v1/runs/%d%s", ps.runs[name], suffix) }
	spec := `{"cron":"* * * * *","command":{"shell":"true"}}`
	// path(job) gives the route's path about that job (or the same path
	// for routes about no job).
	// perm and allJobs are the rule the route must have (the role table
	// of docs/security.md), checked against the server's own table.
	cases := []struct {
		pattern string
		perm    access.Permission
		allJobs bool
		path    func(job string) string
		body    string
	}{
		{"GET /metrics", access.Read, true, func(string) string { return "/metrics" }, ""},
		{"GET /api/v1/whoami", access.Read, false, func(string) string { return "/api/v1/whoami" }, ""},
		{"GET /api/v1/jobs", access.Read, false, func(string) string { return "/api/v1/jobs" }, ""},
		{"GET /api/v1/jobs/{name}", access.Read, false, func(n string) string { return job(n, "") }, ""},
		{"GET /api/v1/jobs/{name}/next", access.Read, false, func(n string) string { return job(n, "/next") }, ""},
		{"GET /api/v1/jobs/{name}/wave", access.Read, false, func(n string) string { return job(n, "/wave") }, ""},
		{"POST /api/v1/jobs/{name}/suspend", access.Operate, false, func(n string) string { return job(n, "/suspend") }, ""},
		{"POST /api/v1/jobs/{name}/resume", access.Operate, false, func(n string) string { return job(n, "/resume") }, ""},
		{"POST /api/v1/jobs/{name}/wave/pause", access.Operate, false, func(n string) string { return job(n, "/wave/pause") }, ""},
		{"POST /api/v1/jobs/{name}/wave/resume", access.Operate, false, func(n string) string { return job(n, "/wave/resume") }, ""},
		{"POST /api/v1/jobs/{name}/wave/abort", access.Operate, false, func(n string) string { return job(n, "/wave/abort") }, ""},
		{"GET /api/v1/runs", access.Read, false, func(string) string { return "/api/v1/runs" }, ""},
		{"GET /api/v1/runs/{id}", access.Read, false, func(n string) string { return run(n, "") }, ""},
		{"GET /api/v1/runs/{id}/log", access.ReadOutput, false, func(n string) string { return run(n, "/log") }, ""},
		{"POST /api/v1/runs/{id}/kill", access.Operate, false, func(n string) string { return run(n, "/kill") }, ""},
		{"GET /api/v1/events", access.Read, false, func(string) string { return "/api/v1/events" }, ""},
		{"GET /api/v1/reboot-groups", access.Read, false, func(string) string { return "/api/v1/reboot-groups" }, ""},
		{"GET /api/v1/windows", access.Read, false, func(string) string { return "/api/v1/windows" }, ""},
		{"GET /api/v1/cluster", access.Read, false, func(string) string { return "/api/v1/cluster" }, ""},
		{"GET /api/v1/resources", access.Read, false, func(string) string { return "/api/v1/resources" }, ""},
		{"GET /api/v1/resources/{id}", access.Read, false, func(string) string { return "/api/v1/resources/vm-1" }, ""},
		{"POST /api/v1/resources/inventory", access.Operate, true, func(string) string { return "/api/v1/resources/inventory" }, ""},
		{"GET /api/v1/applies", access.Read, true, func(string) string { return "/api/v1/applies" }, ""},
		{"GET /api/v1/applies/{id}", access.ReadOutput, true, func(string) string { return "/api/v1/applies/1" }, ""},
		{"POST /api/v1/applies", access.Operate, true, func(string) string { return "/api/v1/applies" }, ""},
		{"GET /api/v1/tokens", access.ManageTokens, true, func(string) string { return "/api/v1/tokens" }, ""},
		{"POST /api/v1/tokens", access.ManageTokens, true, func(string) string { return "/api/v1/tokens" }, `{"name":"new","role":"viewer"}`},
		{"DELETE /api/v1/tokens/{name}", access.ManageTokens, true, func(string) string { return "/api/v1/tokens/nobody" }, ""},
		{"PUT /api/v1/jobs/{name}", access.WriteJobs, false, func(n string) string { return job(n, "") }, spec},
		{"POST /api/v1/jobs/{name}/trigger", access.Operate, false, func(n string) string { return job(n, "/trigger") }, ""},
		{"DELETE /api/v1/jobs/{name}", access.WriteJobs, false, func(n string) string { return job(n, "") }, ""},
	}
	covered := map[string]bool{"GET /healthz": true}
	for _, c := range cases {
		covered[c.pattern] = true
	}
	for _, p := range ps.srv.Routes() {
		if _, _, ok := httpapi.RoutePermission(p); !ok && p != "GET /healthz" {
			t.Errorf("route %s has no rule in the permission table", p)
		}
		if !covered[p] {
			t.Errorf("route %s has no case in TestRoutePermissions", p)
		}
	}
	principals := []struct {
		token string
		role  access.Role
		jobs  string
	}{
		{"viewer", access.Viewer, ""}, {"operator", access.Operator, ""},
		{"web-viewer", access.Viewer, "web-"}, {"web-operator", access.Operator, "web-"}, {"web-admin", access.Admin, "web-"},
		{"root", access.Admin, ""}, {"bootstrap", access.Admin, ""},
	}
	for _, c := range cases {
		method, _, _ := strings.Cut(c.pattern, " ")
		perm, allJobs := c.perm, c.allJobs
		if gotPerm, gotAll, _ := httpapi.RoutePermission(c.pattern); gotPerm != perm || gotAll != allJobs {
			t.Errorf("%s: rule is %s (every job: %v); want %s (every job: %v)", c.pattern, gotPerm, gotAll, perm, allJobs)
		}
		aboutJob := strings.Contains(c.pattern, "{name}") && strings.Contains(c.pattern, "/jobs/") || strings.Contains(c.pattern, "/runs/{id}")
		t.Run(c.pattern, func(t *testing.T) {
			for _, tok := range []string{"", "expired", "revoked", "wrong"} {
				secret := ps.token[tok]
				if tok == "wrong" {
					secret = "not-a-token"
				}
				if rec := ps.do(method, c.path("web-a"), c.body, secret); rec.Code != http.StatusUnauthorized {
					t.Errorf("token %q: status %d (%s); want 401", tok, rec.Code, rec.Body)
				}
			}
			for _, p := range principals {
				rec := ps.do(method, c.path("web-a"), c.body, ps.token[p.token])
				allowed := p.role.Allows(perm) && !(allJobs && p.jobs != "")
				switch {
				case !allowed:
					var eb apitype.ErrorBody
					if rec.Code != http.StatusForbidden || json.Unmarshal(rec.Body.Bytes(), &eb) != nil || eb.Error == nil || eb.Error.Permission != string(perm) {
						t.Errorf("%s: status %d %s; want 403 naming permission %s", p.token, rec.Code, rec.Body, perm)
					}
				case rec.Code == http.StatusUnauthorized || rec.Code == http.StatusForbidden || rec.Code >= 500:
					t.Errorf("%s: status %d %s; want the route to serve it", p.token, rec.Code, rec.Body)
				}
				if !aboutJob || p.jobs == "" || !allowed {
					continue
				}
				// A confined token sees another prefix's job as absent.
				if rec := ps.do(method, c.path("db-a"), c.body, ps.token[p.token]); rec.Code != http.StatusNotFound {
					t.Errorf("%s on db-a: status %d %s; want 404", p.token, rec.Code, rec.Body)
				}
			}
		})
	}
}

// TestConfinedLists: a token confined to "web-" lists only the jobs, runs
// and events of web- jobs, and cannot name another job in a filter.
func TestConfinedLists(t *testing.T) {
	ps := newPermServer(t)
	secret := ps.token["web-viewer"]
	for _, path := range []string{"/api/v1/jobs", "/api/v1/runs", "/api/v1/events"} {
		rec := ps.do("GET", path, "", secret)
		var page struct {
			Items []struct {
				Name string `json:"name"`
				Job  string `json:"job"`
			} `json:"items"`
		}
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &page) != nil || len(page.Items) == 0 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		for _, it := range page.Items {
			if n := it.Name + it.Job; !strings.HasPrefix(n, "web-") {
				t.Errorf("%s lists %q to a token confined to web-", path, n)
			}
		}
	}
	if rec := ps.do("GET", "/api/v1/runs?job=db-a", "", secret); rec.Code != http.StatusNotFound {
		t.Errorf("runs?job=db-a: %d %s; want 404", rec.Code, rec.Body)
	}
	rec := ps.do("GET", "/api/v1/whoami", "", secret)
	var who apitype.Whoami
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &who) != nil || who.Name != "web-viewer" || who.Jobs != "web-" ||
		!slices.Equal(who.Permissions, []string{"read"}) {
		t.Errorf("whoami = %d %s", rec.Code, rec.Body)
	}
}

// TestTokenRoutes: an admin creates a token whose secret works at once
// with its role, lists it (never the secret), and revokes it, after which
// it is refused; every step is in the event log under the admin's name.
func TestTokenRoutes(t *testing.T) {
	ps := newPermServer(t)
	admin := ps.token["root"]
	rec := ps.do("POST", "/api/v1/tokens", `{"name":"alice","role":"operator","jobs":"web-","expires_in_seconds":3600}`, admin)
	var created apitype.TokenCreated
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &created) != nil || created.Secret == "" || created.Token.Role != "operator" ||
		created.Token.ExpiresAt == nil || !created.Token.ExpiresAt.Equal(t0.Add(time.Hour)) || created.Token.CreatedBy != "root" {
		t.Fatalf("create = %d %s", rec.Code, rec.Body)
	}
	if rec := ps.do("POST", "/api/v1/jobs/web-a/suspend", "", created.Secret); rec.Code != 200 {
		t.Errorf("alice suspends web-a: %d %s", rec.Code, rec.Body)
	}
	for _, bad := range []struct{ body, field string }{
		{`{"name":"alice","role":"viewer"}`, "name"}, {`{"name":"admin","role":"viewer"}`, "name"},
		{`{"name":"a:b","role":"viewer"}`, "name"}, {`{"name":"x","role":"root"}`, "role"},
		{`{"name":"x","role":"viewer","jobs":"a/b"}`, "jobs"}, {`{"name":"x","role":"viewer","expires_in_seconds":-1}`, "expires_in_seconds"},
	} {
		rec := ps.do("POST", "/api/v1/tokens", bad.body, admin)
		var eb apitype.ErrorBody
		if rec.Code/100 != 4 || json.Unmarshal(rec.Body.Bytes(), &eb) != nil || eb.Error.Field != bad.field {
			t.Errorf("create %s = %d %s; want 4xx on %s", bad.body, rec.Code, rec.Body, bad.field)
		}
	}
	rec = ps.do("GET", "/api/v1/tokens", "", admin)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), created.Secret) || !strings.Contains(rec.Body.String(), `"name":"alice"`) ||
		!strings.Contains(rec.Body.String(), `"name":"expired","role":"admin"`) {
		t.Errorf("list = %d %s", rec.Code, rec.Body)
	}
	if rec := ps.do("DELETE", "/api/v1/tokens/alice", "", admin); rec.Code != 204 {
		t.Fatalf("revoke = %d %s", rec.Code, rec.Body)
	}
	if rec := ps.do("GET", "/api/v1/jobs", "", created.Secret); rec.Code != 401 {
		t.Errorf("revoked alice: %d; want 401", rec.Code)
	}
	rec = ps.do("GET", "/api/v1/events?actor=root", "", admin)
	var evs apitype.Page[apitype.Event]
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &evs) != nil || len(evs.Items) != 2 ||
		evs.Items[0].Kind != "token.revoked" || evs.Items[1].Kind != "token.created" || evs.Items[0].Via != "api" || evs.Items[0].Remote != "192.0.2.1" {
		t.Errorf("events by root = %d %s", rec.Code, rec.Body)
	}
	rec = ps.do("GET", "/api/v1/events?actor=alice", "", admin)
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &evs) != nil || len(evs.Items) != 1 || evs.Items[0].Kind != "job.suspended" {
		t.Errorf("events by alice = %d %s", rec.Code, rec.Body)
	}
}
