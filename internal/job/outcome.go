package job

import (
	"context"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// The outcomes a job reports through Config.Report, as notify_on names them.
const (
	OutcomeFailure   = "failure"   // a run failed (after its retries, each attempt is one)
	OutcomeSuccess   = "success"   // a run succeeded
	OutcomeRecovered = "recovered" // the first success after a failed run
	OutcomeMissed    = "missed"    // scheduled instants passed without a run
	OutcomeOverdue   = "overdue"   // no success for longer than the job's alert_after
)

// Outcome is a reportable event of a job: the run that ended (for missed
// instants without a run, only its scheduled time is set) and a message.
type Outcome struct {
	Kind    string
	Spec    store.JobSpec
	Run     store.Run
	Message string
	Time    time.Time
}

// report hands an outcome to Config.Report, if there is one.
func (c *Controller) report(ctx context.Context, o Outcome) {
	if c.cfg.Report != nil {
		c.cfg.Report(ctx, o)
	}
}

// reportEnd reports a recorded run end: failure, success and, when the job
// asks for it, recovered. A run killed on request (Replace, kill, shutdown)
// is not a failure of the job and is not reported.
func (c *Controller) reportEnd(ctx context.Context, r store.Run, output []byte, now time.Time) {
	if c.cfg.Report == nil {
		return
	}
	e := c.jobs[r.Job]
	if e == nil {
		return
	}
	spec := e.c.spec
	r.Output = output
	switch r.State {
	case store.RunFailed, store.RunLost:
		c.report(ctx, Outcome{Kind: OutcomeFailure, Spec: spec, Run: r, Message: r.Error, Time: now})
	case store.RunSucceeded:
		c.report(ctx, Outcome{Kind: OutcomeSuccess, Spec: spec, Run: r, Time: now})
		if slices.Contains(spec.NotifyOn, OutcomeRecovered) && c.previousFailed(ctx, r) {
			c.report(ctx, Outcome{Kind: OutcomeRecovered, Spec: spec, Run: r, Time: now})
		}
	}
}

// previousFailed reports whether the job's finished run before r failed.
func (c *Controller) previousFailed(ctx context.Context, r store.Run) bool {
	runs, _, err := c.st.RunList(ctx, store.RunListParams{Job: r.Job,
		States: []store.RunState{store.RunSucceeded, store.RunFailed, store.RunLost}, Page: store.Page{Limit: 10}})
	if err != nil {
		return false
	}
	for _, p := range runs {
		if p.ID != r.ID && p.FinishedAt.Before(r.FinishedAt.Add(time.Nanosecond)) {
			return p.State == store.RunFailed || p.State == store.RunLost
		}
	}
	return false
}
