// Package httpapi serves almanac's HTTP API under /api/v1, plus /healthz and
// /metrics, with the standard library's pattern-matching ServeMux.
//
// Handlers depend only on two small interfaces defined here: [Store] (the part
// of the store contract the API reads and writes) and [Controller] (what the
// API asks of the job controller). The daemon passes the real SQLite store
// and controller; tests pass fakes or the real store.
//
// Every error is JSON, {"error":{"code":...,"message":...,"field":...}}, with
// a 4xx status for bad input that names the offending field or parameter.
//
// Security: when a bearer token is configured every route except /healthz
// requires a token: the daemon's own (principal "admin") or a named token
// with a role (see package access). Each route has a rule in one permission
// table (permissions.go) naming the permission it needs; a token without it
// gets 403 with the permission named. Without a token (allowed only on loopback; the serve command
// enforces that) requests must carry a loopback Host header, which defeats DNS
// rebinding, and cross-origin browser requests that change state are refused,
// which defeats cross-site request forgery from web pages.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

// Store is the part of [store.Store] the API uses.
type Store interface {
	JobCreate(ctx context.Context, p store.JobCreateParams) (store.Job, error)
	JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error)
	JobDelete(ctx context.Context, p store.JobDeleteParams) error
	JobGet(ctx context.Context, name string) (store.Job, error)
	JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error)
	RunGet(ctx context.Context, id int64) (store.Run, error)
	RunList(ctx context.Context, p store.RunListParams) ([]store.Run, int64, error)
	RunWaiting(ctx context.Context, ids []int64) (map[int64]store.Waiting, error)
	EventList(ctx context.Context, p store.EventListParams) ([]store.Event, int64, error)
}

// Controller is what the API asks of the job controller. Job writes go
// through it (not straight to the store) so it can validate, record events
// and reschedule at once. Errors wrapping store.ErrNotFound, ErrDuplicate or
// ErrConflict map to 404 and 409; an *apitype.Error is passed to the client
// as it is (the daemon turns the controller's validation errors into 422s).
type Controller interface {
	// PutJob creates the job or replaces its spec; created reports which.
	PutJob(ctx context.Context, spec store.JobSpec, src store.Source) (j store.Job, created bool, err error)
	// DeleteJob deletes a job and its runs, killing its active runs.
	DeleteJob(ctx context.Context, name string) error
	// Suspend stops a job's future runs; active runs continue.
	Suspend(ctx context.Context, name string) error
	// Resume lets a suspended job run again.
	Resume(ctx context.Context, name string) error
	// Trigger creates a manual run of the job now and returns it.
	Trigger(ctx context.Context, name string) (store.Run, error)
	// JobStatus returns what the controller knows of a job beyond its
	// stored record j (as read, or as a write returned it).
	JobStatus(ctx context.Context, j store.Job) (job.Status, error)
	// JobFires returns up to n instants strictly after from at which the
	// job is scheduled, in the job's zone, each with what its gate will do.
	JobFires(ctx context.Context, name string, from time.Time, n int) ([]job.Fire, error)
	// Kill stops an active run's process group (TERM, then KILL after the
	// grace period); the run ends as killed. store.ErrConflict if it has
	// already ended.
	Kill(ctx context.Context, id int64) error
	// Wave returns the wave of a fanned-out job's instant (a zero instant:
	// the latest); an error wrapping job.ErrNoWave when it has none.
	Wave(ctx context.Context, name string, instant time.Time) (job.Wave, error)
	// WavePause holds back the waiting runs of the job's waves; runs
	// already started go on. Idempotent.
	WavePause(ctx context.Context, name string) error
	// WaveResume lets a paused job's waves go on. Idempotent.
	WaveResume(ctx context.Context, name string) error
	// WaveAbort ends the job's waiting fanned-out runs as skipped and
	// returns how many; runs already started go on.
	WaveAbort(ctx context.Context, name string) (int, error)
}

// BatchStatuser is implemented by a Controller that computes the status of
// many jobs with a fixed number of store queries; GET /api/v1/jobs uses it
// when the Controller has it, instead of asking job by job.
type BatchStatuser interface {
	// JobStatuses returns the status of each of jobs, by name.
	JobStatuses(ctx context.Context, jobs []store.Job) (map[string]job.Status, error)
}

// MaxBodyBytes is the largest request body the API reads.
const MaxBodyBytes = 1 << 20

