package fleet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Inventory lists the source now, logs what changed since the last inventory
// (resources added and removed, schedule tags added, updated and removed,
// states changed outside almanac, and the validation findings of every
// resource whose tags changed), notifies the notify address of schedule tag
// changes, and saves the result to the ledger. A failed listing is logged and
// returned; the previous inventory stays in force.
func (s *Scheduler) Inventory(ctx context.Context) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if err := s.load(ctx); err != nil {
		s.emit(ctx, Event{Kind: EventInventoryFailed, Message: err.Error()})
		return err
	}
	now := s.cfg.Clock.Now()
	list, err := s.cfg.Source.List(ctx)
	if err == nil {
		err = checkResources(list)
	}
	s.mu.Lock()
	s.nextInventory = now.Add(s.cfg.InventoryInterval)
	s.mu.Unlock()
	if err != nil {
		s.emit(ctx, Event{Kind: EventInventoryFailed, Message: fmt.Sprintf("inventory failed: %v", err)})
		return err
	}

	slices.SortFunc(list, func(a, b Resource) int { return cmp.Compare(a.ID, b.ID) })
	s.mu.Lock()
	initial := !s.hadInventory
	cp := s.checkpoint
	s.mu.Unlock()
	seen := make(map[string]bool, len(list))
	for i := range list {
		r := list[i]
		if r.Name == "" {
			r.Name = r.ID
		}
		seen[r.ID] = true
		s.mu.Lock()
		t, known := s.res[r.ID]
		s.mu.Unlock()
		if !known {
			s.added(ctx, now, cp, r, initial)
			continue
		}
		s.updated(ctx, now, cp, t, r)
	}
	var gone []string
	s.mu.Lock()
	for id := range s.res {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	sort.Strings(gone)
	for _, id := range gone {
		delete(s.res, id)
	}
	s.mu.Unlock()
	for _, id := range gone {
		s.emit(ctx, Event{Kind: EventResourceRemoved, Resource: id, Message: fmt.Sprintf("%s is no longer in the inventory", id)})
	}

	s.mu.Lock()
	snap := make(map[string]Observed, len(s.res))
	for id, t := range s.res {
		snap[id] = t.obs
	}
	s.hadInventory = true
	s.lastInventory = now
	s.mu.Unlock()
	if err := s.cfg.Ledger.SaveInventory(ctx, snap); err != nil {
		s.emit(ctx, Event{Kind: EventInventoryFailed, Message: fmt.Sprintf("fleet: save inventory: %v", err)})
		return fmt.Errorf("fleet: save inventory: %w", err)
	}
	return nil
}

// added handles a resource seen for the first time.
func (s *Scheduler) added(ctx context.Context, now, cp time.Time, r Resource, initial bool) {
	t := &tracked{obs: Observed{Resource: r, State: r.State, SeenAt: now, ScheduleSince: now}}
	t.val = Validate(r.Tags, r.SupportsHibernation)
	t.sched = scheduleIdentity(&t.val)
	t.next = nextTransition(&t.val, later(cp, now))
	s.mu.Lock()
	s.res[r.ID] = t
	s.mu.Unlock()
	s.emit(ctx, Event{Kind: EventResourceAdded, Resource: r.ID, Name: r.Name, State: r.State,
		Message: fmt.Sprintf("%s (%s) added to the inventory, %s", r.Name, r.ID, r.State)})
	changes := diffScheduleTags(nil, r.Tags)
	for _, c := range changes {
		s.emit(ctx, c.event(r))
	}
	s.findings(ctx, t)
	if !initial && len(changes) > 0 {
		s.notifyTagChange(ctx, t, "", changes)
	}
}

// updated diffs a known resource against its new listing.
func (s *Scheduler) updated(ctx context.Context, now, cp time.Time, t *tracked, r Resource) {
	old := t.obs
	changes := diffScheduleTags(old.Resource.Tags, r.Tags)
	revalidate := len(changes) > 0 || old.Resource.SupportsHibernation != r.SupportsHibernation
	oldNotify := t.val.Notify

	s.mu.Lock()
	t.obs.Resource = r
	t.obs.SeenAt = now
	external := r.State != old.State
	if external {
		t.obs.State = r.State
		t.obs.ChangeSeenAt = now
	}
	if revalidate {
		t.val = Validate(r.Tags, r.SupportsHibernation)
		if id := scheduleIdentity(&t.val); id != t.sched {
			t.sched = id
			t.obs.ScheduleSince = now
			if t.retry != nil {
				t.retry = nil // the schedule it served is gone
			}
		}
		t.next = nextTransition(&t.val, later(cp, t.obs.ScheduleSince))
	}
	s.mu.Unlock()

	if external {
		s.emit(ctx, Event{Kind: EventStateChanged, Resource: r.ID, Name: r.Name, State: r.State, OldState: old.State,
			Message: fmt.Sprintf("%s changed from %s to %s outside almanac", r.Name, old.State, r.State)})
	}
	for _, c := range changes {
		s.emit(ctx, c.event(r))
	}
	if revalidate {
		s.findings(ctx, t)
	}
	if len(changes) > 0 {
		s.notifyTagChange(ctx, t, oldNotify, changes)
	}
}

