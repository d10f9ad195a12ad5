package webui

import (
	"net/http"
	"strings"
)

// eventKinds are suggested in the event log's kind filter.
var eventKinds = []string{
	"job.created", "job.updated", "job.deleted", "job.suspended", "job.resumed",
	"run.scheduled", "run.started", "run.succeeded", "run.failed", "run.retry", "run.killed", "run.missed", "run.skipped",
	"resource-added", "resource-removed", "tag-added", "tag-updated", "tag-removed", "state-changed",
	"validation-error", "validation-warning", "action-started", "action-succeeded", "action-retried",
	"action-failed", "action-skipped", "notification-sent", "notification-failed", "inventory-failed",
}

type eventsData struct {
	Query  EventQuery
	Events []Event
	// Older is the query of the next (older) page; nil on the last page.
	Older *EventQuery
	// Newest is the query of the first page with the same filters.
	Newest EventQuery
	Kinds  []string
}

func (s *server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cursor, ok := cursorParam(r, "before")
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "The before= parameter must be an event id (a positive integer).")
		return
	}
	eq := EventQuery{
		Job: strings.TrimSpace(q.Get("job")), Resource: strings.TrimSpace(q.Get("resource")),
		Kind: strings.TrimSpace(q.Get("kind")), Cursor: cursor, Limit: s.cfg.PageSize,
	}
	evs, next, err := s.cfg.Backend.Events(r.Context(), eq)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d := eventsData{Query: eq, Events: evs, Kinds: eventKinds}
	d.Newest = eq
	d.Newest.Cursor = 0
	if next > 0 {
		older := eq
		older.Cursor = next
		d.Older = &older
	}
	s.render(w, r, http.StatusOK, "events", "", s.newPage(r, "Event log", "events", d))
}
