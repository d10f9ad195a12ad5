package fleet

import (
	"context"
	"fmt"
)

// State is a managed resource's power state.
type State string

// The states an inventory source reports.
const (
	Running    State = "running"
	Stopped    State = "stopped"
	Hibernated State = "hibernated"
)

// Valid reports whether s is one of the known states.
func (s State) Valid() bool { return s == Running || s == Stopped || s == Hibernated }

// Action is what the scheduler does to a resource at a transition.
type Action string

// The actions.
const (
	ActionStart     Action = "start"
	ActionStop      Action = "stop"
	ActionHibernate Action = "hibernate"
)

// Target is the state the action leaves the resource in.
func (a Action) Target() State {
	switch a {
	case ActionStart:
		return Running
	case ActionHibernate:
		return Hibernated
	}
	return Stopped
}

// Resource is one machine or service as an inventory source reports it. The
// JSON form is the one the command source reads.
type Resource struct {
	ID                  string            `json:"id"`
	Name                string            `json:"name"`
	State               State             `json:"state"`
	Tags                map[string]string `json:"tags"`
	SupportsHibernation bool              `json:"supports_hibernation"`
}

// Source lists resources and acts on them: a cloud CLI wrapper, a hypervisor,
// or the demo fleet. Implementations must be safe for concurrent use; the
// scheduler may act on several resources at once.
type Source interface {
	// List returns every resource the source manages, scheduled or not.
	List(ctx context.Context) ([]Resource, error)
	// Start powers the resource on (from stopped or hibernated).
	Start(ctx context.Context, id string) error
	// Stop powers the resource off.
	Stop(ctx context.Context, id string) error
	// Hibernate suspends the resource to disk; only called for resources that
	// report SupportsHibernation.
	Hibernate(ctx context.Context, id string) error
}

// do performs action a on resource id through src.
func do(ctx context.Context, src Source, a Action, id string) error {
	switch a {
	case ActionStart:
		return src.Start(ctx, id)
	case ActionStop:
		return src.Stop(ctx, id)
	case ActionHibernate:
		return src.Hibernate(ctx, id)
	}
	return fmt.Errorf("unknown action %q", a)
}

// checkResources validates a listing: ids present and unique, states known.
func checkResources(rs []Resource) error {
	seen := make(map[string]bool, len(rs))
	for i, r := range rs {
		if r.ID == "" {
			return fmt.Errorf("resource %d: missing id", i)
		}
		if seen[r.ID] {
			return fmt.Errorf("resource %d: duplicate id %q", i, r.ID)
		}
		seen[r.ID] = true
		if !r.State.Valid() {
			return fmt.Errorf("resource %d (%s): state %q is not running, stopped or hibernated", i, r.ID, r.State)
		}
	}
	return nil
}
