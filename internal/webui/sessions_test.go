package webui_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/webui"
)

// TestSessionRevocation: logging out ends the session on the server, so
// a copy of the cookie taken before stops working; a session unused for
// longer than SessionIdle expires, one in use does not.
func TestSessionRevocation(t *testing.T) {
	h := newHarness(t, webui.Config{Token: "s3cret", SessionIdle: time.Hour})
	login := func() *http.Cookie {
		t.Helper()
		token := h.csrf("/login")
		resp := h.post("/login", url.Values{"csrf": {token}, "token": {"s3cret"}, "next": {"/jobs"}}, nil)
		resp.Body.Close()
		for _, c := range resp.Cookies() {
			if c.Name == "almanac_session" {
				return c
			}
		}
		t.Fatal("login set no session cookie")
		return nil
	}
	// with fetches /jobs with only the given session cookie.
	with := func(c *http.Cookie) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/jobs", nil)
		req.AddCookie(c)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	stolen := login()
	if code := with(stolen); code != http.StatusOK {
		t.Fatalf("with the session cookie: %d", code)
	}
	resp := h.post("/logout", url.Values{"csrf": {h.csrf("/jobs")}}, nil)
	resp.Body.Close()
	if code := with(stolen); code != http.StatusSeeOther {
		t.Errorf("a copy of the cookie after logout: %d, want a redirect to the login", code)
	}

	// Idle expiry, sliding with use.
	c := login()
	for range 3 {
		h.clock.Advance(50 * time.Minute)
		if code := with(c); code != http.StatusOK {
			t.Fatalf("a session in use expired: %d", code)
		}
	}
	h.clock.Advance(61 * time.Minute)
	if code := with(c); code != http.StatusSeeOther {
		t.Errorf("a session idle past SessionIdle: %d, want a redirect to the login", code)
	}
	if code := with(&http.Cookie{Name: "almanac_session", Value: "forged"}); code != http.StatusSeeOther {
		t.Errorf("a forged session: %d", code)
	}
}
