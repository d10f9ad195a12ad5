package storetest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// testRebootLocks: slots up to max, re-entrant for a holder, refused when
// full, released idempotently, listed by group and holder.
func testRebootLocks(t *testing.T, s store.Store) {
	ctx := context.Background()
	take := func(group, holder string, max int, want bool) {
		t.Helper()
		got, err := s.RebootLockAcquire(ctx, store.RebootLockParams{Group: group, Holder: holder, Max: max, Now: base})
		if err != nil || got != want {
			t.Fatalf("acquire %s/%s (max %d) = %v, %v; want %v", group, holder, max, got, err, want)
		}
	}
	take("workers", "a", 2, true)
	take("workers", "b", 2, true)
	take("workers", "c", 2, false) // full
	take("workers", "a", 2, true)  // re-entrant
	take("db", "a", 1, true)       // groups are separate
	locks, err := s.RebootLocks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.RebootLock{{Group: "db", Holder: "a", Since: base}, {Group: "workers", Holder: "a", Since: base}, {Group: "workers", Holder: "b", Since: base}}
	if !reflect.DeepEqual(locks, want) {
		t.Errorf("RebootLocks = %v, want %v", locks, want)
	}
	for range 2 { // releasing twice is fine
		if err := s.RebootLockRelease(ctx, "workers", "b"); err != nil {
			t.Fatal(err)
		}
	}
	take("workers", "c", 2, true)
	if err := s.RebootLockRelease(ctx, "nowhere", "nobody"); err != nil {
		t.Errorf("release of a slot not held: %v", err)
	}
}

// testRebootLocksConcurrent: many holders ask at once; exactly max get a
// slot.
func testRebootLocksConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const max, holders = 3, 24
	var granted atomic.Int32
	var wg sync.WaitGroup
	for i := range holders {
		wg.Go(func() {
			ok, err := s.RebootLockAcquire(ctx, store.RebootLockParams{Group: "fleet", Holder: fmt.Sprintf("node-%02d", i), Max: max, Now: base.Add(time.Duration(i) * time.Second)})
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	locks, err := s.RebootLocks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if granted.Load() != max || len(locks) != max {
		t.Errorf("%d granted, %d held; want %d", granted.Load(), len(locks), max)
	}
}
