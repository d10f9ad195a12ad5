package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/loopback"
)

// scope says which job a route acts on, for tokens confined to a prefix.
type scope int

const (
	// scopeNone (the zero value): the route is about no job in
	// particular (windows, nodes).
	_ scope = iota
	// scopeJob: the route's {name} is a job.
	scopeJob
	// scopeRun: the route's {id} is a run, of some job.
	scopeRun
	// scopeList: the route lists jobs, runs or events; the handler
	// leaves out those of other jobs.
	scopeList
	// scopeAllJobs: the route reaches every job at once (tokens, an
	// apply, metrics); a confined token may not use it.
	scopeAllJobs
)

// rule is what a route asks of the request's token.
type rule struct {
	// public: no token needed (/healthz).
	public bool
	perm   access.Permission
	scope  scope
}

// routeRules is the permission table: every route of the API has a rule
// here, or it answers 403 to everyone (TestRoutePermissions fails on such a
// route). Authentication and these checks run before a handler reads the
// request's body.
var routeRules = map[string]rule{
	"GET /healthz": {public: true},
	"GET /metrics": {perm: access.Read, scope: scopeAllJobs},

	"GET /api/v1/whoami": {perm: access.Read},

	"GET /api/v1/jobs":                     {perm: access.Read, scope: scopeList},
	"GET /api/v1/jobs/{name}":              {perm: access.Read, scope: scopeJob},
	"GET /api/v1/jobs/{name}/next":         {perm: access.Read, scope: scopeJob},
	"GET /api/v1/jobs/{name}/wave":         {perm: access.Read, scope: scopeJob},
	"PUT /api/v1/jobs/{name}":              {perm: access.WriteJobs, scope: scopeJob},
	"DELETE /api/v1/jobs/{name}":           {perm: access.WriteJobs, scope: scopeJob},
	"POST /api/v1/jobs/{name}/trigger":     {perm: access.Operate, scope: scopeJob},
	"POST /api/v1/jobs/{name}/suspend":     {perm: access.Operate, scope: scopeJob},
	"POST /api/v1/jobs/{name}/resume":      {perm: access.Operate, scope: scopeJob},
	"POST /api/v1/jobs/{name}/wave/pause":  {perm: access.Operate, scope: scopeJob},
	"POST /api/v1/jobs/{name}/wave/resume": {perm: access.Operate, scope: scopeJob},
	"POST /api/v1/jobs/{name}/wave/abort":  {perm: access.Operate, scope: scopeJob},

	"GET /api/v1/runs":            {perm: access.Read, scope: scopeList},
	"GET /api/v1/runs/{id}":       {perm: access.Read, scope: scopeRun},
	"GET /api/v1/runs/{id}/log":   {perm: access.ReadOutput, scope: scopeRun},
	"POST /api/v1/runs/{id}/kill": {perm: access.Operate, scope: scopeRun},

	"GET /api/v1/events": {perm: access.Read, scope: scopeList},

	"GET /api/v1/windows":       {perm: access.Read},
	"GET /api/v1/cluster":       {perm: access.Read},
	"GET /api/v1/reboot-groups": {perm: access.Read},

	"GET /api/v1/resources":            {perm: access.Read},
	"GET /api/v1/resources/{id}":       {perm: access.Read},
	"POST /api/v1/resources/inventory": {perm: access.Operate, scope: scopeAllJobs},

	"GET /api/v1/applies":      {perm: access.Read, scope: scopeAllJobs},
	"GET /api/v1/applies/{id}": {perm: access.ReadOutput, scope: scopeAllJobs},
	"POST /api/v1/applies":     {perm: access.Operate, scope: scopeAllJobs},

	"GET /api/v1/tokens":           {perm: access.ManageTokens, scope: scopeAllJobs},
	"POST /api/v1/tokens":          {perm: access.ManageTokens, scope: scopeAllJobs},
	"DELETE /api/v1/tokens/{name}": {perm: access.ManageTokens, scope: scopeAllJobs},
}

// RoutePermission returns the permission a route pattern needs and
// whether it reaches every job; ok is false for a route without a rule and
// for /healthz, which needs none.
func RoutePermission(pattern string) (perm access.Permission, allJobs, ok bool) {
	r, ok := routeRules[pattern]
	if !ok || r.public {
		return "", false, false
	}
	return r.perm, r.scope == scopeAllJobs, true
}

