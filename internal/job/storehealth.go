package job

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// maxUnrecorded bounds how many finished runs the controller keeps in
// memory while the store refuses writes.
const maxUnrecorded = 10000

// storeHealth remembers whether the controller's store writes fail, so the
// daemon's health check can say so instead of "ok" while, say, the disk is
// full.
type storeHealth struct {
	mu    sync.Mutex
	err   error
	since time.Time
	// reminded is when the failure was last logged at ERROR.
	reminded time.Time
	// missed is, per job, the first instant of the missed range last
	// logged (see logMissed).
	missed map[string]time.Time
}

// storeReminder is how often, at most, a store failure that goes on is
// logged again at ERROR; in between the failing writes log at DEBUG.
const storeReminder = 10 * time.Minute

// StoreHealth reports the error of the controller's last failed store
// write and since when writes fail, or nil while they succeed.
func (c *Controller) StoreHealth() (since time.Time, err error) {
	c.health.mu.Lock()
	defer c.health.mu.Unlock()
	return c.health.since, c.health.err
}

// noteWrite records the outcome of a store write. Answers about the data
// (not found, duplicate, conflict, another leader) are not failures of the
// store and leave the health as it is.
func (c *Controller) noteWrite(err error, now time.Time) {
	if err != nil && (errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrDuplicate) ||
		errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrStaleTerm) || errors.Is(err, context.Canceled)) {
		return
	}
	c.health.mu.Lock()
	defer c.health.mu.Unlock()
	switch {
	case err == nil && c.health.err != nil:
		c.log.Info("store writes succeed again", "failing_since", c.health.since)
		c.health.err, c.health.since = nil, time.Time{}
	case err != nil && c.health.err == nil:
		c.log.Error("store writes fail; finished runs are kept in memory until they succeed", "err", err)
		c.health.err, c.health.since, c.health.reminded = err, now, now
	case err != nil:
		c.health.err = err
	}
}

// writeFailed logs a failed store write named msg. While the store is
// known to fail (noteWrite logged that once) it logs at DEBUG, with an
// ERROR reminder at most every storeReminder; other failures log at ERROR.
func (c *Controller) writeFailed(now time.Time, msg string, args ...any) {
	c.health.mu.Lock()
	failing, since := c.health.err != nil, c.health.since
	remind := failing && now.Sub(c.health.reminded) >= storeReminder
	if remind {
		c.health.reminded = now
	}
	c.health.mu.Unlock()
	switch {
	case !failing:
		c.log.Error(msg, args...)
	case remind:
		c.log.Error("store writes still fail", append([]any{"failing_since", since, "write", msg}, args...)...)
	default:
		c.log.Debug(msg, args...)
	}
}

// recheckStoreSoon wakes e again a heartbeat interval from now, when the store
// refused to create the run of an instant that came due: the instant is
// tried again until the store takes it, so it runs late (inside its
// starting deadline) rather than being counted as missed at the job's
// next instant.
func (c *Controller) recheckStoreSoon(e *entry, now time.Time) {
	t := now.Add(c.cfg.HeartbeatInterval)
	e.storeRecheck = t
	if e.wake.IsZero() || t.Before(e.wake) {
		c.schedule(e, t)
	}
}

// keepUnrecorded holds run ends the store refused, to write them when it
// recovers. While held, their runs are heart-beaten as if still running,
// so that no recovery path takes them for orphans.
func (c *Controller) keepUnrecorded(ends []ending) {
	for _, en := range ends {
		if len(c.unrecorded) >= maxUnrecorded {
			c.droppedEnds++
			c.log.Error("too many unrecorded run ends; dropping the oldest", "run", c.unrecorded[0].run.ID, "dropped", c.droppedEnds)
			c.unrecorded = c.unrecorded[1:]
		}
		c.unrecorded = append(c.unrecorded, en)
	}
}

// isUnrecorded reports whether the run's end waits in memory.
func (c *Controller) isUnrecorded(id int64) bool {
	for _, en := range c.unrecorded {
		if en.run.ID == id {
			return true
		}
	}
	return false
}

// flushUnrecorded tries again to record the run ends the store refused,
// and retries the failed ones that have attempts left.
func (c *Controller) flushUnrecorded(ctx context.Context, now time.Time) {
	if len(c.unrecorded) == 0 {
		return
	}
	ends := c.unrecorded
	c.unrecorded = nil
	recorded, err := c.recordEnds(ctx, ends, now)
	if err != nil {
		c.unrecorded = append(ends, c.unrecorded...)
		return
	}
	c.log.Info("recorded run ends kept while the store failed", "runs", len(ends))
	for i, ok := range recorded {
		if ok && ends[i].p.State == store.RunFailed {
			if e := c.jobs[ends[i].run.Job]; e != nil {
				c.retry(ctx, ends[i].run, e.c.spec, now)
			}
		}
	}
}

// unrecordedIDs returns the IDs of runs whose ends wait in memory.
func (c *Controller) unrecordedIDs() []int64 {
	ids := make([]int64, len(c.unrecorded))
	for i, en := range c.unrecorded {
		ids[i] = en.run.ID
	}
	return ids
}

// logMissed logs a job's instants that got no run: at INFO the first time
// the range (its first instant) is seen, at DEBUG when it comes again. A
// range the store refused to record is tried again every heartbeat and
// grows while the outage lasts, so it is said once per episode.
func (c *Controller) logMissed(job string, count int64, first, last time.Time) {
	c.health.mu.Lock()
	again := c.health.missed[job].Equal(first)
	if !again {
		if c.health.missed == nil || len(c.health.missed) >= maxUnrecorded {
			c.health.missed = map[string]time.Time{}
		}
		c.health.missed[job] = first
	}
	c.health.mu.Unlock()
	log := c.log.Info
	if again {
		log = c.log.Debug
	}
	log("runs missed", "job", job, "count", count, "first", first, "last", last)
}
