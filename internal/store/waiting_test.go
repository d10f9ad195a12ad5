package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// fakeWaits records which ids it was asked about.
type fakeWaits struct {
	asked []int64
	err   error
}

func (f *fakeWaits) RunWaiting(_ context.Context, ids []int64) (map[int64]Waiting, error) {
	f.asked = append(f.asked, ids...)
	return map[int64]Waiting{2: {Kind: WaitGate}}, f.err
}

// TestWaitingOf: only held runs (pending, not released) are asked about,
// in one read, and none at all when no run is held.
func TestWaitingOf(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	held := Run{ID: 2, State: RunPending}
	released := Run{ID: 3, State: RunPending, ReadyAt: now}
	running := Run{ID: 4, State: RunRunning}
	for _, tc := range []struct {
		name    string
		runs    []Run
		asked   []int64
		failing bool
	}{
		{"mixed", []Run{held, released, running}, []int64{2}, false},
		{"none held", []Run{released, running}, nil, false},
		{"read fails", []Run{held}, []int64{2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeWaits{}
			if tc.failing {
				f.err = errors.New("disk gone")
			}
			got, err := WaitingOf(t.Context(), f, tc.runs)
			if !slices.Equal(f.asked, tc.asked) {
				t.Errorf("asked about %v, want %v", f.asked, tc.asked)
			}
			switch {
			case tc.failing && (err == nil || !errors.Is(err, f.err)):
				t.Errorf("err = %v, want it to wrap the read's", err)
			case !tc.failing && tc.asked != nil && got[2].Kind != WaitGate:
				t.Errorf("got %v", got)
			case !tc.failing && tc.asked == nil && got != nil:
				t.Errorf("read %v with nothing held", got)
			}
		})
	}
}
