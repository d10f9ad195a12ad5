package webui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
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

// authorized reports whether r may use the UI: always when no token is
// configured, else with a live session's cookie or the bearer token.
func (s *server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return subtle.ConstantTimeCompare([]byte(strings.TrimPrefix(h, "Bearer ")), []byte(s.cfg.Token)) == 1
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && s.sessions.touch(c.Value, s.cfg.Clock.Now())
}

type loginData struct {
	Next  string
	Error string
}

func (s *server) loginForm(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Token == "" || s.authorized(r) {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", "", s.newPage(r, "Log in", "", loginData{Next: safeNext(r.URL.Query().Get("next"))}))
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostFormValue("next"))
	if s.cfg.Token == "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) != 1 {
		s.render(w, r, http.StatusUnauthorized, "login", "", s.newPage(r, "Log in", "", loginData{Next: next, Error: "That token is not the daemon's token."}))
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.sessions.start(s.cfg.Clock.Now()), Path: "/", HttpOnly: true,
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
	if s.cfg.Token == "" {
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
