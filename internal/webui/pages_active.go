package webui

import "net/http"

// activeRunsData is the list of active runs: pending and running, newest
// first, one page.
type activeRunsData struct {
	Runs []Run
	// Cursor is this page's start (0: the newest); Next the following
	// page's (0: none).
	Cursor, Next int64
}

// activeRuns serves GET /runs: the runs that have not finished, across
// every job, which the overview's "active runs" card counts.
func (s *server) activeRuns(w http.ResponseWriter, r *http.Request) {
	cursor, ok := cursorParam(r, "before")
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "The before= parameter must be a run id (a positive integer).")
		return
	}
	d := activeRunsData{Cursor: cursor}
	var err error
	d.Runs, d.Next, err = s.cfg.Backend.Runs(r.Context(), RunQuery{States: []string{RunPending, RunRunning}, Cursor: cursor, Limit: s.cfg.PageSize})
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	p := s.newPage(r, "Active runs", "jobs", d)
	p.AutoRefresh = s.cfg.RefreshSeconds
	s.render(w, r, http.StatusOK, "runs", "", p)
}
