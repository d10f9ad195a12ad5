package cli

import (
	"context"
	"io"
	"log/slog"

	"github.com/almanac-sh/almanac/internal/daemon"
)

func init() {
	register("serve", "run the daemon: job controller, HTTP API and metrics", runServe)
}

// runServe parses serve's flags and runs the daemon until ctx ends.
func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("serve")
	in := build()
	cfg := daemon.Config{ErrOut: e.stderr, Version: in.Version, Revision: in.ShortRevision(), GoVersion: in.GoVersion}
	cfg.AddFlags(fs)
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve: unexpected argument %q", pos[0])
	}
	if err := cfg.Check(fs); err != nil {
		return err
	}
	logger, err := newLogger(e.stderr, *logFormat, *logLevel)
	if err != nil {
		return err
	}
	d, err := daemon.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	return d.Run(ctx)
}

// newLogger builds the daemon's structured logger.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("serve: --log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("serve: --log-format %q: want text or json", format)
}