// findings logs t's validation errors and warnings.
func (s *Scheduler) findings(ctx context.Context, t *tracked) {
	r := &t.obs.Resource
	for _, f := range t.val.Errors {
		s.emit(ctx, Event{Kind: EventValidationError, Resource: r.ID, Name: r.Name, Key: f.Key, Value: f.Value, Message: f.Message})
	}
	for _, f := range t.val.Warnings {
		s.emit(ctx, Event{Kind: EventValidationWarning, Resource: r.ID, Name: r.Name, Key: f.Key, Value: f.Value, Message: f.Message})
	}
}

// notifyTagChange tells the resource's notify address (the new one, or the
// old one when the tag was removed or broken) about schedule tag changes.
func (s *Scheduler) notifyTagChange(ctx context.Context, t *tracked, oldNotify string, changes []tagChange) {
	addr := t.val.Notify
	if addr == "" {
		addr = oldNotify
	}
	if addr == "" {
		return
	}
	r := &t.obs.Resource
	var b strings.Builder
	fmt.Fprintf(&b, "The schedule tags of %s (%s) changed:\n\n", r.Name, r.ID)
	for _, c := range changes {
		fmt.Fprintf(&b, "  %s\n", c.describe())
	}
	switch {
	case t.val.Actionable():
		b.WriteString("\nThe schedule is valid and in force.\n")
	case len(t.val.Errors) > 0:
		b.WriteString("\nNo action will be taken until these errors are fixed:\n")
		for _, f := range t.val.Errors {
			fmt.Fprintf(&b, "  %s\n", f.Message)
		}
	default:
		b.WriteString("\nThe resource is no longer scheduled.\n")
	}
	s.notify(ctx, t, addr, Notification{
		Kind:    NotifyScheduleChanged,
		Subject: fmt.Sprintf("almanac: schedule of %s changed", r.Name),
		Body:    b.String(),
	})
}

// tagChange is one schedule tag added, updated or removed.
type tagChange struct {
	kind           EventKind
	key, old, next string
}

func (c tagChange) describe() string {
	switch c.kind {
	case EventTagAdded:
		return fmt.Sprintf("added   %s = %s", c.key, c.next)
	case EventTagRemoved:
		return fmt.Sprintf("removed %s (was %s)", c.key, c.old)
	}
	return fmt.Sprintf("updated %s = %s (was %s)", c.key, c.next, c.old)
}

func (c tagChange) event(r Resource) Event {
	e := Event{Kind: c.kind, Resource: r.ID, Name: r.Name, Key: c.key, Value: c.next, OldValue: c.old}
	switch c.kind {
	case EventTagAdded:
		e.Message = fmt.Sprintf("%s: tag %s added: %s", r.Name, c.key, c.next)
	case EventTagRemoved:
		e.Message = fmt.Sprintf("%s: tag %s removed (was %s)", r.Name, c.key, c.old)
	default:
		e.Message = fmt.Sprintf("%s: tag %s updated: %s (was %s)", r.Name, c.key, c.next, c.old)
	}
	return e
}

// diffScheduleTags lists the schedule tag changes from old to cur, sorted by
// key. An empty value counts as absent.
func diffScheduleTags(old, cur map[string]string) []tagChange {
	var out []tagChange
	for k, v := range cur {
		if v == "" || !IsScheduleKey(k) {
			continue
		}
		switch o := old[k]; {
		case o == "":
			out = append(out, tagChange{kind: EventTagAdded, key: k, next: v})
		case o != v:
			out = append(out, tagChange{kind: EventTagUpdated, key: k, old: o, next: v})
		}
	}
	for k, o := range old {
		if o != "" && cur[k] == "" && IsScheduleKey(k) {
			out = append(out, tagChange{kind: EventTagRemoved, key: k, old: o})
		}
	}
	slices.SortFunc(out, func(a, b tagChange) int { return cmp.Compare(a.key, b.key) })
	return out
}

// scheduleIdentity summarizes what decides a resource's transitions, so a
// change to anything else (say the notify address) keeps its history.
func scheduleIdentity(v *Validation) string {
	if !v.Actionable() {
		return ""
	}
	var b strings.Builder
	if v.Start != nil {
		b.WriteString(v.Start.String())
	}
	b.WriteByte('|')
	if v.Stop != nil {
		b.WriteString(v.Stop.String())
	}
	fmt.Fprintf(&b, "|%s|%t", v.Zone, v.Hibernate)
	return b.String()
}
