package job

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// countingStore counts the RunFinishBatch calls and their items.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	sizes []int
}

func (s *countingStore) RunFinishBatch(ctx context.Context, p store.RunFinishBatchParams) ([]store.RunFinishResult, error) {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(p.Items))
	s.mu.Unlock()
	return s.Store.RunFinishBatch(ctx, p)
}

// TestFinishCoalesces: runs whose processes ended while the loop was busy
// are recorded with one store call per batch, not one each, and every one
// of them is recorded with its job's counts.
func TestFinishCoalesces(t *testing.T) {
	const n = 300
	c, clk := benchController(t, n)
	cs := &countingStore{Store: c.st}
	c.st = cs
	ctx := context.Background()
	clk.Advance(time.Minute)
	c.step(ctx) // starts n runs whose processes have already exited
	if len(c.active) != n {
		t.Fatalf("%d active runs, want %d", len(c.active), n)
	}
	// Wait (polling, with a deadline) until the result queue is full: the
	// loop is "busy" and every other run's end waits behind it.
	for deadline := time.Now().Add(10 * time.Second); len(c.results) < cap(c.results); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d results queued", len(c.results))
		}
	}
	for len(c.active) > 0 {
		c.finish(ctx, c.drain(<-c.results))
	}
	if len(cs.sizes) == 0 || cs.sizes[0] < cap(c.results) || len(cs.sizes) > n/cap(c.results)+1 {
		t.Errorf("finish batches %v: want the first to hold at least the %d queued ends and few batches in all", cs.sizes, cap(c.results))
	}
	total := 0
	for _, s := range cs.sizes {
		total += s
		if s > finishBatch {
			t.Errorf("a batch of %d ends, over the cap of %d", s, finishBatch)
		}
	}
	if total != n {
		t.Errorf("%d ends recorded in batches, want %d", total, n)
	}
	j, err := c.st.JobGet(ctx, "job-00000")
	if err != nil || j.Status.Succeeded != 1 {
		t.Errorf("job-00000 = %+v, %v; want 1 succeeded run", j.Status, err)
	}
	runs, _, err := c.st.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunSucceeded}, Page: store.Page{Limit: 1000}})
	if err != nil || len(runs) != n {
		t.Errorf("%d succeeded runs (%v), want %d", len(runs), err, n)
	}
}
