package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// A run's command may outlive the daemon that started it (Supervised). A
// restarted node asks its executor to attach to each run its previous life
// left running: a run still executing is followed again like one just
// started (live output, kill, timeout counted from the run's start,
// Replace); one that ended meanwhile is recorded with its real exit status
// and end time; one whose machine rebooted is recorded lost and retried
// per backoff_limit. Only the runs the executor cannot find again (Exec,
// whose children die with it or are reaped by orphan.go) are recorded
// failed as interrupted. A running run of another node that has not
// heart-beaten for LostAfter is recorded lost: the node is presumed gone
// with its machine, and when it comes back it stops what it left running
// for a run recorded finished (the executor's sweep).

// reattach attaches to the processes of runs, the runs this node's previous
// life left running, and returns those the executor cannot find again.
func (c *Controller) reattach(ctx context.Context, runs []store.Run) []store.Run {
	now := c.clock.Now()
	var (
		rest     []store.Run
		attached []int64
	)
	keep := map[int64]bool{}
	for _, r := range runs {
		p, err := c.exec.Attach(ctx, r)
		switch {
		case err == nil:
			keep[r.ID] = true
			attached = append(attached, r.ID)
			c.adopt(r, p, now)
		case errors.Is(err, ErrLost):
			c.recover(ctx, r, store.RunLost, fmt.Sprintf("lost: %v", err), now)
		default:
			if !errors.Is(err, ErrNotAttachable) {
				c.log.Warn("cannot attach to a run left running by a previous almanac", "run", r.ID, "job", r.Job, "err", err)
			}
			rest = append(rest, r)
		}
	}
	if sw, ok := c.exec.(sweeper); ok {
		sw.Sweep(keep)
	}
	if len(attached) > 0 {
		// Tell the other nodes at once that the runs are alive again.
		_, err := c.st.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: c.cfg.Node, IDs: attached, Now: now})
		c.noteWrite(err, now)
	}
	return rest
}

// adopt makes an attached process one of this node's active runs.
func (c *Controller) adopt(r store.Run, p Process, now time.Time) {
	x := &execution{run: r, proc: p, stopc: make(chan stopRequest, 1)}
	if !r.StartedAt.IsZero() {
		x.elapsed = max(now.Sub(r.StartedAt), 0)
	}
	e := c.jobs[r.Job]
	if e != nil {
		x.spec = e.c.spec
	}
	select {
	case <-p.Done():
		c.log.Info("run ended while almanac was down", "job", r.Job, "run", r.ID, "instant", r.ScheduledTime)
	default:
		c.log.Info("run re-attached", "job", r.Job, "run", r.ID, "instant", r.ScheduledTime, "running_for", x.elapsed.Round(time.Millisecond))
	}
	c.active[r.ID] = x
	if lo, ok := p.(LiveOutput); ok {
		c.live.Store(r.ID, lo)
	}
	go c.supervise(x)
	if e == nil {
		x.stop("job deleted while almanac was down", store.RunKilled)
	}
}

// detachDurable lets go of the runs whose processes outlive the daemon, at
// shutdown: they keep running and the next life attaches to them.
func (c *Controller) detachDurable() {
	for id, x := range c.active {
		if _, ok := x.proc.(durable); !ok {
			continue
		}
		select {
		case <-x.proc.Done():
			continue // ended: record it now
		default:
		}
		c.log.Info("leaving run to its supervisor", "job", x.run.Job, "run", id)
		delete(c.active, id)
		c.live.Delete(id)
	}
}

// expireLost records lost, and retries, the running runs of nodes that
// have not heart-beaten for LostAfter.
func (c *Controller) expireLost(ctx context.Context, now time.Time) {
	stale, err := c.st.RunListStale(ctx, store.RunListStaleParams{HeartbeatBefore: now.Add(-c.cfg.LostAfter), Limit: 1000})
	if err != nil {
		c.log.Error("find stale runs", "err", err)
		return
	}
	for _, r := range stale {
		if c.active[r.ID] == nil && !c.isUnrecorded(r.ID) {
			c.recover(ctx, r, store.RunLost, fmt.Sprintf("node %s stopped heart-beating during the run and stayed away past %s", r.Node, c.cfg.LostAfter), now)
		}
	}
}
