package daemon

import (
	"flag"
	"net/http"
	"time"
)

// httpLimits bound what one client can hold of the daemon's HTTP server:
// how long it may take to send a request, to read an answer, to sit idle
// between requests, and how many connections may be open at once.
type httpLimits struct {
	readHeader time.Duration
	read       time.Duration
	write      time.Duration
	idle       time.Duration
	maxConns   int
}

// maxHeaderBytes bounds a request's header block.
const maxHeaderBytes = 64 << 10

func addHTTPFlags(fs *flag.FlagSet, l *httpLimits) {
	fs.DurationVar(&l.readHeader, "read-header-timeout", 10*time.Second, "how long a client may take to send a request's headers")
	fs.DurationVar(&l.read, "read-timeout", time.Minute, "how long a client may take to send a whole request")
	fs.DurationVar(&l.write, "write-timeout", time.Minute, "how long writing an answer may take")
	fs.DurationVar(&l.idle, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection stays open")
	fs.IntVar(&l.maxConns, "max-connections", 1024, "most client connections open at once; more wait to be accepted")
}

func (l httpLimits) check() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--read-header-timeout", l.readHeader}, {"--read-timeout", l.read}, {"--write-timeout", l.write}, {"--idle-timeout", l.idle}} {
		if d.v <= 0 {
			return usagef("serve: %s %s must be positive", d.name, d.v)
		}
	}
	if l.maxConns < 1 {
		return usagef("serve: --max-connections %d must be at least 1", l.maxConns)
	}
	return nil
}

// server returns an http.Server with these limits. A handler that streams
// (a log followed live) must lift its write deadline itself with
// http.NewResponseController(w).SetWriteDeadline(time.Time{}).
func (l httpLimits) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}
