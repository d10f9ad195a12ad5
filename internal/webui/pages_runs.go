package webui

import (
	"github.com/almanac-sh/almanac/internal/access"

	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// runRefreshSeconds is how often an active run's page refreshes itself.
const runRefreshSeconds = 2

type runData struct {
	Run  Run
	Zone string
	// Output is the captured output as text.
	Output string
	// OutputHidden: the token may not read output (read-output).
	OutputHidden bool
	// Poll is the refresh interval while the run is active, else zero.
	Poll int
	// Node is the cluster view's entry for the run's node while the run
	// is active and that node is suspect or down; nil otherwise.
	Node *apitype.ClusterNode
}

// loadRun reads the run named by the {id} path value and its job's zone.
func (s *server) loadRun(w http.ResponseWriter, r *http.Request) (runData, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusNotFound, "Run ids are positive integers; "+strconv.Quote(r.PathValue("id"))+" is not one.")
		return runData{}, false
	}
	run, err := s.cfg.Backend.Run(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		// A run older than a newer one that still exists was pruned.
		if newest, _, lerr := s.cfg.Backend.Runs(r.Context(), RunQuery{Limit: 1}); lerr == nil && len(newest) > 0 && newest[0].ID > id {
			s.fail(w, r, http.StatusNotFound, fmt.Sprintf("Run #%d is no longer kept: almanac keeps the last runs of each job "+
				"(its history limits, by default 3 succeeded and 1 failed) and prunes older ones. "+
				"The event log still records what happened to it.", id))
			return runData{}, false
		}
	}
	if err != nil {
		s.backendError(w, r, err)
		return runData{}, false
	}
	d := runData{Run: run, Output: string(run.Output)}
	if !access.From(r.Context()).Can(access.ReadOutput) {
		// Output may hold secrets: a viewer sees that there is some,
		// not what it says.
		d.Output, d.OutputHidden = "", len(run.Output) > 0 || run.Active()
	}
	if j, err := s.cfg.Backend.Job(r.Context(), run.Job); err == nil {
		d.Zone = j.Zone
	}
	if run.Active() {
		d.Poll = runRefreshSeconds
		if n, ok := s.nodeLiveness(r.Context())[run.livenessNode()]; ok && n.Liveness != apitype.NodeAlive && n.Liveness != "" {
			d.Run.NodeLiveness, d.Node = n.Liveness, &n
		}
	}
	return d, true
}

func (s *server) run(w http.ResponseWriter, r *http.Request) {
	d, ok := s.loadRun(w, r)
	if !ok {
		return
	}
	p := s.newPage(r, "Run "+strconv.FormatInt(d.Run.ID, 10), "jobs", d)
	p.Refresh = d.Poll * 2 // without JavaScript, reload the whole page a little less often
	s.render(w, r, http.StatusOK, "run", "", p)
}

// runLive renders only the run's live section; htmx polls it while the run
// is active and stops once the section comes back without a trigger.
func (s *server) runLive(w http.ResponseWriter, r *http.Request) {
	d, ok := s.loadRun(w, r)
	if !ok {
		return
	}
	s.render(w, r, http.StatusOK, "run", "live", s.newPage(r, "", "jobs", d))
}

// runKill stops an active run and goes back to its page.
func (s *server) runKill(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusNotFound, "Run ids are positive integers; "+strconv.Quote(r.PathValue("id"))+" is not one.")
		return
	}
	if err := s.cfg.Backend.Kill(r.Context(), id); err != nil {
		s.actionError(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/runs/%d", id), http.StatusSeeOther)
}

// runLog serves the captured output as plain text.
func (s *server) runLog(w http.ResponseWriter, r *http.Request) {
	d, ok := s.loadRun(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(d.Output))
}
