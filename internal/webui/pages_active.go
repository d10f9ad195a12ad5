package webui

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file is /runs: the history of runs across every job, newest first,
// filtered by state, job, node and scheduled time, a page at a time. The
// overview's active-runs card opens it on the active ones.

// Run-state filters of /runs beyond the single states.
const (
	runFilterActive   = "active"   // pending or running
	runFilterFinished = "finished" // succeeded, failed, killed or missed
)

// runStateFilters are the choices of /runs' state filter, in menu order.
var runStateFilters = []string{"", runFilterActive, runFilterFinished, RunPending, RunRunning, RunSucceeded, RunFailed, RunKilled, RunMissed}

// runsFilter is what /runs was asked for.
type runsFilter struct {
	State, Job, Node string
	Since, Until     time.Time
	Cursor           int64
}

// Any reports whether some filter is set.
func (f runsFilter) Any() bool {
	return f.State != "" || f.Job != "" || f.Node != "" || !f.Since.IsZero() || !f.Until.IsZero()
}

// URL is /runs with the filters and the page starting before cursor (0:
// the newest).
func (f runsFilter) URL(cursor int64) string {
	q := url.Values{}
	for k, v := range map[string]string{"state": f.State, "job": f.Job, "node": f.Node} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, t := range map[string]time.Time{"since": f.Since, "until": f.Until} {
		if !t.IsZero() {
			q.Set(k, t.Format(time.RFC3339))
		}
	}
	if cursor > 0 {
		q.Set("before", strconv.FormatInt(cursor, 10))
	}
	if len(q) == 0 {
		return "/runs"
	}
	return "/runs?" + q.Encode()
}

// states are the run states the filter keeps (nil: all).
func (f runsFilter) states() []string {
	switch f.State {
	case "":
		return nil
	case runFilterActive:
		return []string{RunPending, RunRunning}
	case runFilterFinished:
		return []string{RunSucceeded, RunFailed, RunKilled, RunMissed}
	}
	return []string{f.State}
}

// runsData is the /runs page.
type runsData struct {
	Filter runsFilter
	States []string
	Runs   []Run
	// Next is the following (older) page's cursor; 0 when there is none.
	Next int64
}

// Heading is the page's title for its state filter.
func (d runsData) Heading() string {
	switch d.Filter.State {
	case runFilterActive:
		return "Active runs"
	case runFilterFinished:
		return "Finished runs"
	case "":
		return "Runs"
	}
	return "Runs: " + d.Filter.State
}

// activeRuns serves GET /runs.
func (s *server) activeRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cursor, ok := cursorParam(r, "before")
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "The before= parameter must be a run id (a positive integer).")
		return
	}
	f := runsFilter{State: strings.TrimSpace(q.Get("state")), Job: strings.TrimSpace(q.Get("job")), Node: strings.TrimSpace(q.Get("node")), Cursor: cursor}
	if !slices.Contains(runStateFilters, f.State) {
		s.fail(w, r, http.StatusBadRequest, "state= is one of active, finished, pending, running, succeeded, failed, killed or missed; "+strconv.Quote(f.State)+" is none of them.")
		return
	}
	if f.Since, f.Until, ok = s.timeSpan(w, r); !ok {
		return
	}
	d := runsData{Filter: f, States: runStateFilters}
	var err error
	d.Runs, d.Next, err = s.cfg.Backend.Runs(r.Context(), RunQuery{Job: f.Job, Node: f.Node, States: f.states(), Since: f.Since, Until: f.Until,
		Cursor: cursor, Limit: s.cfg.PageSize})
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	s.markLiveness(r.Context(), d.Runs)
	p := s.newPage(r, d.Heading(), "runs", d)
	if f.State == runFilterActive || !f.Any() {
		p.AutoRefresh = s.cfg.RefreshSeconds
	}
	s.render(w, r, http.StatusOK, "runs", "", p)
}
