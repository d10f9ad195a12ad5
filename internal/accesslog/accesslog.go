// Package accesslog writes one line per HTTP request in the Combined Log
// Format of Apache and nginx, so log analysers, fail2ban and the like read
// it as they are:
//
//	10.0.0.7 - alice [27/Nov/2026:10:00:00 +0000] "POST /api/v1/jobs/x/suspend HTTP/1.1" 200 312 "-" "almanac-cli"
//
// The user field is who the request acted as: the name of its token, or
// "fleetlock:ID" for a FleetLock member; "-" when it was not authenticated.
// It is learned from the audit actor the request's handlers set (see
// package audit), so a refused request logs "-".
package accesslog

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
)

// Logger writes access log lines to a writer; it is safe for concurrent
// use.
type Logger struct {
	mu    sync.Mutex
	w     io.Writer
	clock clock.Clock
	buf   bytes.Buffer
}

// New returns a Logger writing to w; nil clock means the real one.
func New(w io.Writer, clk clock.Clock) *Logger {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Logger{w: w, clock: clk}
}

// Wrap returns next with every request it serves logged after it ends.
func (l *Logger) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := l.clock.Now()
		var who audit.Actor
		r = r.WithContext(audit.WithRecorder(r.Context(), &who))
		cw := &countingWriter{ResponseWriter: w}
		defer func() { l.write(r, start, cw, who.Name) }()
		next.ServeHTTP(cw, r)
	})
}

// maxField bounds each quoted field of a line (request line, referer,
// user agent), so a client cannot make lines huge.
const maxField = 1024

func (l *Logger) write(r *http.Request, start time.Time, cw *countingWriter, user string) {
	host := audit.Remote(r)
	if user == "" {
		user = "-"
	}
	status := cw.code
	if status == 0 {
		status = http.StatusOK
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := &l.buf
	b.Reset()
	b.WriteString(field(host))
	b.WriteString(" - ")
	b.WriteString(field(user))
	b.WriteString(start.Format(" [02/Jan/2006:15:04:05 -0700] "))
	quoted(b, r.Method+" "+r.RequestURI+" "+r.Proto)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(status))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(cw.n, 10))
	b.WriteByte(' ')
	quoted(b, dash(r.Referer()))
	b.WriteByte(' ')
	quoted(b, dash(r.UserAgent()))
	b.WriteByte('\n')
	_, _ = l.w.Write(b.Bytes()) // a failing log must not fail the request
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// field makes an unquoted field one word: no spaces or controls.
func field(s string) string {
	var b bytes.Buffer
	escape(&b, s, true)
	return b.String()
}

// quoted writes s in double quotes, escaped as Apache does: '"' and '\\'
// with a backslash, control and non-UTF-8 bytes as \xHH.
func quoted(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	escape(b, s, false)
	b.WriteByte('"')
}

func escape(b *bytes.Buffer, s string, noSpace bool) {
	if len(s) > maxField {
		s = s[:maxField]
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == ' ' && noSpace:
			b.WriteString(`\x20`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// countingWriter records the status and counts the body bytes written.
type countingWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (a followed
// log lifts its write deadline and flushes).
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes on, for handlers that test for http.Flusher.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
