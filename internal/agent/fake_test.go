package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// fakeResource is a resource of the fake catalog.
type fakeResource struct {
	ref      string
	schedule string // "" for none
	// skip, if set, makes the resource skipped with this reason (as a
	// failed dependency would).
	skip string
}

// maxFakeApplies bounds the applies of one test.
const maxFakeApplies = 2000

// fakeApplier is a miniature apply engine: it gates each resource with its
// schedule as the real engine does (Match against the last-checked time at
// the clock's now), marks the others changed, and records what it applied.
type fakeApplier struct {
	t         *testing.T
	clock     clock.Clock
	schedules map[string]*puppetsched.Schedule
	periods   map[string]time.Duration

	mu        sync.Mutex
	resources []fakeResource
	applied   map[string][]time.Time // ref -> when it was applied
	triggers  []Trigger
	block     chan struct{} // if non-nil, each apply waits for a value
}

func newFakeApplier(t *testing.T, c clock.Clock) *fakeApplier {
	return &fakeApplier{t: t, clock: c, schedules: map[string]*puppetsched.Schedule{},
		periods: map[string]time.Duration{}, applied: map[string][]time.Time{}}
}

// schedule declares a schedule from Puppet attributes.
func (f *fakeApplier) schedule(name string, attrs map[string]any) {
	f.t.Helper()
	p, err := puppetsched.FromAttrs(attrs)
	if err != nil {
		f.t.Fatal(err)
	}
	s, err := puppetsched.New(name, p)
	if err != nil {
		f.t.Fatal(err)
	}
	f.schedules[name] = s
	switch s.Period() {
	case puppetsched.Hourly:
		f.periods[name] = time.Hour
	case puppetsched.Daily:
		f.periods[name] = 24 * time.Hour
	case puppetsched.Weekly:
		f.periods[name] = 7 * 24 * time.Hour
	case puppetsched.Monthly:
		f.periods[name] = 30 * 24 * time.Hour
	}
}

func (f *fakeApplier) add(r fakeResource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resources = append(f.resources, r)
}

func (f *fakeApplier) Apply(ctx context.Context, req Request) (*Report, error) {
	f.mu.Lock()
	block := f.block
	f.triggers = append(f.triggers, req.Trigger)
	n := len(f.triggers)
	f.mu.Unlock()
	if n > maxFakeApplies {
		// The agent is spinning: stop it here so the test fails instead of
		// hanging.
		f.t.Errorf("more than %d applies: the agent spins", maxFakeApplies)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rep := &Report{Start: f.clock.Now()}
	for _, r := range f.resources {
		rs := ResourceStatus{Ref: r.ref, Schedule: r.schedule}
		if r.schedule != "" {
			s := f.schedules[r.schedule]
			rep.Gated = append(rep.Gated, GatedResource{Ref: r.ref, Schedule: r.schedule, Gate: s, Period: f.periods[r.schedule]})
			if !s.Match(req.State[r.ref].Checked, f.clock.Now()) {
				rs.Status, rs.Reason = StatusSkipped, ReasonNotScheduled
				rep.Resources = append(rep.Resources, rs)
				continue
			}
		}
		if r.skip != "" {
			rs.Status, rs.Reason = StatusSkipped, r.skip
			rep.Resources = append(rep.Resources, rs)
			continue
		}
		now := f.clock.Now()
		req.State[r.ref] = ResourceState{Checked: now.Truncate(time.Second), Synced: now.Truncate(time.Second)}
		rs.Status = StatusChanged
		f.applied[r.ref] = append(f.applied[r.ref], now)
		rep.Resources = append(rep.Resources, rs)
	}
	rep.End = f.clock.Now()
	rep.Finish()
	return rep, nil
}

func (f *fakeApplier) appliedAt(ref string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.applied[ref]...)
}

func (f *fakeApplier) triggerList() []Trigger {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Trigger(nil), f.triggers...)
}
