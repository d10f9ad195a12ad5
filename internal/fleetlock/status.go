package fleetlock

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// GroupStatus is a reboot group as the API and the web UI show it.
type GroupStatus struct {
	Group
	// Holders are the members holding a slot, and since when.
	Holders []Holder
	// Open reports whether the group's window is open now (always true
	// without a window); NextOpen is when it opens next, if closed.
	Open     bool
	NextOpen time.Time
}

// Holder is a member holding a slot.
type Holder struct {
	ID    string
	Since time.Time
	// Overdue is true when it has held the slot longer than the group's
	// MaxHold.
	Overdue bool
}

// Status returns every configured group with its holders, and holders of
// groups no longer configured under their old names.
func (s *Server) Status(ctx context.Context) ([]GroupStatus, error) {
	locks, err := s.cfg.Store.RebootLocks(ctx)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Clock.Now()
	var out []GroupStatus
	index := map[string]int{}
	for _, g := range s.cfg.Groups() {
		st := GroupStatus{Group: g, Open: true}
		if g.Window != "" {
			if w, ok := s.cfg.Windows(g.Window); ok {
				st.Open = w.Contains(now)
				if !st.Open {
					st.NextOpen, _ = w.NextOpen(now)
				}
			}
		}
		index[g.Name] = len(out)
		out = append(out, st)
	}
	for _, l := range locks {
		i, ok := index[l.Group]
		if !ok {
			index[l.Group] = len(out)
			i = len(out)
			out = append(out, GroupStatus{Group: Group{Name: l.Group}})
		}
		g := &out[i]
		g.Holders = append(g.Holders, Holder{ID: l.Holder, Since: l.Since, Overdue: now.Sub(l.Since) > s.maxHold(g.Group)})
	}
	return out, nil
}

func (s *Server) maxHold(g Group) time.Duration {
	if g.MaxHold > 0 {
		return g.MaxHold
	}
	return s.cfg.MaxHold
}

// HoldCheckInterval is how often WatchHolds looks at the holders.
const HoldCheckInterval = time.Minute

// WatchHolds reports, every HoldCheckInterval until ctx ends, each slot
// held longer than its group's MaxHold: once per slot, as an event, a log
// line and an alert. The slot is not broken: a machine may still be
// rebooting, and only a person can tell.
func (s *Server) WatchHolds(ctx context.Context) {
	var mu sync.Mutex
	reported := map[string]bool{}
	for {
		groups, err := s.Status(ctx)
		if err != nil {
			s.cfg.Logger.Error("fleetlock: check holders", "err", err)
		}
		for _, g := range groups {
			for _, h := range g.Holders {
				key := g.Name + "\x00" + h.ID + "\x00" + h.Since.String()
				mu.Lock()
				seen := reported[key]
				reported[key] = reported[key] || h.Overdue
				mu.Unlock()
				if !h.Overdue || seen {
					continue
				}
				held := s.cfg.Clock.Now().Sub(h.Since).Round(time.Minute)
				s.cfg.Logger.Warn("reboot slot held long", "group", g.Name, "holder", h.ID, "since", h.Since, "held", held)
				s.record(ctx, EventHeldLong, g.Name, "%s has held a reboot slot in group %s for %s (max_hold %s); the member releases it with v1/steady-state when it is back (docs/fleetlock.md)", h.ID, g.Name, held, s.maxHold(g.Group))
				if s.cfg.Alert != nil {
					s.cfg.Alert(ctx, fmt.Sprintf("[almanac] reboot slot of %s held for %s", h.ID, held),
						fmt.Sprintf("%s has held a reboot slot in group %s since %s, longer than max_hold %s.\nThe slot is not released automatically.", h.ID, g.Name, h.Since.UTC().Format(time.RFC3339), s.maxHold(g.Group)))
				}
			}
		}
		t := s.cfg.Clock.NewTimer(HoldCheckInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}
