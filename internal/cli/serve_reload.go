package cli

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/almanac-sh/almanac/internal/flagfile"
)

// reloadable is what a SIGHUP reload changes in a running daemon besides
// the log level.
type reloadable interface {
	SetNotifyDefault(targets []string) error
	// RecordReload appends the reload's event, in the name of actor.
	RecordReload(ctx context.Context, actor string, applied, restart []string) error
}

// reloader applies serve's settings again on SIGHUP: it reads the --config
// file anew (the command line still overrides it) and applies what can
// change without a restart, the log level and the default notification
// targets, and logs the changed settings that take effect only after a
// restart. Manifests need no reload: the daemon watches them.
type reloader struct {
	args    []string
	current map[string]string // every flag's value in force
	level   *slog.LevelVar
	d       reloadable
	log     *slog.Logger
}

// newReloader starts from the settings fs parsed from args.
func newReloader(args []string, fs *flag.FlagSet, level *slog.LevelVar, d reloadable, log *slog.Logger) *reloader {
	r := &reloader{args: args, current: map[string]string{}, level: level, d: d, log: log}
	fs.VisitAll(func(f *flag.Flag) { r.current[f.Name] = f.Value.String() })
	return r
}

// watch reloads on every SIGHUP until ctx ends. It takes SIGHUP over
// before it returns, so a SIGHUP sent once the daemon says it is serving
// reloads it instead of ending it (the signal's default action).
func (r *reloader) watch(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				r.reload(ctx)
			}
		}
	}()
}

// reload reads the settings again and applies them.
func (r *reloader) reload(ctx context.Context) {
	fresh := newServeFlags(&env{stderr: io.Discard})
	if _, err := parseFlags(fresh.fs, r.args); err != nil {
		r.log.Error("reload: settings unchanged", "err", err)
		return
	}
	if err := fresh.file.apply(fresh.fs, func(w string) { r.log.Warn("reload: " + w) }); err != nil {
		r.log.Error("reload: settings unchanged", "err", err)
		return
	}
	var applied, restart []string
	fresh.fs.VisitAll(func(f *flag.Flag) {
		v := f.Value.String()
		if v == r.current[f.Name] {
			return
		}
		var err error
		switch f.Name {
		case "log-level":
			var lv slog.Level
			if err = lv.UnmarshalText([]byte(v)); err == nil {
				r.level.Set(lv)
			}
		case "notify-default":
			err = r.d.SetNotifyDefault(flagfile.Values(f))
		default:
			restart = append(restart, flagfile.Key(f.Name))
			return
		}
		if err != nil {
			r.log.Error("reload: setting unchanged", "setting", flagfile.Key(f.Name), "err", err)
			return
		}
		r.current[f.Name] = v
		applied = append(applied, flagfile.Key(f.Name))
	})
	r.log.Info("reload: settings applied", "changed", applied)
	if len(restart) > 0 {
		r.log.Warn("reload: changed settings take effect only after a restart", "settings", restart)
	}
	if len(applied)+len(restart) == 0 {
		return
	}
	actor := "sighup"
	if p := *fresh.file.path; p != "" {
		actor = "config:" + p
	}
	if err := r.d.RecordReload(ctx, actor, applied, restart); err != nil {
		r.log.Error("reload: cannot record the reload in the event log", "err", err)
	}
}
