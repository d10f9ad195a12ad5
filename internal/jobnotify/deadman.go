package jobnotify

import (
	"context"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

// JobReader is what the dead-man check reads; the store satisfies it.
type JobReader interface {
	JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error)
	EventList(ctx context.Context, p store.EventListParams) ([]store.Event, int64, error)
	EventAppend(ctx context.Context, events ...store.Event) error
}

// DeadManInterval is how often jobs with alert_after are checked.
const DeadManInterval = time.Minute

// WatchOverdue checks, every DeadManInterval until ctx ends, each job
// with alert_after whose last success (or, if it never succeeded, its
// creation) is older than that, and reports it overdue once: a job.overdue
// event records the alert, so neither the next check nor a restarted
// daemon sends it again until the job succeeds. Suspended jobs are not
// checked. It complements the run outcomes: a job whose runs vanished
// (the daemon was down, a gate never opened, the node lost them) still
// raises the alarm.
func (n *Notifier) WatchOverdue(ctx context.Context, st JobReader) {
	for {
		n.CheckOverdue(ctx, st)
		t := n.cfg.Clock.NewTimer(DeadManInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// CheckOverdue does one dead-man check of every job with an alert_after,
// reading them a page at a time.
func (n *Notifier) CheckOverdue(ctx context.Context, st JobReader) {
	for after := ""; ; {
		jobs, err := st.JobList(ctx, store.JobListParams{WithAlertAfter: true, After: after, Limit: deadManPage})
		if err != nil {
			n.cfg.Logger.Error("dead-man check: list jobs", "err", err)
			return
		}
		n.checkOverdue(ctx, st, jobs)
		if len(jobs) < deadManPage {
			return
		}
		after = jobs[len(jobs)-1].Spec.Name
	}
}

// deadManPage is how many jobs the dead-man check reads at once.
const deadManPage = 500

// checkOverdue checks one page of jobs.
func (n *Notifier) checkOverdue(ctx context.Context, st JobReader, jobs []store.Job) {
	now := n.cfg.Clock.Now()
	for _, j := range jobs {
		after := time.Duration(j.Spec.AlertAfterSeconds) * time.Second
		if after <= 0 || j.Spec.Suspend {
			continue
		}
		since := j.Status.LastSuccessfulTime
		if since.IsZero() {
			since = j.CreatedAt
		}
		if now.Sub(since) < after {
			continue
		}
		evs, _, err := st.EventList(ctx, store.EventListParams{Job: j.Spec.Name, Kinds: []store.EventKind{store.EventJobOverdue}, Page: store.Page{Limit: 1}})
		if err != nil {
			n.cfg.Logger.Error("dead-man check: read events", "job", j.Spec.Name, "err", err)
			continue
		}
		if len(evs) > 0 && !evs[0].Time.Before(since) {
			continue // already reported since the last success
		}
		msg := fmt.Sprintf("no success for %s (alert_after %s); the last was %s", now.Sub(since).Round(time.Second), after, describeSince(j))
		if err := st.EventAppend(ctx, store.Event{Time: now, Kind: store.EventJobOverdue, Job: j.Spec.Name, Message: msg}); err != nil {
			n.cfg.Logger.Error("dead-man check: record", "job", j.Spec.Name, "err", err)
			continue
		}
		n.cfg.Logger.Warn("job overdue", "job", j.Spec.Name, "since", since, "alert_after", after)
		n.Report(ctx, job.Outcome{Kind: job.OutcomeOverdue, Spec: j.Spec, Message: msg, Time: now,
			Run: store.Run{Job: j.Spec.Name, ScheduledTime: since}})
	}
}

func describeSince(j store.Job) string {
	if j.Status.LastSuccessfulTime.IsZero() {
		return "never (created " + j.CreatedAt.UTC().Format(time.RFC3339) + ")"
	}
	return j.Status.LastSuccessfulTime.UTC().Format(time.RFC3339)
}
