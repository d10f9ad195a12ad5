package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// Interrupted is the cause of the context [NotifyContext] cancels: the
// signal that asked almanac to stop.
type Interrupted struct{ Signal syscall.Signal }

func (i Interrupted) Error() string { return "interrupted by " + signalName(i.Signal) }

// ExitCode is the shell's convention for a command ended by a signal:
// 128 plus its number (130 for SIGINT, 143 for SIGTERM).
func (i Interrupted) ExitCode() int { return 128 + int(i.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// NotifyContext returns a context cancelled, with an [Interrupted] cause,
// at the first SIGINT or SIGTERM; stop releases the signals.
func NotifyContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigc:
			if n, ok := s.(syscall.Signal); ok {
				cancel(Interrupted{Signal: n})
			} else {
				cancel(Interrupted{Signal: syscall.SIGINT})
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigc)
		close(done)
		cancel(nil)
	}
}

// interruptGrace is how long a one-shot command may take to wind down
// after a signal (apply kills the commands it started) before almanac
// exits without it.
const interruptGrace = 3 * time.Second

// runOneShot runs a one-shot command so that a signal ends it promptly:
// the command's context is cancelled, and almanac returns the signal's
// exit status as soon as the command returns, or after interruptGrace if
// it is busy in work that does not watch its context. (serve is not run
// this way: it shuts down in its own time, --grace.)
func runOneShot(ctx context.Context, clk clock.Clock, name string, run func() error) error {
	done := make(chan error, 1)
	go func() { done <- run() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if _, ok := context.Cause(ctx).(Interrupted); !ok {
			return <-done
		}
		t := clk.NewTimer(interruptGrace)
		defer t.Stop()
		select {
		case err = <-done:
		case <-t.C():
		}
	}
	if i, ok := context.Cause(ctx).(Interrupted); ok {
		return &exitError{code: i.ExitCode(), err: fmt.Errorf("%s: %w", name, i)}
	}
	return err
}
