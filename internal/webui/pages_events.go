package webui

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
)

// eventKinds are suggested in the event log's kind filter: the kinds the
// event log really holds (as the API lists them), and their families.
var eventKinds = func() []string {
	families := map[string]bool{}
	var out []string
	for _, k := range httpapi.EventKinds {
		f, _, _ := strings.Cut(string(k), ".")
		if !families[f] {
			families[f] = true
			out = append(out, f)
		}
		out = append(out, string(k))
	}
	return out
}()

// failureKinds are shown in the failure colour in the event log.
func failureKind(kind string) bool {
	return strings.HasSuffix(kind, "failed") || strings.HasSuffix(kind, "missed") || strings.HasSuffix(kind, "error") ||
		strings.HasSuffix(kind, "killed") || strings.HasSuffix(kind, "lost") || strings.HasSuffix(kind, "overdue") || strings.HasSuffix(kind, "held-long") ||
		strings.HasSuffix(kind, "gate-missing") || strings.HasSuffix(kind, "unrunnable")
}

// parseWhen reads a time filter: RFC 3339, or a date and time (or a date)
// in the UI's zone, as a datetime-local input sends it.
func parseWhen(s string, loc *time.Location) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

type eventsData struct {
	Query  EventQuery
	Events []Event
	// Older is the query of the next (older) page; nil on the last page.
	Older *EventQuery
	// Newest is the query of the first page with the same filters.
	Newest EventQuery
	Kinds  []string
	// Error says why the filters select nothing without asking (an
	// unknown kind).
	Error string
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
	if eq.Since, eq.Until, ok = s.timeSpan(w, r); !ok {
		return
	}
	if eq.Kind != "" && !slices.Contains(eventKinds, eq.Kind) {
		d := eventsData{Query: eq, Kinds: eventKinds, Error: "Unknown event kind " + strconv.Quote(eq.Kind) +
			": use one of the kinds the Kind field suggests, or a family such as run, job or notify."}
		s.render(w, r, http.StatusBadRequest, "events", "", s.newPage(r, "Event log", "events", d))
		return
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

// timeSpan reads the since= and until= filters of a page; on a time it
// cannot read it answers 400 and returns false.
func (s *server) timeSpan(w http.ResponseWriter, r *http.Request) (since, until time.Time, ok bool) {
	q := r.URL.Query()
	var okSince, okUntil bool
	since, okSince = parseWhen(strings.TrimSpace(q.Get("since")), s.cfg.Location)
	until, okUntil = parseWhen(strings.TrimSpace(q.Get("until")), s.cfg.Location)
	if !okSince || !okUntil {
		s.fail(w, r, http.StatusBadRequest, "Times in since= and until= are like 2026-11-25T03:00 (in the UI's zone) or RFC 3339.")
		return since, until, false
	}
	return since, until, true
}
