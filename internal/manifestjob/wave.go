package manifestjob

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/puppetsched"
	"github.com/almanac-sh/almanac/internal/store"
)

// waveParams maps a job resource's fan-out attributes onto spec: window (a
// String, the window of every node, or a Hash of selector => window name,
// with the key default for the other nodes), max_parallel (a count or a
// percentage String such as '25%'), max_failures, wave_order and
// reboot_group. Their values are checked by job.Validate, as for jobs
// from the API.
func waveParams(p map[string]any, spec *store.JobSpec, fail func(attr, format string, a ...any)) {
	switch w := p["window"].(type) {
	case nil:
	case string:
		spec.Window = map[string]string{job.WindowDefault: w}
	case map[string]any:
		spec.Window = make(map[string]string, len(w))
		for _, k := range slices.Sorted(maps.Keys(w)) {
			name, ok := w[k].(string)
			if !ok {
				fail("window", "the window of %q must be a String (a schedule or named window), not %s", k, kindOf(w[k]))
				continue
			}
			spec.Window[k] = name
		}
	default:
		fail("window", "expected a String (the window of every node) or a Hash of node selector => window name, not %s", kindOf(w))
	}
	switch v := p["max_parallel"].(type) {
	case int64:
		spec.MaxParallel = strconv.FormatInt(v, 10)
	case string:
		spec.MaxParallel = strings.TrimSpace(v)
	}
	if n, ok := p["max_failures"].(int64); ok {
		if n > math.MaxInt32 || n < math.MinInt32 {
			fail("max_failures", "%d is too large", n)
		} else {
			spec.MaxFailures = int(n)
		}
	}
	if v, ok := p["wave_order"].(string); ok {
		spec.WaveOrder = v
	}
	if v, ok := p["reboot_group"].(string); ok {
		spec.RebootGroup = v
	}
}

// windowGates resolves the gates a job's window names, as its schedule's
// are: a schedule of the catalog, a named window, a built-in or Anytime,
// else an error at the resource.
func windowGates(cat *catalog.Catalog, r *catalog.Resource, spec store.JobSpec, set *Set, errs *manifest.ErrorList, windows job.GateFunc, opts []puppetsched.Option) {
	for _, k := range slices.Sorted(maps.Keys(spec.Window)) {
		name := strings.TrimSpace(spec.Window[k])
		if name == "" {
			continue // job.Validate reports it
		}
		if _, done := set.Gates[name]; done {
			continue
		}
		g, err := gate(cat, name, windows, opts)
		switch {
		case err != nil && name == Anytime && cat.Lookup("Schedule["+name+"]") == nil:
			// The daemon's built-in: left to its gate registry.
		case err != nil:
			errs.Add(r.Pos, "%s: window[%s]: %v", r.Ref(), strings.TrimSpace(k), err)
		default:
			set.Gates[name] = g
		}
	}
}

// Anytime is the window that is always open, built into the daemon's gate
// registry: a job's window map gives it to the nodes whose own window
// (serve --node-window) it should ignore. A schedule resource or named
// window of that name takes its place.
const Anytime = "anytime"
