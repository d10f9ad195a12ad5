package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/store"
)

// Fleet is what the API asks of the managed-resource scheduler.
type Fleet interface {
	// Resources returns every resource of the current inventory.
	Resources() []fleet.Status
	// Resource returns one resource; false if the inventory has none by id.
	Resource(id string) (fleet.Status, bool)
	// LastInventory is when the last successful inventory ran (zero before).
	LastInventory() time.Time
	// RunInventory takes an inventory now and waits for it. An error
	// wrapping ErrNoFleet means no inventory source is configured.
	RunInventory(ctx context.Context) (apitype.InventoryResult, error)
}

// ErrNoFleet: the daemon has no inventory source, so it manages no resources.
var ErrNoFleet = errors.New("this daemon manages no resources (start it with --demo, --inventory-command or --inventory aws)")

// ResourceEventKinds lists the event kinds of managed resources
// ("resource." and the scheduler's kind).
var ResourceEventKinds = func() []store.EventKind {
	kinds := []fleet.EventKind{
		fleet.EventResourceAdded, fleet.EventResourceRemoved, fleet.EventTagAdded, fleet.EventTagUpdated,
		fleet.EventTagRemoved, fleet.EventStateChanged, fleet.EventValidationError, fleet.EventValidationWarning,
		fleet.EventActionStarted, fleet.EventActionSucceeded, fleet.EventActionRetried, fleet.EventActionFailed,
		fleet.EventActionSkipped, fleet.EventNotificationSent, fleet.EventNotificationError, fleet.EventInventoryFailed,
	}
	out := make([]store.EventKind, len(kinds))
	for i, k := range kinds {
		out[i] = store.EventKind(store.ResourceEventPrefix + string(k))
	}
	return out
}()

func (s *Server) resourceRoutes(h func(pattern string, f func(w http.ResponseWriter, r *http.Request) error)) {
	h("GET /api/v1/resources", s.listResources)
	h("GET /api/v1/resources/{id}", s.getResource)
	// GET of this path finds a resource whose id is "inventory".
	h("POST /api/v1/resources/inventory", s.runInventory)
}

func (s *Server) listResources(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	out := apitype.ResourceList{Items: []apitype.Resource{}}
	if f := s.cfg.Fleet; f != nil {
		for _, st := range f.Resources() {
			out.Items = append(out.Items, ResourceFromStatus(st))
		}
		if t := f.LastInventory(); !t.IsZero() {
			out.LastInventory = &t
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getResource(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	id := r.PathValue("id")
	if s.cfg.Fleet != nil {
		if st, ok := s.cfg.Fleet.Resource(id); ok {
			writeJSON(w, http.StatusOK, ResourceFromStatus(st))
			return nil
		}
	}
	return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("resource %q is not in the inventory", id)}
}

func (s *Server) runInventory(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	if s.cfg.Fleet == nil {
		return &apitype.Error{Code: apitype.CodeConflict, Message: ErrNoFleet.Error()}
	}
	res, err := s.cfg.Fleet.RunInventory(r.Context())
	switch {
	case errors.Is(err, ErrNoFleet):
		return &apitype.Error{Code: apitype.CodeConflict, Message: ErrNoFleet.Error()}
	case err != nil && r.Context().Err() == nil:
		// The source failed (the inventory command exited non-zero, printed
		// bad JSON...): the previous inventory stays in force.
		return &apitype.Error{Code: apitype.CodeUnavailable, Message: err.Error()}
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// ResourceFromStatus converts the scheduler's view of a resource to the
// wire type.
func ResourceFromStatus(st fleet.Status) apitype.Resource {
	out := apitype.Resource{
		ID: st.ID, Name: st.Name, State: string(st.State), Tags: st.Tags, SupportsHibernation: st.SupportsHibernation,
		Scheduled: st.Scheduled, Actionable: st.Actionable, Validation: st.Validation,
		Start: st.Start, Stop: st.Stop, StartTimes: st.StartTimes, StopTimes: st.StopTimes, TimeZone: st.Zone,
		Hibernate: st.Hibernate, Notify: st.Notify, NextStart: st.NextStart, NextStop: st.NextStop,
		Errors: findings(st.Errors), Warnings: findings(st.Warnings), SeenAt: st.SeenAt,
	}
	if out.Tags == nil {
		out.Tags = map[string]string{}
	}
	if rt := st.Retry; rt != nil {
		out.Retry = &apitype.ResourceRetry{Action: string(rt.Action), Transition: rt.Transition, Attempts: rt.Attempts, Next: rt.Next, Deadline: rt.Deadline}
	}
	return out
}

func findings(fs []fleet.Finding) []apitype.Finding {
	out := make([]apitype.Finding, len(fs))
	for i, f := range fs {
		out[i] = apitype.Finding{Key: f.Key, Value: f.Value, Message: f.Message}
	}
	return out
}
