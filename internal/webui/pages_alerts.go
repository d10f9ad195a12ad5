package webui

import (
	"context"
	"time"
)

// This file finds the jobs whose notifications are not being delivered:
// the notifier records every failed delivery as a notify.failed event and
// every delivered one as notify.sent. A job's alerts are failing while its
// latest delivery attempt failed.

// undelivered is a job whose latest notification failed to go out.
type undelivered struct {
	Job string
	// Failures counts the failed deliveries in the period looked at;
	// Last is the latest, with its error.
	Failures int
	Last     Event
}

// undeliveredScan bounds the notify.failed events the overview reads, and
// undeliveredJobs the jobs it checks for a later delivery.
const (
	undeliveredScan = 5000
	undeliveredJobs = 50
)

// undeliveredSince lists the jobs with failed notifications since since
// and none delivered after the latest failure, latest failure first.
func (s *server) undeliveredSince(ctx context.Context, since time.Time) ([]undelivered, error) {
	var out []undelivered
	byJob := map[string]int{}
	cursor, scanned := int64(0), 0
	for scanned < undeliveredScan {
		evs, next, err := s.cfg.Backend.Events(ctx, EventQuery{Kind: "notify.failed", Since: since, Cursor: cursor, Limit: 500})
		if err != nil {
			return nil, err
		}
		scanned += len(evs)
		for _, e := range evs {
			if e.Job == "" {
				continue
			}
			i, seen := byJob[e.Job]
			if !seen {
				i = len(out)
				byJob[e.Job] = i
				out = append(out, undelivered{Job: e.Job, Last: e})
			}
			out[i].Failures++
		}
		if next == 0 || len(evs) == 0 {
			break
		}
		cursor = next
	}
	kept := out[:0]
	for i, u := range out {
		if i >= undeliveredJobs {
			kept = append(kept, u)
			continue
		}
		ok, err := s.alertsFailing(ctx, u.Last)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, u)
		}
	}
	return kept, nil
}

// alertsFailing reports whether no notification of last's job was
// delivered after the failed delivery last.
func (s *server) alertsFailing(ctx context.Context, last Event) (bool, error) {
	sent, _, err := s.cfg.Backend.Events(ctx, EventQuery{Job: last.Job, Kind: "notify.sent", Limit: 1})
	if err != nil {
		return false, err
	}
	return len(sent) == 0 || sent[0].ID < last.ID, nil
}

// jobUndelivered returns the job's latest failed notification when no
// later one was delivered; nil when its alerts go out (or it has none).
func (s *server) jobUndelivered(ctx context.Context, job string) (*Event, error) {
	failed, _, err := s.cfg.Backend.Events(ctx, EventQuery{Job: job, Kind: "notify.failed", Limit: 1})
	if err != nil || len(failed) == 0 {
		return nil, err
	}
	ok, err := s.alertsFailing(ctx, failed[0])
	if err != nil || !ok {
		return nil, err
	}
	return &failed[0], nil
}
