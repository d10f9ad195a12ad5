package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/sdnotify"
)

// systemdNotify tells systemd about the daemon's life when it runs as a
// Type=notify unit: READY=1 once it serves, STOPPING=1 when it shuts
// down, and WATCHDOG=1 keep-alives while the scheduling loop turns.
// Outside systemd it does nothing.
type systemdNotify struct {
	n    *sdnotify.Notifier
	live *sdnotify.Liveness // nil without a watchdog
	log  *slog.Logger
}

// newSystemdNotify reads $NOTIFY_SOCKET and the watchdog's settings.
func newSystemdNotify(clk clock.Clock, log *slog.Logger) systemdNotify {
	s := systemdNotify{n: sdnotify.FromEnv(), log: log}
	if !s.n.Enabled() {
		return s
	}
	wd, err := sdnotify.WatchdogInterval()
	if err != nil {
		log.Warn("systemd watchdog ignored", "err", err)
	}
	if wd > 0 {
		s.live = sdnotify.NewLiveness(s.n, wd, clk, log.With("component", "watchdog"))
	}
	return s
}

// loopHooks returns what the scheduling loop calls on every turn, and how
// often it must turn; nothing without a watchdog.
func (s systemdNotify) loopHooks() (func(), time.Duration) {
	if s.live == nil {
		return nil, 0
	}
	return s.live.Alive, s.live.Period()
}

// ready reports the daemon ready and starts the keep-alives, which end
// with ctx.
func (s systemdNotify) ready(ctx context.Context, addr string) {
	if !s.n.Enabled() {
		return
	}
	if s.live != nil {
		go s.live.Run(ctx)
	}
	if err := s.n.Notify(sdnotify.Ready + "\nSTATUS=serving on " + addr); err != nil {
		s.log.Warn("systemd notification", "err", err)
	}
}

// stopping reports that the daemon shuts down.
func (s systemdNotify) stopping() {
	if err := s.n.Notify(sdnotify.Stopping); err != nil {
		s.log.Warn("systemd notification", "err", err)
	}
}
