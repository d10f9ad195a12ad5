package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
)

// toJournal reports whether standard error is connected to systemd's
// journal: $JOURNAL_STREAM names the device and inode of the stream
// systemd connected, and they are standard error's (a process that
// redirected its output elsewhere inherits the variable but not the
// stream).
func toJournal() bool {
	want := os.Getenv("JOURNAL_STREAM")
	if want == "" {
		return false
	}
	fi, err := os.Stderr.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fmt.Sprintf("%d:%d", st.Dev, st.Ino) == want
}

// dropTime removes the time from log records: the journal stamps every
// line itself.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// journalPriority is the sd-daemon(3) priority of a log level: err (3),
// warning (4), info (6) or debug (7), so `journalctl -p warning` selects
// warnings and errors.
func journalPriority(l slog.Level) byte {
	switch {
	case l >= slog.LevelError:
		return '3'
	case l >= slog.LevelWarn:
		return '4'
	case l >= slog.LevelInfo:
		return '6'
	}
	return '7'
}

// journalLine collects one record's line, written by a text or JSON
// handler, to send it with its priority prefix in one write.
type journalLine struct {
	mu  sync.Mutex // held from a record's prefix to its write
	w   io.Writer
	buf []byte
}

func (j *journalLine) Write(b []byte) (int, error) {
	j.buf = append(j.buf, b...)
	return len(b), nil
}

// journalHandler prefixes every line of its inner handler with "<N>",
// the record's priority, which journald reads and strips (sd-daemon(3)).
type journalHandler struct {
	inner slog.Handler
	line  *journalLine
}

// newJournalHandler wraps the handler that mk builds over a writer into
// one that writes to w with priority prefixes.
func newJournalHandler(w io.Writer, mk func(io.Writer) slog.Handler) slog.Handler {
	line := &journalLine{w: w}
	return &journalHandler{inner: mk(line), line: line}
}

func (h *journalHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *journalHandler) Handle(ctx context.Context, r slog.Record) error {
	h.line.mu.Lock()
	defer h.line.mu.Unlock()
	h.line.buf = append(h.line.buf[:0], '<', journalPriority(r.Level), '>')
	if err := h.inner.Handle(ctx, r); err != nil {
		return err
	}
	_, err := h.line.w.Write(h.line.buf)
	return err
}

func (h *journalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &journalHandler{inner: h.inner.WithAttrs(as), line: h.line}
}

func (h *journalHandler) WithGroup(name string) slog.Handler {
	return &journalHandler{inner: h.inner.WithGroup(name), line: h.line}
}