// Config configures a [Server]. Store and Controller are required.
type Config struct {
	Store      Store
	Controller Controller
	// Fleet, if set, serves /api/v1/resources (managed resources).
	Fleet Fleet
	// Token, if set, is the daemon's own bearer token (principal
	// "admin"); every request but /healthz then needs a token.
	Token string
	// Tokens, if set, keeps the named tokens with roles: they
	// authenticate too, and /api/v1/tokens manages them.
	Tokens TokenStore
	// Clock supplies Now for store writes; nil means the real clock.
	Clock clock.Clock
	// Logger receives one line per failed request; nil discards.
	Logger *slog.Logger
	// Metrics, if set, is served on /metrics and counts requests.
	Metrics *Metrics
	// Version, Revision and GoVersion describe the build; /healthz
	// reports them.
	Version, Revision, GoVersion string
	// Health, if set, is asked by /healthz for a fault that makes the
	// daemon degraded (503): a non-empty reason.
	Health func() (reason string)
	// Cluster, if set, judges the liveness of the nodes of active runs
	// (apitype.Run.NodeLiveness).
	Cluster ClusterSource
	// Notes, if set, is asked by /healthz for things an operator should
	// know that do not make the daemon degraded (a wall-clock step).
	Notes func() []string
	// RebootGroups, if set, serves GET /api/v1/reboot-groups.
	RebootGroups func(ctx context.Context) ([]apitype.RebootGroup, error)
}

// Server is the API's http.Handler. It is safe for concurrent use.
type Server struct {
	cfg Config
	// mux routes everything: the API (to api), /metrics and what other
	// packages add with Handle (the web UI, FleetLock).
	mux *http.ServeMux
	// api holds the /api/ routes and /healthz, alone, so that ServeMux
	// itself tells an unknown path (404) from a known path asked with
	// another method (405 and Allow); routed turns both into JSON errors.
	api     *http.ServeMux
	handler http.Handler
	// auth tells whose token a request carries.
	auth *access.Authenticator
	// patterns lists the routes registered, for Routes.
	patterns []string
}

// New returns a Server for cfg. It panics if Store or Controller is nil, a
// programming error.
func New(cfg Config) *Server {
	if cfg.Store == nil || cfg.Controller == nil {
		panic("httpapi: Config.Store and Config.Controller are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), api: http.NewServeMux()}
	var finder access.TokenFinder
	if cfg.Tokens != nil {
		finder = cfg.Tokens
	}
	s.auth = access.NewAuthenticator(cfg.Token, finder, cfg.Clock)
	s.routes()
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apitype.Error{Code: apitype.CodeForbidden, Message: "cross-origin request refused"})
	}))
	s.handler = s.guard(cop.Handler(s.mux))
	return s
}

// Handle registers an extra handler on the server's mux, so other packages
// (the web UI) share the listener, the authentication and the protections.
// A pattern under /api/ joins the API's routes and their JSON 404 and 405.
func (s *Server) Handle(pattern string, h http.Handler) {
	if isAPIPath(pattern) {
		s.api.Handle(pattern, s.authorize(pattern, h))
		return
	}
	s.mux.Handle(pattern, h)
}

// isAPIPath tells whether a route pattern ("[METHOD ]PATH") belongs to the
// API's own mux.
func isAPIPath(pattern string) bool {
	path := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	return strings.HasPrefix(path, "/api/") || path == "/healthz"
}

// routed serves a request of the API's mux, answering one that no route
// takes as a JSON error: 405 with the mux's Allow header when the path has
// routes for other methods, 404 otherwise.
func (s *Server) routed() http.Handler {
	unrouted := s.instrument("/api/", func(w http.ResponseWriter, r *http.Request) error {
		h, _ := s.api.Handler(r)
		probe := &headerProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.code == http.StatusMethodNotAllowed {
			allow := probe.header.Get("Allow")
			w.Header().Set("Allow", allow)
			return &apitype.Error{Code: apitype.CodeMethod, Message: fmt.Sprintf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow)}
		}
		return &apitype.Error{Code: apitype.CodeNotFound, Message: "no such API route: " + r.Method + " " + r.URL.Path}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := s.api.Handler(r); pattern == "" {
			unrouted.ServeHTTP(w, r)
			return
		}
		s.api.ServeHTTP(w, r)
	})
}

// headerProbe records the status and headers a handler writes and drops
// its body: it learns what ServeMux would answer to an unrouted request.
type headerProbe struct {
	header http.Header
	code   int
}

