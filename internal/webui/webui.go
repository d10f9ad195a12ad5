// Package webui serves almanac's web UI: server-rendered pages over the
// daemon's jobs, runs, weekly windows, managed resources and event log.
//
// Pages are html/template documents with embedded static assets (a style
// sheet and a vendored, pinned htmx), so the UI needs no network and no build
// step, and every page can be read without JavaScript; htmx only swaps a
// table row after an action and refreshes an active run. Weekly calendars
// and job timelines are SVG drawn on the server.
//
// The UI reads and changes state only through the Backend interface declared
// here; the daemon adapts its controller, store and fleet scheduler to it.
// Mutating requests are POSTs carrying a CSRF token, and when Config.Token is
// set every page requires it (a login with the token opens a server-side
// session named by a random cookie, which logout ends and which expires
// when idle; an Authorization: Bearer header works too).
package webui

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/loopback"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the UI handler. Backend is required.
type Config struct {
	Backend Backend
	// Clock tells the time for "now" marks and relative times (default clock.Real).
	Clock clock.Clock
	// Token, when set, is the daemon's bearer token; the UI then requires
	// a token. Used only when Auth is nil.
	Token string
	// Auth checks tokens, the daemon's own and named ones (default: the
	// daemon's Token alone).
	Auth Authenticator
	// Location is the zone times are shown in when nothing else (a job's or
	// a window's zone) applies (default UTC).
	Location *time.Location
	// SecureCookies marks cookies Secure (set when served over HTTPS).
	SecureCookies bool
	// SessionIdle ends a login unused for this long (default
	// DefaultSessionIdle).
	SessionIdle time.Duration
	// Logger receives backend errors (default slog.Default()).
	Logger *slog.Logger
	// PageSize is the number of rows on a paged list (default 50).
	PageSize int
	// RefreshSeconds is how often the overview and the jobs list fetch
	// themselves again (default 15).
	RefreshSeconds int
}

// server is the UI's http.Handler.
type server struct {
	cfg      Config
	mux      *http.ServeMux
	pages    map[string]*template.Template
	csrfKey  []byte
	assetVer string
	sessions *sessions
	auth     Authenticator
	// patterns lists the routes, for UIRoutes.
	patterns []string
}

// New returns the UI as an http.Handler to mount at "/" (it serves
// "/static/" itself). It fails only if cfg has no Backend.
func New(cfg Config) (http.Handler, error) {
	if cfg.Backend == nil {
		return nil, errors.New("webui: Config.Backend is required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RefreshSeconds <= 0 {
		cfg.RefreshSeconds = 15
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 50
	}
	s := &server{cfg: cfg, mux: http.NewServeMux(), csrfKey: make([]byte, 32), sessions: newSessions(cfg.SessionIdle), auth: cfg.Auth}
	if s.auth == nil {
		s.auth = access.NewAuthenticator(cfg.Token, nil, cfg.Clock)
	}
	if _, err := rand.Read(s.csrfKey); err != nil {
		return nil, fmt.Errorf("webui: csrf key: %w", err)
	}
	var err error
	if s.assetVer, err = assetVersion(); err != nil {
		return nil, err
	}
	if s.pages, err = s.parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

func (s *server) routes() {
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	s.mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == s.assetVer {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	}))
	// Browsers ask for /favicon.ico on pages without a link to an icon (the
	// plain-text run logs).
	s.handle("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		b, _ := fs.ReadFile(staticFS, "static/favicon.svg")
		_, _ = w.Write(b)
	})
	s.handle("GET /login", s.loginForm)
	s.handle("POST /login", s.login)
	s.handle("POST /logout", s.logout)

	s.handle("GET /{$}", s.overview)
	s.handle("GET /jobs", s.jobs)
	s.handle("GET /jobs/{name}", s.job)
	s.handle("POST /jobs/{name}/suspend", s.jobAction)
	s.handle("POST /jobs/{name}/resume", s.jobAction)
	s.handle("GET /jobs/{name}/trigger", s.confirmTrigger)
	s.handle("POST /jobs/{name}/trigger", s.jobAction)
	s.handle("GET /jobs/{name}/wave/abort", s.confirmAbort)
	s.handle("POST /jobs/{name}/wave/{action}", s.waveAction)
	s.handle("GET /runs", s.activeRuns)
	s.handle("GET /runs/{id}", s.run)
	s.handle("GET /runs/{id}/live", s.runLive)
	s.handle("GET /runs/{id}/log", s.runLog)
	s.handle("GET /runs/{id}/kill", s.confirmKill)
	s.handle("POST /runs/{id}/kill", s.runKill)
	s.handle("GET /windows", s.windows)
	s.handle("GET /resources", s.resources)
	s.handle("GET /events", s.events)
	s.handle("GET /cluster", s.cluster)
	s.handle("GET /applies", s.applies)
	s.handle("GET /applies/{id}", s.apply)
	s.handle("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	})
}

// handle registers a page or action of the UI.
func (s *server) handle(pattern string, h http.HandlerFunc) {
	s.patterns = append(s.patterns, pattern)
	s.mux.HandleFunc(pattern, h)
}

