package apply

import (
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// Schedules are the schedules a catalog's resources may gate on, by name:
// the catalog's schedule resources, then Puppet's built-in ones unless a
// resource of the same name replaces them.
type Schedules map[string]*puppetsched.Schedule

// CatalogSchedules builds the catalog's schedule resources; a schedule
// without time_zone reads wall-clock times in loc. An invalid one is an
// error at its position in the manifest.
func CatalogSchedules(cat *catalog.Catalog, loc *time.Location) (Schedules, error) {
	out := Schedules{}
	for _, r := range cat.Applied("schedule") {
		if r.Type != "schedule" {
			continue
		}
		// A schedule may outlive the catalog (agent mode keeps the gates
		// of the last apply to wake at their openings): it keeps none of
		// the manifest text.
		r = r.Detach()
		p, err := puppetsched.FromAttrs(r.Params)
		if err == nil {
			var s *puppetsched.Schedule
			s, err = puppetsched.New(r.Title, p, puppetsched.WithDefaultLocation(loc))
			if err == nil {
				out[r.Title] = s
				continue
			}
		}
		return nil, fmt.Errorf("%s: %w", r.Pos, err)
	}
	return out, nil
}

// Lookup finds a schedule: a declared one, else one of Puppet's built-ins.
func (ss Schedules) Lookup(name string) (*puppetsched.Schedule, bool) {
	if s, ok := ss[name]; ok {
		return s, true
	}
	return puppetsched.Builtin(name)
}

// Gate is [Schedules.Lookup] as the engine's gate (for Options.Gates),
// matching failures reading as Puppet's.
func (ss Schedules) Gate(name string) (Gate, bool) {
	s, ok := ss.Lookup(name)
	if !ok {
		return nil, false
	}
	return s.Gate(), true
}

// controllerTypes are catalog resources another part of the daemon acts
// on: `job` and `cron` resources belong to the job controller and
// `reboot_group` resources to the FleetLock server, not to an apply.
var controllerTypes = map[string]bool{"job": true, "cron": true, "reboot_group": true}

// WithoutControllerTypes leaves out of an apply the resources the daemon's
// job controller handles (job), and the edges that touch them: a job runs on
// its own schedule, so an apply neither runs it nor reports it as
// unmanageable. left, if not nil, is called with each resource left out.
func WithoutControllerTypes(c *Catalog, left func(r *Resource)) *Catalog {
	out := &Catalog{}
	drop := map[string]bool{}
	for _, r := range c.Resources {
		if controllerTypes[r.Type] {
			drop[r.Ref()] = true
			if left != nil {
				left(r)
			}
			continue
		}
		out.Resources = append(out.Resources, r)
	}
	for _, e := range c.Edges {
		if !drop[e.From] && !drop[e.To] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}
