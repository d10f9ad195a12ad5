package daemon

import "net/http"

// hstsMaxAge is how long a browser keeps to HTTPS after seeing the
// daemon over TLS: a year, the usual value.
const hstsMaxAge = "max-age=31536000"

// strictTransport adds Strict-Transport-Security to every answer, so a
// browser that has reached the daemon over TLS never falls back to plain
// HTTP, where the session cookie and token could be read on the way.
func strictTransport(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", hstsMaxAge)
		next.ServeHTTP(w, r)
	})
}
