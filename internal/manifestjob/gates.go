package manifestjob

import (
	"sync/atomic"

	"github.com/almanac-sh/almanac/internal/job"
)

// Gates holds the gates of the manifests in force. Its Lookup is the job
// controller's GateFunc; a reload replaces the whole set at once with
// Store, so the controller never sees half of one load and half of the
// next. The zero value has no gates.
type Gates struct {
	m atomic.Pointer[map[string]job.Gate]
}

// Lookup implements job.GateFunc.
func (g *Gates) Lookup(name string) (job.Gate, bool) {
	m := g.m.Load()
	if m == nil {
		return nil, false
	}
	gate, ok := (*m)[name]
	return gate, ok
}

// Store makes m the gates in force.
func (g *Gates) Store(m map[string]job.Gate) { g.m.Store(&m) }
