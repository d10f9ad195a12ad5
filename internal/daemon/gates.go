package daemon

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifestjob"
	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the daemon's one registry of schedule gates: every name a
// job's `schedule`, a reboot group's window or an agent resource's
// `schedule` may give. It holds the named windows of --windows and --demo
// and the schedule resources of the manifests in force (plus Puppet's
// built-in `never`); the job controller, the API, the manifest loader,
// FleetLock, the agent and the web UI all resolve names through it, so
// none of them can call a gate what another does not.
//
// A name means one gate: the manifest loader refuses a schedule resource
// that takes a named window's name. Named windows are fixed at start-up;
// the manifests' part is swapped whole on every accepted load.

// gateRegistry resolves gate names. The zero value has no gates; a nil
// pointer neither.
type gateRegistry struct {
	named     *namedWindows
	manifests *manifestjob.Gates // nil without --manifests
}

// newGateRegistry returns the registry of the named windows; the
// manifests' schedules join it when the manifests load (useManifests).
func newGateRegistry(named *namedWindows) *gateRegistry {
	return &gateRegistry{named: named}
}

// useManifests adds the manifests' gate table; called once, before the
// daemon starts.
func (r *gateRegistry) useManifests(g *manifestjob.Gates) { r.manifests = g }

// compileOptions lets the manifests' resources name a named window as
// their schedule.
func (r *gateRegistry) compileOptions() catalog.Options {
	if r.windowFunc() == nil {
		return catalog.Options{}
	}
	return catalog.Options{Schedules: func(name string) bool {
		_, ok := r.window(name)
		return ok
	}}
}

// window returns the named window called name.
func (r *gateRegistry) window(name string) (job.Gate, bool) {
	if r == nil || r.named == nil {
		return nil, false
	}
	for _, w := range r.named.list {
		if w.name == name {
			return w.cfg.Calendar, true
		}
	}
	return nil, false
}

// windowFunc is the named windows alone, as the manifest loader takes
// them; nil when there are none.
func (r *gateRegistry) windowFunc() job.GateFunc {
	if r == nil || r.named == nil || len(r.named.list) == 0 {
		return nil
	}
	return r.window
}

// Lookup implements job.GateFunc: a named window, else a manifest
// schedule, else Puppet's built-in never.
func (r *gateRegistry) Lookup(name string) (job.Gate, bool) {
	if g, ok := r.window(name); ok {
		return g, true
	}
	if r != nil && r.manifests != nil {
		if g, ok := r.manifests.Lookup(name); ok {
			return g, true
		}
	}
	if name == anytime {
		return alwaysOpen{}, true
	}
	g, _, err := manifestjob.BuiltinGate(name)
	return g, g != nil && err == nil
}

// anytime is the built-in gate that is always open: a fleet-wide job's
// window map gives it to nodes whose own --node-window it should ignore.
// A named window or schedule of that name takes precedence.
const anytime = "anytime"

// alwaysOpen is the anytime gate.
type alwaysOpen struct{}

func (alwaysOpen) Contains(time.Time) bool                { return true }
func (alwaysOpen) NextOpen(t time.Time) (time.Time, bool) { return t, true }

// Names lists every gate name in force, sorted, without duplicates.
func (r *gateRegistry) Names() []string {
	var out []string
	if r != nil && r.named != nil {
		for _, w := range r.named.list {
			out = append(out, w.name)
		}
	}
	if r != nil && r.manifests != nil {
		out = append(out, r.manifests.Names()...)
	}
	out = append(out, "never", anytime)
	slices.Sort(out)
	return slices.Compact(out)
}

// check returns nil when name is a gate in force, else an error saying
// why it is not and listing the gates there are.
func (r *gateRegistry) check(name string) error {
	if _, ok := r.Lookup(name); ok {
		return nil
	}
	if r != nil && r.manifests != nil {
		if why, ok := r.manifests.Unusable(name); ok {
			return fmt.Errorf("%s; %s", why, r.known())
		}
	}
	if _, builtin, err := manifestjob.BuiltinGate(name); builtin && err != nil {
		return fmt.Errorf("%w; %s", err, r.known())
	}
	return fmt.Errorf("no gate is named %q; %s", name, r.known())
}

// maxListedGates bounds how many names an error lists.
const maxListedGates = 20

// known lists the gates in force for an error message.
func (r *gateRegistry) known() string {
	names := r.Names()
	if len(names) > maxListedGates {
		return fmt.Sprintf("known gates (%d): %s, ...", len(names), strings.Join(names[:maxListedGates], ", "))
	}
	return "known gates: " + strings.Join(names, ", ")
}

// checkSpec refuses a job whose schedule gate, or a window its nodes wait
// for, names nothing, as a validation error of that field (a 422 on the
// API).
func (r *gateRegistry) checkSpec(spec store.JobSpec) error {
	var fields []job.FieldError
	if spec.Gate != "" {
		if err := r.check(spec.Gate); err != nil {
			fields = append(fields, job.FieldError{Field: "schedule", Message: err.Error()})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Window)) {
		gate := strings.TrimSpace(spec.Window[k])
		if gate == "" {
			continue // job.Validate says it is empty
		}
		if err := r.check(gate); err != nil {
			fields = append(fields, job.FieldError{Field: "window[" + strings.TrimSpace(k) + "]", Message: err.Error()})
		}
	}
	if len(fields) > 0 {
		return &job.ValidationError{Job: spec.Name, Fields: fields}
	}
	return nil
}
