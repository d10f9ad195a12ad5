package cli

import (
	"fmt"
	"log/slog"
	"os"
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
