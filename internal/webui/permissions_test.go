package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/webui"
)

// fakeAuth knows tokens by their secret.
type fakeAuth map[string]access.Principal

func (fakeAuth) Required() bool { return true }
func (f fakeAuth) Authenticate(_ context.Context, secret string) (access.Principal, error) {
	if p, ok := f[secret]; ok {
		return p, nil
	}
	return access.Principal{}, access.ErrUnauthenticated
}
func (f fakeAuth) AuthenticateHash(context.Context, string) (access.Principal, error) {
	return access.Principal{}, access.ErrUnauthenticated
}

// TestUIRoutePermissions asks every page and action of the UI with each
// role and with a token confined to another job's prefix: a role without
// the route's permission gets 403 before the form is read, a confined
// token gets 404 for another job, the others are served. It fails when a
// route has no rule or no case here.
func TestUIRoutePermissions(t *testing.T) {
	auth := fakeAuth{
		"v": {Name: "v", Role: access.Viewer}, "o": {Name: "o", Role: access.Operator}, "a": {Name: "a", Role: access.Admin},
		"other": {Name: "other", Role: access.Admin, JobPrefix: "report"},
	}
	h := newHarness(t, webui.Config{Auth: auth})
	runs, _, err := h.back.Runs(context.Background(), webui.RunQuery{Job: "backup", Limit: 1})
	if err != nil || len(runs) == 0 {
		t.Fatalf("demo runs of backup: %v %v", runs, err)
	}
	run := fmt.Sprintf("/runs/%d", runs[0].ID)
	cases := []struct {
		pattern, path string
		perm          access.Permission
		job           bool // about job backup (the confined token sees report* only)
	}{
		{"GET /{$}", "/", access.Read, false},
		{"GET /jobs", "/jobs", access.Read, false},
		{"GET /jobs/{name}", "/jobs/backup", access.Read, true},
		{"POST /jobs/{name}/suspend", "/jobs/backup/suspend", access.Operate, true},
		{"POST /jobs/{name}/resume", "/jobs/backup/resume", access.Operate, true},
		{"GET /jobs/{name}/trigger", "/jobs/backup/trigger", access.Operate, true},
		{"POST /jobs/{name}/trigger", "/jobs/backup/trigger", access.Operate, true},
		{"GET /jobs/{name}/wave/abort", "/jobs/backup/wave/abort", access.Operate, true},
		{"POST /jobs/{name}/wave/{action}", "/jobs/backup/wave/pause", access.Operate, true},
		{"GET /runs", "/runs", access.Read, false},
		{"GET /runs/{id}", run, access.Read, false},
		{"GET /runs/{id}/live", run + "/live", access.Read, false},
		{"GET /runs/{id}/log", run + "/log", access.ReadOutput, false},
		{"GET /runs/{id}/kill", run + "/kill", access.Operate, false},
		{"POST /runs/{id}/kill", run + "/kill", access.Operate, false},
		{"GET /windows", "/windows", access.Read, false},
		{"GET /resources", "/resources", access.Read, false},
		{"GET /events", "/events", access.Read, false},
		{"GET /cluster", "/cluster", access.Read, false},
		{"GET /applies", "/applies", access.Read, false},
		{"GET /applies/{id}", "/applies/1", access.ReadOutput, false},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.pattern] = true
		if perm, _, ok := webui.UIRoutePermission(c.pattern); !ok || perm != c.perm {
			t.Errorf("%s: rule %q (present %v); want %s", c.pattern, perm, ok, c.perm)
		}
	}
	for _, p := range webui.UIRoutes() {
		_, public, ok := webui.UIRoutePermission(p)
		if !ok {
			t.Errorf("UI route %s has no permission rule", p)
		}
		if !covered[p] && !public {
			t.Errorf("UI route %s has no case in TestUIRoutePermissions", p)
		}
	}
	csrf := h.csrf("/login")
	for _, c := range cases {
		method, _, _ := strings.Cut(c.pattern, " ")
		t.Run(c.pattern, func(t *testing.T) {
			for _, secret := range []string{"v", "o", "a", "other"} {
				p := auth[secret]
				var body *strings.Reader
				if method == http.MethodPost {
					body = strings.NewReader(url.Values{"csrf": {csrf}}.Encode())
				} else {
					body = strings.NewReader("")
				}
				req, _ := http.NewRequest(method, h.srv.URL+c.path, body)
				req.Header.Set("Authorization", "Bearer "+secret)
				if method == http.MethodPost {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				resp, err := h.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				switch {
				case !p.Can(c.perm):
					if resp.StatusCode != http.StatusForbidden {
						t.Errorf("%s: %d; want 403", p.Name, resp.StatusCode)
					}
				case p.Confined() && c.job:
					if resp.StatusCode != http.StatusNotFound {
						t.Errorf("%s (confined to report*): %d; want 404", p.Name, resp.StatusCode)
					}
				case p.Confined() && strings.HasPrefix(c.pattern, "GET /applies"):
					if resp.StatusCode != http.StatusForbidden {
						t.Errorf("%s (confined): %d; want 403", p.Name, resp.StatusCode)
					}
				case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized:
					t.Errorf("%s: %d; want the route served", p.Name, resp.StatusCode)
				}
			}
		})
	}
}
