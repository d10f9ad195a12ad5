package webui

import (
	"net/http"
	"strconv"

	"github.com/almanac-sh/almanac/internal/agent"
)

// appliesView is the apply report list's data.
type appliesView struct {
	ApplyPage
	// Cursor is the page's own cursor (0 on the newest page).
	Cursor int64
}

func (s *server) applies(w http.ResponseWriter, r *http.Request) {
	cursor, ok := cursorParam(r, "before")
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "The before= parameter must be an apply report id (a positive integer).")
		return
	}
	p, err := s.cfg.Backend.Applies(r.Context(), ApplyQuery{Cursor: cursor, Limit: s.cfg.PageSize})
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "applies", "", s.newPage(r, "Applies", "applies", appliesView{ApplyPage: p, Cursor: cursor}))
}

func (s *server) apply(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusNotFound, "There is no apply report "+r.PathValue("id")+": report ids are positive integers.")
		return
	}
	rep, err := s.cfg.Backend.Apply(r.Context(), id)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "apply", "", s.newPage(r, "Apply #"+strconv.FormatInt(id, 10), "applies", rep))
}

// outcomeClass is the badge class of a report's or a resource's status.
func outcomeClass(status string) string {
	switch status {
	case agent.StatusUnchanged, agent.StatusChanged, agent.StatusFailed, agent.StatusSkipped, agent.StatusNoop:
		return status
	}
	return "other"
}
