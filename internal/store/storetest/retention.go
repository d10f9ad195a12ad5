package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

var retentionTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"EventPrune", testEventPrune},
}

// testEventPrune: EventPrune keeps the newest Keep events and those not
// older than Before, deleting the rest across several batches.
func testEventPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 12000 // more than one batch
	events := make([]store.Event, 0, 1000)
	for i := range n {
		events = append(events, store.Event{Time: base.Add(time.Duration(i) * time.Second), Kind: store.EventJobCreated,
			Message: fmt.Sprintf("event %d", i)})
		if len(events) == cap(events) {
			if err := s.EventAppend(ctx, events...); err != nil {
				t.Fatal(err)
			}
			events = events[:0]
		}
	}
	count := func() (int, time.Time) {
		t.Helper()
		total, oldest := 0, time.Time{}
		page := store.Page{Limit: 1000}
		for {
			got, next, err := s.EventList(ctx, store.EventListParams{Page: page})
			if err != nil {
				t.Fatal(err)
			}
			total += len(got)
			if len(got) > 0 {
				oldest = got[len(got)-1].Time
			}
			if next == 0 {
				return total, oldest
			}
			page.Cursor = next
		}
	}
	if got, err := s.EventPrune(ctx, store.EventPruneParams{}); err != nil || got != 0 {
		t.Fatalf("EventPrune without bounds = %d, %v; want 0", got, err)
	}
	// By age: everything before the 2000th second goes.
	got, err := s.EventPrune(ctx, store.EventPruneParams{Before: base.Add(2000 * time.Second)})
	if err != nil || got != 2000 {
		t.Fatalf("EventPrune by age = %d, %v; want 2000", got, err)
	}
	if total, oldest := count(); total != n-2000 || !oldest.Equal(base.Add(2000*time.Second)) {
		t.Fatalf("after pruning by age: %d events, oldest %s", total, oldest)
	}
	// By count, beyond one batch: the newest 3000 stay.
	got, err = s.EventPrune(ctx, store.EventPruneParams{Keep: 3000, Before: base})
	if err != nil || got != n-2000-3000 {
		t.Fatalf("EventPrune by count = %d, %v; want %d", got, err, n-5000)
	}
	if total, oldest := count(); total != 3000 || !oldest.Equal(base.Add((n-3000)*time.Second)) {
		t.Fatalf("after pruning by count: %d events, oldest %s", total, oldest)
	}
	if got, err := s.EventPrune(ctx, store.EventPruneParams{Keep: 3000}); err != nil || got != 0 {
		t.Fatalf("EventPrune again = %d, %v; want 0", got, err)
	}
}
