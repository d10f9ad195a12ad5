package store

import (
	"context"
	"fmt"
)

// Held reports whether the run is held: pending and not yet released to
// be claimed, the runs that carry a waiting reason.
func (r Run) Held() bool { return r.State == RunPending && r.ReadyAt.IsZero() }

// WaitingReader reads recorded waiting reasons (Store.RunWaiting).
type WaitingReader interface {
	RunWaiting(ctx context.Context, ids []int64) (map[int64]Waiting, error)
}

// WaitingOf reads why the held ones among runs wait, with one read for
// them all; it reads nothing when none is held.
func WaitingOf(ctx context.Context, s WaitingReader, runs []Run) (map[int64]Waiting, error) {
	var ids []int64
	for _, r := range runs {
		if r.Held() {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	waits, err := s.RunWaiting(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read why runs wait: %w", err)
	}
	return waits, nil
}
