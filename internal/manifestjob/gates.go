package manifestjob

import (
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// Gates holds the gates of the manifests in force. Its Lookup is the job
// controller's GateFunc; a reload replaces the whole set at once with
// Store or StoreSet, so the controller never sees half of one load and
// half of the next. The zero value has no gates.
type Gates struct {
	t atomic.Pointer[gateTable]
}

// gateTable is one load's gates.
type gateTable struct {
	gates    map[string]job.Gate
	unusable map[string]string
}

// Lookup implements job.GateFunc.
func (g *Gates) Lookup(name string) (job.Gate, bool) {
	t := g.t.Load()
	if t == nil {
		return nil, false
	}
	gate, ok := t.gates[name]
	return gate, ok
}

// Unusable returns why the schedule called name cannot gate a job, if the
// manifests in force declare such a schedule.
func (g *Gates) Unusable(name string) (string, bool) {
	t := g.t.Load()
	if t == nil {
		return "", false
	}
	why, ok := t.unusable[name]
	return why, ok
}

// Names lists the gates in force, sorted.
func (g *Gates) Names() []string {
	t := g.t.Load()
	if t == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(t.gates))
}

// Store makes m the gates in force.
func (g *Gates) Store(m map[string]job.Gate) { g.t.Store(&gateTable{gates: m}) }

// StoreSet makes the gates of set, and its unusable schedules, the ones
// in force.
func (g *Gates) StoreSet(set *Set) {
	g.t.Store(&gateTable{gates: set.Gates, unusable: set.Unusable})
}

// scheduleGates adds every schedule resource of the catalog to the set:
// to Gates when it can gate a job, to Unusable with the reason when it has
// a period. A schedule that takes the name of a named window is an error.
func scheduleGates(cat *catalog.Catalog, set *Set, errs *manifest.ErrorList, windows job.GateFunc, opts []puppetsched.Option) {
	for _, r := range cat.Applied("schedule") {
		if r.Type != "schedule" {
			continue
		}
		if windows != nil {
			if _, clash := windows(r.Title); clash {
				errs.Add(r.Pos, "%s: a named window (--windows) is already called %q; a name gates one thing only, so rename one of them", r.Ref(), r.Title)
				continue
			}
		}
		if _, done := set.Gates[r.Title]; done {
			continue
		}
		g, err := gate(cat, r.Title, nil, opts)
		if err != nil {
			// An invalid schedule is the catalog's error, reported
			// where a job names it; a periodic one just cannot gate.
			set.Unusable[r.Title] = err.Error()
			continue
		}
		set.Gates[r.Title] = g
	}
}

// BuiltinGate returns the one Puppet built-in schedule that can gate a job,
// never (it never opens); the others have a period, and the error says so.
// false when name is not a built-in.
func BuiltinGate(name string) (job.Gate, bool, error) {
	s, ok := puppetsched.Builtin(name)
	if !ok {
		return nil, false, nil
	}
	if per := s.Period(); per != puppetsched.Never {
		return nil, true, fmt.Errorf("the built-in schedule %q has period => %s; a job's gate may use only range, weekday, windows and time_zone", name, per)
	}
	return Gate{s}, true, nil
}