// ServeHTTP adds security headers, the CSRF cookie and authentication, then
// routes the request.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	if !s.auth.Required() && !loopback.Host(r.Host) {
		// Without a token the daemon listens on loopback only; a request
		// naming another host is a DNS-rebinding page acting as this site.
		http.Error(w, "Host "+r.Host+" is not a loopback name; without a token the UI only answers requests addressed to localhost", http.StatusForbidden)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/favicon.ico" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// Authentication comes before anything reads the body, so a client
	// without the token cannot make the daemon store or parse what it sends.
	p, ok, err := s.authenticate(r)
	if err != nil {
		s.cfg.Logger.Error("webui: check token", "err", err)
		w.Header().Set("Connection", "close")
		s.fail(w, r, http.StatusServiceUnavailable, "The token cannot be checked now (the store is failing); try again.")
		return
	}
	if ok {
		r = r.WithContext(audit.With(access.With(r.Context(), p), audit.Actor{Name: p.Name, Via: audit.ViaUI, Remote: audit.Remote(r)}))
	}
	if !ok && r.URL.Path != "/login" {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			r = s.withCSRF(w, r)
			http.Redirect(w, r, "/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("Connection", "close")
		s.fail(w, r, http.StatusUnauthorized, "Log in first.")
		return
	}
	// So does authorization: the route's permission, and the job or run
	// it names being one the token may see.
	if ok && !s.permitted(w, r, p) {
		return
	}
	if r.Method == http.MethodPost {
		if status, msg := s.readForm(w, r); status != 0 {
			w.Header().Set("Connection", "close")
			s.fail(w, r, status, msg)
			return
		}
	}
	r = s.withCSRF(w, r)
	if r.Method == http.MethodPost && !s.validCSRF(r) {
		s.fail(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Reload the page and try again.")
		return
	}
	s.mux.ServeHTTP(w, r)
}

// MaxFormBytes bounds the body of a web UI form post. The UI's forms carry
// a few short fields, so anything larger is refused unread.
const MaxFormBytes = 64 << 10

// readForm parses a POST's URL-encoded form, at most MaxFormBytes of it, on
// the request that will be served (so no copy holds a parsed form nobody
// cleans up). Only application/x-www-form-urlencoded is accepted: a
// multipart body would be spooled to temporary files. It returns a status
// and message when the body is refused, or 0.
func (s *server) readForm(w http.ResponseWriter, r *http.Request) (int, string) {
	if r.ContentLength > MaxFormBytes {
		return http.StatusRequestEntityTooLarge, "This form is too large."
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/x-www-form-urlencoded" {
			return http.StatusUnsupportedMediaType, "Forms must be sent as application/x-www-form-urlencoded."
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return http.StatusRequestEntityTooLarge, "This form is too large."
		}
		return http.StatusBadRequest, "This form could not be read."
	}
	return 0, ""
}

// page is what every template gets.
type page struct {
	Title string
	// Nav names the navigation entry to highlight.
	Nav  string
	CSRF string
	Now  time.Time
	Loc  *time.Location
	// Auth is true when the UI requires a token (a logout button is shown).
	Auth bool
	// Who is the logged-in token; the page hides what its role may not
	// do. LoggedIn: there is one to show (the UI requires tokens).
	Who      access.Principal
	LoggedIn bool
	// Notice is a one-line message after an action.
	Notice string
	// AutoRefresh, when positive, makes the page fetch its main content again
	// every that many seconds (static/refresh.js), keeping the focus; without
	// JavaScript the page reloads itself as often.
	AutoRefresh int
	// Refresh, when positive, makes the page reload itself every that many
	// seconds when JavaScript is off.
	Refresh int
	// Back is where a form on the page returns after its action when
	// JavaScript is off ("" for the form's own default): the jobs list
	// as shown, with its filters, order and page.
	Back string
	Data any
}

// Can reports whether the logged-in token has a permission ("operate",
// "read-output"; see package access), so templates hide what it may not do.
func (p page) Can(perm string) bool { return p.Who.Can(access.Permission(perm)) }

// With returns a copy of p whose Data is d, for templates that render a
// part of a list (a table row) with the page's token and time.
func (p page) With(d any) page {
	p.Data = d
	return p
}

func (s *server) newPage(r *http.Request, title, nav string, data any) page {
	who, loggedIn := access.Lookup(r.Context())
	return page{
		Title: title, Nav: nav, CSRF: s.csrfToken(r), Now: s.cfg.Clock.Now(), Loc: s.cfg.Location,
		Auth: s.auth.Required(), Who: who, LoggedIn: loggedIn && s.auth.Required(), Notice: noticeText(r.URL.Query()), Data: data,
	}
}

// render writes a full page (or, with block set, one named template of it).
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, name, block string, p page) {
	t, ok := s.pages[name]
	if !ok {
		s.cfg.Logger.Error("webui: no template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if block == "" {
		block = "layout"
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, block, p); err != nil {
		s.cfg.Logger.Error("webui: render", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// fail renders the error page with a message.
func (s *server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p := s.newPage(r, http.StatusText(status), "", msg)
	p.Notice = ""
	s.render(w, r, status, "error", "", p)
}

// backendError answers a failed Backend call: 404 for ErrNotFound, 502
// otherwise (the message is logged, and shown, since only people allowed to
// use the UI see it).
func (s *server) backendError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "Not found: "+err.Error())
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	s.cfg.Logger.Error("webui: backend", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusBadGateway, "The scheduler could not answer: "+err.Error())
}

// noticeText turns the ?done= parameter set after an action (and its
// count, n=, if any) into a sentence.
func noticeText(q url.Values) string {
	done := q.Get("done")
	switch done {
	case "suspended":
		return "Job suspended: no new runs start until it is resumed."
	case "resumed":
		return "Job resumed."
	case "loggedout":
		return "Logged out."
	}
	return waveNotice(done, q.Get("n"))
}
