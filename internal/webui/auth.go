package webui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/audit"
)

// Cookie names.
const (
	csrfCookie    = "almanac_csrf"
	sessionCookie = "almanac_session"
)

type csrfKeyType struct{}

// withCSRF makes sure the browser holds a CSRF cookie (a random value) and
// puts that value into the request's context for csrfToken. The token put
// into forms is an HMAC of the cookie under a per-process key, so a page
// from another site can neither read nor forge it (signed double submit).
func (s *server) withCSRF(w http.ResponseWriter, r *http.Request) *http.Request {
	v := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 && len(c.Value) <= 64 {
		v = c.Value
	}
	if v == "" {
		if r.Method == http.MethodPost {
			return r // validCSRF fails: a post needs a cookie set earlier
		}
		var b [24]byte
		_, _ = rand.Read(b[:])
		v = base64.RawURLEncoding.EncodeToString(b[:])
		http.SetCookie(w, &http.Cookie{
			Name: csrfCookie, Value: v, Path: "/", HttpOnly: true,
			Secure: s.cfg.SecureCookies, SameSite: http.SameSiteStrictMode,
		})
	}
	return r.WithContext(context.WithValue(r.Context(), csrfKeyType{}, v))
}

// csrfToken returns the token for the forms of this request's page.
func (s *server) csrfToken(r *http.Request) string {
	v, _ := r.Context().Value(csrfKeyType{}).(string)
	if v == "" {
		return ""
	}
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF checks a POST's token (form field "csrf" or header
// X-CSRF-Token) against its cookie, and rejects a cross-origin Origin.
func (s *server) validCSRF(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	want := s.csrfToken(r)
	if want == "" {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// Authenticator tells whose token a request carries (*access.Authenticator
// implements it).
type Authenticator interface {
	// Required reports whether the UI needs a token at all.
	Required() bool
	// Authenticate returns the principal of a token's secret; an error
	// wrapping access.ErrUnauthenticated for one that names no live token.
	Authenticate(ctx context.Context, secret string) (access.Principal, error)
	// AuthenticateHash is Authenticate given the secret's hash.
	AuthenticateHash(ctx context.Context, hash string) (access.Principal, error)
}

// authenticate returns who r acts as: the daemon's own principal when no
// token is required, else the principal of the bearer token or of the
// session's token, checked again now (a revoked or expired token ends its
// sessions). ok is false when r carries no live token; err is a failure to
// check one.
func (s *server) authenticate(r *http.Request) (p access.Principal, ok bool, err error) {
	if !s.auth.Required() {
		return access.Bootstrap, true, nil
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		p, err = s.auth.Authenticate(r.Context(), strings.TrimPrefix(h, "Bearer "))
	} else if c, cerr := r.Cookie(sessionCookie); cerr != nil {
		return p, false, nil
	} else if hash, live := s.sessions.touch(c.Value, s.cfg.Clock.Now()); !live {
		return p, false, nil
	} else {
		p, err = s.auth.AuthenticateHash(r.Context(), hash)
	}
	if errors.Is(err, access.ErrUnauthenticated) {
		return p, false, nil
	}
	return p, err == nil, err
}

type loginData struct {
	Next  string
	Error string
}

func (s *server) loginForm(w http.ResponseWriter, r *http.Request) {
	if _, ok, _ := s.authenticate(r); ok {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", "", s.newPage(r, "Log in", "", loginData{Next: safeNext(r.URL.Query().Get("next"))}))
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostFormValue("next"))
	if !s.auth.Required() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	p, err := s.auth.Authenticate(r.Context(), token)
	if err != nil {
		msg := "That token is not valid here: it is unknown, revoked or expired."
		status := http.StatusUnauthorized
		if !errors.Is(err, access.ErrUnauthenticated) {
			s.cfg.Logger.Error("webui: check token", "err", err)
			msg, status = "The token cannot be checked now (the store is failing); try again.", http.StatusServiceUnavailable
		}
		s.render(w, r, status, "login", "", s.newPage(r, "Log in", "", loginData{Next: next, Error: msg}))
		return
	}
	s.cfg.Logger.Info("web UI login", "token", p.Name, "role", p.Role, "remote", audit.Remote(r))
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.sessions.start(s.cfg.Clock.Now(), apitoken.Hash(token)), Path: "/", HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteStrictMode})
	if !s.auth.Required() {
		http.Redirect(w, r, "/?done=loggedout", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// safeNext keeps a redirect target on this site: a path starting with one
// slash; anything else becomes "/".
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
