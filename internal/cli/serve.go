package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/memlimit"
)

func init() {
	register("serve", "run the daemon: job controller, HTTP API and metrics", runServe)
}

// serveFlags is serve's parsed command line.
type serveFlags struct {
	fs        *flag.FlagSet
	cfg       daemon.Config
	logFormat *string
	logLevel  *string
	file      *configFlags
}

// newServeFlags declares serve's flags.
func newServeFlags(e *env) *serveFlags {
	in := build()
	s := &serveFlags{fs: newFlagSet("serve")}
	s.cfg = daemon.Config{ErrOut: e.stderr, Version: in.Version, Revision: in.ShortRevision(), GoVersion: in.GoVersion}
	s.cfg.AddFlags(s.fs)
	s.logFormat = s.fs.String("log-format", "text", "log format: text or json")
	s.logLevel = s.fs.String("log-level", "info", "log level: debug, info, warn or error")
	s.file = addConfigFlags(s.fs)
	return s
}

// runServe parses serve's flags and runs the daemon until ctx ends.
func runServe(ctx context.Context, e *env, args []string) error {
	s := newServeFlags(e)
	pos, err := parseFlags(s.fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve: unexpected argument %q", pos[0])
	}
	if err := s.file.apply(s.fs, func(w string) { fmt.Fprintln(e.stderr, "almanac: serve: warning: "+w) }); err != nil {
		return err
	}
	cfg := s.cfg
	if err := cfg.Check(s.fs); err != nil {
		return err
	}
	if *s.file.print {
		return s.file.printEffective(e.stdout, s.fs)
	}
	level := new(slog.LevelVar)
	logger, err := newLogger(e.stderr, *s.logFormat, *s.logLevel, level, e.stderr == os.Stderr && toJournal())
	if err != nil {
		return err
	}
	memlimit.TuneDaemon(os.Getenv)
	d, err := daemon.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	rctx, stopReload := context.WithCancel(ctx)
	defer stopReload()
	newReloader(args, s.fs, level, d, logger).watch(rctx)
	return d.Run(ctx)
}

// newLogger builds the daemon's structured logger at level, which it sets
// to the named one (a reload may change it later); journal leaves the
// time out of each line, as the journal records it, and starts each line
// with its priority for the journal.
func newLogger(w io.Writer, format, level string, lv *slog.LevelVar, journal bool) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("serve: --log-level %q: want debug, info, warn or error", level)
	}
	lv.Set(l)
	opts := &slog.HandlerOptions{Level: lv}
	var mk func(io.Writer) slog.Handler
	switch format {
	case "text":
		mk = func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, opts) }
	case "json":
		mk = func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, opts) }
	default:
		return nil, usagef("serve: --log-format %q: want text or json", format)
	}
	if !journal {
		return slog.New(mk(w)), nil
	}
	// The journal stamps every line itself, and reads its priority from
	// a "<N>" prefix.
	opts.ReplaceAttr = dropTime
	return slog.New(newJournalHandler(w, mk)), nil
}
