// Package sdnotify speaks systemd's service notification protocol
// (sd_notify(3)): one datagram of newline-separated KEY=VALUE assignments
// to the unix socket named by $NOTIFY_SOCKET ('@' for Linux's abstract
// namespace). It tells systemd when the daemon is ready (READY=1), when it
// stops (STOPPING=1), and that it is alive (WATCHDOG=1) when the unit sets
// WatchdogSec. Outside systemd every call does nothing.
package sdnotify

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// Messages the daemon sends.
const (
	Ready    = "READY=1"
	Stopping = "STOPPING=1"
	Watchdog = "WATCHDOG=1"
)

// Notifier sends notifications to one socket; the zero Notifier (no
// socket) sends nothing.
type Notifier struct {
	socket string
}

// FromEnv returns the notifier $NOTIFY_SOCKET names (a path, or '@' and a
// name for an abstract socket); without it the notifier sends nothing.
func FromEnv() *Notifier { return &Notifier{socket: os.Getenv("NOTIFY_SOCKET")} }

// Enabled reports whether a socket is set.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// Notify sends state, one or more KEY=VALUE lines, as one datagram. It
// returns nil without a socket.
func (n *Notifier) Notify(state string) error {
	if !n.Enabled() {
		return nil
	}
	addr := &net.UnixAddr{Name: n.socket, Net: "unixgram"}
	if addr.Name[0] == '@' {
		// Go writes an abstract address as a leading NUL.
		addr.Name = "\x00" + addr.Name[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, addr)
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	return nil
}

// WatchdogInterval is how often systemd expects WATCHDOG=1: the
// $WATCHDOG_USEC it set, when $WATCHDOG_PID is unset or this process's
// pid. Zero means no watchdog.
func WatchdogInterval() (time.Duration, error) {
	us := os.Getenv("WATCHDOG_USEC")
	if us == "" {
		return 0, nil
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0, nil
	}
	n, err := strconv.ParseInt(us, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("WATCHDOG_USEC=%q: want a positive number of microseconds", us)
	}
	return time.Duration(n) * time.Microsecond, nil
}

// Liveness sends WATCHDOG=1 only while something proves the daemon
// works: the scheduling loop calls Alive on every turn, and Run sends a
// keep-alive at half the watchdog interval only when Alive was called
// since the previous one. A wedged loop thus stops the keep-alives and
// systemd restarts the service.
type Liveness struct {
	n        *Notifier
	interval time.Duration
	clk      clock.Clock
	log      *slog.Logger
	alive    atomic.Bool
}

// NewLiveness returns a liveness over n for a watchdog of interval.
func NewLiveness(n *Notifier, interval time.Duration, clk clock.Clock, log *slog.Logger) *Liveness {
	return &Liveness{n: n, interval: interval, clk: clk, log: log}
}

// Alive records that the watched loop turned.
func (l *Liveness) Alive() { l.alive.Store(true) }

// Period is how often the watched loop must turn: a quarter of the
// watchdog interval, so two turns fit between keep-alives.
func (l *Liveness) Period() time.Duration { return l.interval / 4 }

// Run sends keep-alives until ctx ends.
func (l *Liveness) Run(ctx context.Context) {
	t := l.clk.NewTimer(l.interval / 2)
	defer t.Stop()
	missed := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if !l.alive.Swap(false) {
			if !missed {
				l.log.Error("scheduling loop made no progress for half the watchdog interval; withholding the watchdog keep-alive", "interval", l.interval)
			}
			missed = true
		} else {
			missed = false
			if err := l.n.Notify(Watchdog); err != nil {
				l.log.Warn("watchdog keep-alive", "err", err)
			}
		}
		// Re-armed once this turn is done, so a test that sees the timer
		// pending knows the turn's keep-alive, if any, was sent.
		t.Reset(l.interval / 2)
	}
}
