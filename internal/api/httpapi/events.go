package httpapi

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// EventKinds lists every event kind a filter may name.
var EventKinds = append([]store.EventKind{
	store.EventJobCreated, store.EventJobUpdated, store.EventJobDeleted,
	store.EventJobSuspended, store.EventJobResumed,
	store.EventRunScheduled, store.EventRunStarted, store.EventRunSucceeded,
	store.EventRunFailed, store.EventRunRetry, store.EventRunKilled,
	store.EventRunMissed, store.EventRunSkipped, store.EventRunLost, store.EventClockStepped,
	store.EventNotifySent, store.EventNotifyFailed, store.EventJobOverdue, store.EventJobGateMissing, store.EventJobUnrunnable,
	store.EventRebootLocked, store.EventRebootUnlocked, store.EventRebootHeldLong,
	store.EventNodeLabels,
	store.EventWavePaused, store.EventWaveResumed, store.EventWaveStopped,
	store.EventTokenCreated, store.EventTokenRevoked, store.EventDaemonReloaded,
}, ResourceEventKinds...)

// maxActor bounds ?actor: a token name, or manifest: and a file path.
const maxActor = 4096

// eventKinds resolves one ?kind= element: an exact kind ("run.failed") or a
// family ("run", "job") meaning every kind in it.
func eventKinds(name string) []store.EventKind {
	var out []store.EventKind
	for _, k := range EventKinds {
		if string(k) == name || strings.HasPrefix(string(k), name+".") {
			out = append(out, k)
		}
	}
	return out
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "job", "resource", "kind", "actor", "since", "until", "page", "limit"); err != nil {
		return err
	}
	q := r.URL.Query()
	p := store.EventListParams{Job: q.Get("job"), Resource: q.Get("resource"), Actor: q.Get("actor"),
		JobPrefix: access.From(r.Context()).JobPrefix}
	if len(p.Actor) > maxActor || strings.ContainsFunc(p.Actor, unicode.IsControl) {
		return badRequest("?actor", fmt.Sprintf("%.40q is not an actor (a token name, manifest:FILE or fleetlock:ID)", p.Actor))
	}
	if p.Job != "" {
		// Events outlive their job, so an unknown name is not an error,
		// but it must still be a possible name.
		if err := checkName("?job", p.Job); err != nil {
			return fieldOf(err, "?job")
		}
	}
	if k := q.Get("kind"); k != "" {
		for _, one := range strings.Split(k, ",") {
			kinds := eventKinds(strings.TrimSpace(one))
			if len(kinds) == 0 {
				names := make([]string, len(EventKinds))
				for i, k := range EventKinds {
					names[i] = string(k)
				}
				sort.Strings(names)
				return badRequest("?kind", fmt.Sprintf("%q is not an event kind (one of job, run, resource, wave, %s)", one, strings.Join(names, ", ")))
			}
			p.Kinds = append(p.Kinds, kinds...)
		}
	}
	var err error
	if p.Since, p.Until, err = timeSpan(r); err != nil {
		return err
	}
	if p.Page, err = pageParams(r); err != nil {
		return err
	}
	events, next, err := s.cfg.Store.EventList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list events: %w", err)
	}
	page := apitype.Page[apitype.Event]{Items: make([]apitype.Event, 0, len(events))}
	for _, e := range events {
		page.Items = append(page.Items, eventFromStore(e))
	}
	if next != 0 {
		page.NextPage = strconv.FormatInt(next, 10)
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// timeSpan reads ?since and ?until (RFC 3339 times; absent: unbounded).
func timeSpan(r *http.Request) (since, until time.Time, err error) {
	q := r.URL.Query()
	for _, b := range []struct {
		name string
		to   *time.Time
	}{{"since", &since}, {"until", &until}} {
		if v := q.Get(b.name); v != "" {
			t, perr := time.Parse(time.RFC3339, v)
			if perr != nil {
				return since, until, badRequest("?"+b.name, fmt.Sprintf("%.40q is not an RFC 3339 time", v))
			}
			*b.to = t
		}
	}
	return since, until, nil
}
