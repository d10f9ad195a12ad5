package daemon

import (
	"fmt"
	"net/http"
	"os"

	"github.com/almanac-sh/almanac/internal/accesslog"
	"github.com/almanac-sh/almanac/internal/clock"
)

// withAccessLog wraps h so each request it serves is logged to path
// (--access-log): a file, opened for appending and created private to
// this user, or "-" for standard output. An empty path logs nothing. The
// file is kept open; rotate it with copytruncate, or restart the daemon.
func (d *Daemon) withAccessLog(h http.Handler, path string, clk clock.Clock) (http.Handler, error) {
	switch path {
	case "":
		return h, nil
	case "-":
		return accesslog.New(os.Stdout, clk).Wrap(h), nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve: --access-log: %w", err)
	}
	d.closers = append(d.closers, func() { f.Close() })
	return accesslog.New(f, clk).Wrap(h), nil
}
