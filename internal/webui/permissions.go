package webui

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/access"
)

// uiScope says which job a page or action is about, for tokens confined to
// a prefix.
type uiScope int

const (
	uiAny     uiScope = iota // about no job, or a list the backend confines
	uiJob                    // /jobs/{name}...
	uiRun                    // /runs/{id}...
	uiAllJobs                // reaches every job: refused to a confined token
)

// uiRule is what a UI route asks of the logged-in token.
type uiRule struct {
	public bool
	perm   access.Permission
	scope  uiScope
}

// uiRules is the UI's permission table, the same rules as the API's for
// the same things (docs/security.md); a route without a rule refuses
// everyone (TestUIRoutePermissions fails on one).
var uiRules = map[string]uiRule{
	"GET /login":   {public: true},
	"POST /login":  {public: true},
	"POST /logout": {public: true},
	"/":            {public: true}, // the "no such page" answer
	// Served before authentication, like /static/.
	"GET /favicon.ico": {public: true},

	"GET /{$}":                        {perm: access.Read},
	"GET /jobs":                       {perm: access.Read},
	"GET /jobs/{name}":                {perm: access.Read, scope: uiJob},
	"POST /jobs/{name}/suspend":       {perm: access.Operate, scope: uiJob},
	"POST /jobs/{name}/resume":        {perm: access.Operate, scope: uiJob},
	"GET /jobs/{name}/trigger":        {perm: access.Operate, scope: uiJob}, // the confirmation page
	"POST /jobs/{name}/trigger":       {perm: access.Operate, scope: uiJob},
	"GET /jobs/{name}/wave/abort":     {perm: access.Operate, scope: uiJob}, // the confirmation page
	"POST /jobs/{name}/wave/{action}": {perm: access.Operate, scope: uiJob},
	"GET /runs":                       {perm: access.Read},
	"GET /runs/{id}":                  {perm: access.Read, scope: uiRun},
	"GET /runs/{id}/live":             {perm: access.Read, scope: uiRun},
	"GET /runs/{id}/log":              {perm: access.ReadOutput, scope: uiRun},
	"GET /runs/{id}/kill":             {perm: access.Operate, scope: uiRun}, // the confirmation page
	"POST /runs/{id}/kill":            {perm: access.Operate, scope: uiRun},
	"GET /windows":                    {perm: access.Read},
	"GET /resources":                  {perm: access.Read},
	"GET /events":                     {perm: access.Read},
	"GET /cluster":                    {perm: access.Read},
	"GET /applies":                    {perm: access.Read, scope: uiAllJobs},
	"GET /applies/{id}":               {perm: access.ReadOutput, scope: uiAllJobs},
}

// UIRoutePermission returns the permission a UI route pattern needs;
// public is true for the login, logout and "no such page" routes; ok is
// false for a route without a rule.
func UIRoutePermission(pattern string) (perm access.Permission, public, ok bool) {
	r, ok := uiRules[pattern]
	return r.perm, r.public, ok
}

// UIRoutes lists the patterns the UI serves (static files aside).
func UIRoutes() []string {
	s := &server{mux: http.NewServeMux()}
	s.routes()
	return append([]string(nil), s.patterns...)
}

// permitted checks r against its route's rule for principal p and answers
// the refusal itself (403 naming the permission, or 404 for a job or run
// the token may not see) when it may not go on. The body is not read yet.
func (s *server) permitted(w http.ResponseWriter, r *http.Request, p access.Principal) bool {
	_, pattern := s.mux.Handler(r)
	if pattern == "" {
		return true // 405 or redirect: nothing is served
	}
	rule, ok := uiRules[pattern]
	if !ok {
		s.cfg.Logger.Error("webui: route has no permission rule", "route", pattern)
		s.fail(w, r, http.StatusForbidden, "This page has no permission rule, so no one may use it.")
		return false
	}
	if rule.public {
		return true
	}
	if !p.Can(rule.perm) {
		s.fail(w, r, http.StatusForbidden, fmt.Sprintf("Your token %s (role %s) lacks permission %s for this.", p.Name, p.Role, rule.perm))
		return false
	}
	if !p.Confined() {
		return true
	}
	seg := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch rule.scope {
	case uiAllJobs:
		s.fail(w, r, http.StatusForbidden, fmt.Sprintf("Your token %s is confined to jobs %s*; this page covers every job.", p.Name, p.JobPrefix))
		return false
	case uiJob:
		if len(seg) > 1 && !p.SeesJob(seg[1]) {
			s.fail(w, r, http.StatusNotFound, "There is no job named "+strconv.Quote(seg[1])+".")
			return false
		}
	case uiRun:
		id, err := strconv.ParseInt(seg[1], 10, 64)
		if err != nil {
			return true // the page answers a malformed id
		}
		// The backend, confined to the token's jobs, knows no run of
		// another job.
		if _, err := s.cfg.Backend.Run(r.Context(), id); errors.Is(err, ErrNotFound) {
			s.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no run #%d.", id))
			return false
		}
	}
	return true
}