func (p *headerProbe) Header() http.Header { return p.header }
func (p *headerProbe) WriteHeader(code int) {
	if p.code == 0 {
		p.code = code
	}
}
func (p *headerProbe) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return len(b), nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Server) routes() {
	h := s.handleFunc
	h("GET /healthz", s.health)
	h("GET /api/v1/whoami", s.whoami)
	if s.cfg.Tokens != nil {
		s.tokenRoutes()
	}
	h("GET /api/v1/jobs", s.listJobs)
	h("GET /api/v1/jobs/{name}", s.getJob)
	h("PUT /api/v1/jobs/{name}", s.putJob)
	h("DELETE /api/v1/jobs/{name}", s.deleteJob)
	h("POST /api/v1/jobs/{name}/trigger", s.triggerJob)
	h("POST /api/v1/jobs/{name}/suspend", s.suspendJob)
	h("POST /api/v1/jobs/{name}/resume", s.resumeJob)
	h("GET /api/v1/jobs/{name}/next", s.nextFires)
	h("GET /api/v1/jobs/{name}/wave", s.getWave)
	h("POST /api/v1/jobs/{name}/wave/pause", s.pauseWave)
	h("POST /api/v1/jobs/{name}/wave/resume", s.resumeWave)
	h("POST /api/v1/jobs/{name}/wave/abort", s.abortWave)
	h("GET /api/v1/runs", s.listRuns)
	h("GET /api/v1/runs/{id}", s.getRun)
	h("GET /api/v1/runs/{id}/log", s.getRunLog)
	h("POST /api/v1/runs/{id}/kill", s.killRun)
	h("GET /api/v1/events", s.listEvents)
	h("GET /api/v1/reboot-groups", s.listRebootGroups)
	s.resourceRoutes(h)
	routed := s.routed()
	s.mux.Handle("/api/", routed)
	s.mux.Handle("/healthz", routed)
	if s.cfg.Metrics != nil {
		s.mux.Handle("GET /metrics", s.authorize("GET /metrics", s.cfg.Metrics.handler()))
	}
}

// handleFunc registers an API route: its permission rule, then the
// handler, instrumented.
func (s *Server) handleFunc(pattern string, f func(w http.ResponseWriter, r *http.Request) error) {
	s.api.Handle(pattern, s.authorize(pattern, s.instrument(pattern, f)))
}

// instrument adapts an error-returning handler, writes its error as JSON and
// counts the request.
func (s *Server) instrument(pattern string, f func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		if err := f(sw, r); err != nil {
			ae := apiError(err)
			if ae.Code == apitype.CodeInternal {
				s.cfg.Logger.ErrorContext(r.Context(), "api request failed",
					"method", r.Method, "path", r.URL.Path, "err", err)
			}
			writeError(sw, ae)
		}
		if s.cfg.Metrics != nil {
			s.cfg.Metrics.observeRequest(pattern, sw.status(), time.Since(start))
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// guard authenticates requests (before anything reads their body) and
// rejects foreign Host headers; the principal and its audit actor go into
// the request's context for the routes' permission rules and the events.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /healthz is open; the FleetLock endpoints authenticate their own
		// way (a secret in the path or an allowed address), as Zincati
		// sends no bearer token.
		if r.URL.Path == "/healthz" || strings.HasPrefix(r.URL.Path, "/fleetlock/") {
			next.ServeHTTP(w, r)
			return
		}
		r, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TokenCookie is the cookie a browser may carry the bearer token in.
const TokenCookie = "almanac_token"

// listRebootGroups answers the FleetLock groups and their holders.
func (s *Server) listRebootGroups(w http.ResponseWriter, r *http.Request) error {
	groups := []apitype.RebootGroup{}
	if s.cfg.RebootGroups != nil {
		gs, err := s.cfg.RebootGroups(r.Context())
		if err != nil {
			return fmt.Errorf("reboot groups: %w", err)
		}
		groups = append(groups, gs...)
	}
	writeJSON(w, http.StatusOK, apitype.RebootGroupList{Items: groups})
	return nil
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	var notes []string
	if s.cfg.Notes != nil {
		notes = s.cfg.Notes()
	}
	if s.cfg.Health != nil {
		if reason := s.cfg.Health(); reason != "" {
			writeJSON(w, http.StatusServiceUnavailable, apitype.Health{Status: "degraded", Version: s.cfg.Version,
				Revision: s.cfg.Revision, GoVersion: s.cfg.GoVersion, Reason: reason, Notes: notes})
			return nil
		}
	}
	writeJSON(w, http.StatusOK, apitype.Health{Status: "ok", Version: s.cfg.Version, Revision: s.cfg.Revision, GoVersion: s.cfg.GoVersion, Notes: notes})
	return nil
}
