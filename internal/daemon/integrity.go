package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// DefaultIntegrityInterval is how often serve runs SQLite's full
// integrity check on an open database, besides the one at start.
const DefaultIntegrityInterval = 24 * time.Hour

// integrityChecker is what the periodic check needs of the store; the
// SQLite store has it, PostgreSQL (which checks its own pages) does not.
type integrityChecker interface {
	IntegrityCheck(ctx context.Context) error
	RefuseWrites(ctx context.Context) error
}

// integrityWatch runs the store's integrity check every interval. A
// damaged database is reported (an ERROR, and /healthz failing) and
// written no more: a damaged index could otherwise, say, let a second job
// of one name be created.
type integrityWatch struct {
	st    integrityChecker
	every time.Duration
	clk   clock.Clock
	log   *slog.Logger

	mu      sync.Mutex
	damaged error
	since   time.Time
}

// newIntegrityWatch returns the watch over st, or nil when every is zero
// (checks off).
func newIntegrityWatch(st integrityChecker, every time.Duration, clk clock.Clock, log *slog.Logger) *integrityWatch {
	if every <= 0 {
		return nil
	}
	return &integrityWatch{st: st, every: every, clk: clk, log: log.With("component", "integrity")}
}

// run checks every interval until ctx ends, and stops checking once the
// database is found damaged (it stays so until an operator acts).
func (w *integrityWatch) run(ctx context.Context) {
	if w == nil {
		return
	}
	for {
		t := w.clk.NewTimer(w.every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if w.checkOnce(ctx) != nil {
			return
		}
	}
}

// checkOnce runs one check and acts on a damaged database.
func (w *integrityWatch) checkOnce(ctx context.Context) error {
	start := w.clk.Now()
	err := w.st.IntegrityCheck(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		w.log.Debug("integrity check passed", "took", w.clk.Now().Sub(start))
		return nil
	}
	w.mu.Lock()
	w.damaged, w.since = err, w.clk.Now()
	w.mu.Unlock()
	w.log.Error("the database is damaged; writes are refused from now on", "err", err)
	if rerr := w.st.RefuseWrites(ctx); rerr != nil {
		w.log.Error("could not refuse writes to the damaged database", "err", rerr)
	}
	return err
}

// reason is /healthz's check: the damage found, if any.
func (w *integrityWatch) reason() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.damaged == nil {
		return ""
	}
	return fmt.Sprintf("store: damaged (found %s), writes refused: %v", w.since.UTC().Format(time.RFC3339), w.damaged)
}