// Routes lists the patterns of every route registered on the API so far,
// /metrics included when it is served.
func (s *Server) Routes() []string { return append([]string(nil), s.patterns...) }

// authorize wraps a route's handler with its rule: the principal the guard
// authenticated must have the rule's permission, over every job when the
// route reaches them all, and see the job or run the path names. A route
// without a rule refuses everyone.
func (s *Server) authorize(pattern string, next http.Handler) http.Handler {
	s.patterns = append(s.patterns, pattern)
	ru, ok := routeRules[pattern]
	if !ok {
		s.cfg.Logger.Error("API route has no permission rule; it refuses every request", "route", pattern)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, &apitype.Error{Code: apitype.CodeForbidden, Message: "route " + pattern + " has no permission rule"})
		})
	}
	if ru.public {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := access.From(r.Context())
		if !p.Can(ru.perm) {
			writeDenied(w, &access.Denied{Principal: p, Permission: ru.perm})
			return
		}
		if p.Confined() {
			switch ru.scope {
			case scopeAllJobs:
				writeDenied(w, &access.Denied{Principal: p, Permission: ru.perm, AllJobs: true})
				return
			case scopeJob:
				if name := r.PathValue("name"); !p.SeesJob(name) {
					writeError(w, apiError(notFound(name)))
					return
				}
			case scopeRun:
				if err := s.runVisible(r.Context(), p, r.PathValue("id")); err != nil {
					writeError(w, apiError(err))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// runVisible answers 404 for a run of a job the confined principal does
// not see. A malformed id is left to the handler's 400.
func (s *Server) runVisible(ctx context.Context, p access.Principal, raw string) error {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return nil
	}
	run, err := s.cfg.Store.RunGet(ctx, id)
	if err == nil && !p.SeesJob(run.Job) {
		return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("run %d not found", id)}
	}
	return nil // not found or a store fault: the handler answers the same
}

func writeDenied(w http.ResponseWriter, d *access.Denied) {
	writeError(w, &apitype.Error{Code: apitype.CodeForbidden, Message: d.Error(), Permission: string(d.Permission)})
}

// bearer returns the token a request carries: an Authorization: Bearer
// header, or (for a browser) the almanac_token cookie.
func bearer(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, tok, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
		return ""
	}
	if c, err := r.Cookie(TokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// authenticate finds the principal of a request: the token it carries, or
// the daemon's own principal when the daemon has no token (then only
// loopback Host names are answered). It writes the refusal itself and
// returns false when the request may not go on.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	secret := bearer(r)
	if secret == "" && !s.auth.Required() {
		if !loopback.Host(r.Host) {
			w.Header().Set("Connection", "close")
			writeError(w, &apitype.Error{Code: apitype.CodeForbidden,
				Message: "Host " + r.Host + " is not a loopback name; the daemon has no token, so it only answers requests addressed to localhost"})
			return r, false
		}
		return withPrincipal(r, access.Bootstrap, audit.ViaAPI), true
	}
	p, err := s.auth.Authenticate(r.Context(), secret)
	if err != nil {
		// Closing the connection spares reading (and waiting for) a
		// body the client had no right to send.
		w.Header().Set("Connection", "close")
		if !errors.Is(err, access.ErrUnauthenticated) {
			s.cfg.Logger.ErrorContext(r.Context(), "cannot check a token", "err", err)
			writeError(w, &apitype.Error{Code: apitype.CodeUnavailable, Message: "cannot check the token now (the store is failing); retry"})
			return r, false
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="almanac"`)
		msg := "missing or wrong bearer token: send Authorization: Bearer TOKEN (the CLI reads --token, ALMANAC_TOKEN, or the token file in the daemon's --data directory)"
		if errors.Is(err, access.ErrExpired) {
			msg = "the bearer token has expired"
		}
		writeError(w, &apitype.Error{Code: apitype.CodeUnauthorized, Message: msg})
		return r, false
	}
	via := audit.ViaAPI
	if strings.HasPrefix(r.UserAgent(), "almanac-cli") {
		via = audit.ViaCLI
	}
	return withPrincipal(r, p, via), true
}

// withPrincipal puts the principal and the audit actor it acts as into the
// request's context.
func withPrincipal(r *http.Request, p access.Principal, via string) *http.Request {
	ctx := access.With(r.Context(), p)
	ctx = audit.With(ctx, audit.Actor{Name: p.Name, Via: via, Remote: audit.Remote(r)})
	return r.WithContext(ctx)
}
