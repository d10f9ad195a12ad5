package fleet

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// batchSource is testSource taking actions in batches, recording each call.
type batchSource struct {
	*testSource
	mu    sync.Mutex
	calls []string // "2024-06-03T18:00:00Z stop vm-1,vm-2"
}

func (b *batchSource) Act(_ context.Context, a Action, ids []string) map[string]error {
	b.mu.Lock()
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	b.calls = append(b.calls, fmt.Sprintf("%s %s %s", b.clk.Now().UTC().Format("15:04:05"), a, strings.Join(sorted, ",")))
	b.mu.Unlock()
	errs := map[string]error{}
	for _, id := range ids {
		if err := b.act(a, id); err != nil {
			errs[id] = err
		}
	}
	return errs
}

// A batch source gets one call per action for everything due at an instant;
// the resource that failed is retried alone, and only it is retried.
func TestSchedulerBatchesActions(t *testing.T) {
	stop := map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc"}
	hib := map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "almanac-schedule-stop-hibernate": "true"}
	h := newHarness(t, "2024-06-03T17:00:00Z", "UTC",
		vm("vm-1", Running, stop), vm("vm-2", Running, stop), vm("vm-3", Running, stop),
		Resource{ID: "vm-4", Name: "vm-4", State: Running, Tags: hib, SupportsHibernation: true})
	b := &batchSource{testSource: h.src}
	s, err := New(Config{Source: b, Clock: h.clk, Ledger: h.ledger, Events: h.log})
	if err != nil {
		t.Fatal(err)
	}
	h.s = s
	h.src.fail["vm-2"] = 1
	h.runUntil(h.at("2024-06-03T19:00:00Z"))
	sort.Strings(b.calls[:2]) // the two actions of one instant run in parallel
	want := []string{
		"18:00:00 hibernate vm-4",
		"18:00:00 stop vm-1,vm-2,vm-3",
		"18:00:30 stop vm-2",
	}
	if !reflect.DeepEqual(b.calls, want) {
		t.Fatalf("calls:\n  %s\nwant\n  %s", strings.Join(b.calls, "\n  "), strings.Join(want, "\n  "))
	}
	for _, id := range []string{"vm-1", "vm-3", "vm-4"} {
		if r := h.kinds(id, EventActionRetried); len(r) != 0 {
			t.Errorf("%s retried: %q", id, r)
		}
	}
	if r := h.kinds("vm-2", EventActionRetried, EventActionSucceeded); len(r) != 2 || !strings.Contains(r[1], "attempt 2") {
		t.Errorf("vm-2 events: %q", r)
	}
	if st, _ := h.s.Resource("vm-4"); st.State != Hibernated {
		t.Errorf("vm-4 state %s, want hibernated", st.State)
	}
}
