package job

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// The wall clock can step: NTP correcting a large offset, `date -s`, a
// fixed hardware clock. The controller compares, at every turn of its
// loop, how far the wall clock moved with how much time really passed (the
// clock's monotonic reading, clock.Monotonic).
//
// A forward step needs nothing special: the instants it skipped are due
// and handled like downtime (catch-up, starting deadline). A backward step
// of S would, left alone, silence every job for S: each job's last
// schedule time now lies in the future, and nothing is due until the wall
// clock passes it again. almanac follows cron's rule instead. A job whose
// period is shorter than the time its last schedule time lies ahead keeps
// firing at its period from the new wall time, as cron's wildcard jobs
// run on real time; an instant it already ran is not created twice (runs
// are unique on job, instant and attempt). A job with a longer period (a
// fixed time of day, say) waits for its next instant after the one it
// ran, so it never runs twice for one wall time. The step is logged at
// WARN, recorded as a clock.stepped event, and noted by /healthz for a day.
//
// The same rule applies at start-up to schedule times found in the future:
// a clock stepped back while almanac was down.

// stepThreshold is the smallest difference between wall and monotonic time
// taken for a step: NTP slews smaller offsets, and the loop's own jitter
// is far below it.
const stepThreshold = time.Second

// stepNoteFor is how long /healthz mentions a backward step.
const stepNoteFor = 24 * time.Hour

// clockWatch is the controller's view of the wall clock.
type clockWatch struct {
	// Owned by the Run goroutine: the previous reading.
	read bool
	wall time.Time
	mono time.Duration

	mu sync.Mutex
	// at and by describe the last backward step seen.
	at time.Time
	by time.Duration
}

// watchClock compares the wall clock's move since the previous turn with
// the time that passed, and handles a step.
func (c *Controller) watchClock(ctx context.Context, now time.Time) {
	m, ok := c.clock.(clock.Monotonic)
	if !ok {
		return
	}
	el := m.Elapsed()
	w := &c.clockw
	if !w.read {
		w.read, w.wall, w.mono = true, now, el
		return
	}
	// Round(0) drops the monotonic reading, so Sub compares wall times.
	step := now.Round(0).Sub(w.wall.Round(0)) - (el - w.mono)
	w.wall, w.mono = now, el
	switch {
	case step <= -stepThreshold:
		c.log.Warn("wall clock stepped back", "by", -step, "now", now)
		c.clockStepped(ctx, now, -step, fmt.Sprintf("the wall clock stepped back %s at %s", -step, now.UTC().Format(time.RFC3339)))
	case step >= stepThreshold:
		c.log.Info("wall clock stepped forward; the instants it skipped are due now", "by", step, "now", now)
	}
}

// clockAtStart handles schedule times found in the future at start-up.
func (c *Controller) clockAtStart(ctx context.Context, now time.Time) {
	var ahead time.Duration
	for _, e := range c.jobs {
		ahead = max(ahead, e.last.Sub(now))
	}
	if ahead < stepThreshold {
		return
	}
	c.log.Warn("schedule times lie in the future: the wall clock was stepped back while almanac was down", "by", ahead, "now", now)
	c.clockStepped(ctx, now, ahead, fmt.Sprintf("schedule times were up to %s in the future at start-up (%s): the wall clock was stepped back", ahead, now.UTC().Format(time.RFC3339)))
}

// clockStepped applies cron's rule after a backward step of by, records
// the event and keeps the note for /healthz.
func (c *Controller) clockStepped(ctx context.Context, now time.Time, by time.Duration, msg string) {
	resumed := c.resumeShortPeriods(now)
	c.clockw.mu.Lock()
	c.clockw.at, c.clockw.by = now, by
	c.clockw.mu.Unlock()
	msg += fmt.Sprintf("; %d jobs with a shorter period keep firing at it, the others wait for their next instant", resumed)
	err := c.st.EventAppend(ctx, store.Event{Time: now, Kind: store.EventClockStepped, Message: msg})
	c.noteWrite(err, now)
	if err != nil {
		c.log.Error("record clock step", "err", err)
	}
}

// resumeShortPeriods moves back the schedule time of every job that lies
// in the future by more than the job's period, so that it fires at its
// period from now, and returns how many it moved.
func (c *Controller) resumeShortPeriods(now time.Time) int {
	n := 0
	for _, e := range c.jobs {
		cursor := e.last
		if cursor.IsZero() {
			cursor = e.created
		}
		ahead := cursor.Sub(now)
		if ahead <= 0 {
			continue
		}
		first := e.c.sched.Next(now)
		if first.IsZero() {
			continue
		}
		second := e.c.sched.Next(first)
		if second.IsZero() || second.Sub(first) >= ahead {
			continue
		}
		// Just before now: an instant due at now (the loop wakes on the
		// monotonic timer set for the next fire, which the step moved to
		// now) is due.
		if e.last.IsZero() {
			e.created = now.Add(-time.Nanosecond)
		} else {
			e.last = now.Add(-time.Nanosecond)
		}
		c.schedule(e, now)
		n++
	}
	return n
}

// ClockNote describes a backward step of the wall clock seen in the last
// day, for /healthz; "" if none.
func (c *Controller) ClockNote() string {
	c.clockw.mu.Lock()
	defer c.clockw.mu.Unlock()
	if c.clockw.at.IsZero() || c.clock.Now().Sub(c.clockw.at) > stepNoteFor {
		return ""
	}
	return fmt.Sprintf("the wall clock stepped back %s at %s", c.clockw.by, c.clockw.at.UTC().Format(time.RFC3339))
}
