package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func init() {
	batchTests = append(batchTests,
		struct {
			name string
			fn   func(t *testing.T, s store.Store)
		}{"RunFinishBatch", testRunFinishBatch},
		struct {
			name string
			fn   func(t *testing.T, s store.Store)
		}{"RunFinishBatchConcurrent", testRunFinishBatchConcurrent},
		struct {
			name string
			fn   func(t *testing.T, s store.Store)
		}{"RunSetProcess", testRunSetProcess},
	)
}

// testRunFinishBatch: per-item outcomes (finished, already terminal,
// finished earlier in the batch, missing), job counts, events only for
// the finished items, output kept, one history prune per job.
func testRunFinishBatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "a")
	createJob(t, s, "b")
	if res, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{}); err != nil || len(res) != 0 {
		t.Fatalf("empty batch = %v, %v; want nothing", res, err)
	}
	a0 := insertRun(t, s, "a", base, 1)
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: a0.ID, State: store.RunSucceeded, ExitCode: ptr(0), Now: base}); err != nil {
		t.Fatal(err)
	}
	a1 := insertRun(t, s, "a", base.Add(time.Minute), 1)
	a2 := insertRun(t, s, "a", base.Add(2*time.Minute), 1)
	b1 := insertRun(t, s, "b", base.Add(time.Minute), 1)
	now := base.Add(3 * time.Minute)
	ev := func(msg string) []store.Event { return []store.Event{{Kind: store.EventRunFailed, Message: msg}} }
	keep1 := &store.HistoryLimits{KeepSucceeded: 1, KeepFailed: 1}
	items := []store.RunFinishParams{
		{ID: a1.ID, State: store.RunSucceeded, ExitCode: ptr(0), Output: []byte("out-a1"), Events: ev("a1"), Prune: keep1},
		{ID: a0.ID, State: store.RunFailed, Events: ev("a0 again")},
		{ID: a2.ID, State: store.RunFailed, ExitCode: ptr(3), Error: "exit 3", Events: ev("a2"), Prune: keep1},
		{ID: 1 << 40, State: store.RunFailed, Events: ev("ghost")},
		{ID: b1.ID, State: store.RunKilled, Error: "replaced", Events: ev("b1")},
		{ID: a1.ID, State: store.RunFailed, Events: ev("a1 twice")},
	}
	res, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: items, Now: now})
	if err != nil {
		t.Fatalf("RunFinishBatch: %v", err)
	}
	if len(res) != len(items) {
		t.Fatalf("RunFinishBatch returned %d results for %d items", len(res), len(items))
	}
	wantErr := []error{nil, store.ErrConflict, nil, store.ErrNotFound, nil, store.ErrConflict}
	for i, w := range wantErr {
		switch {
		case w == nil && res[i].Err != nil:
			t.Errorf("item %d: err %v, want none", i, res[i].Err)
		case w != nil && !errors.Is(res[i].Err, w):
			t.Errorf("item %d: err %v, want %v", i, res[i].Err, w)
		case w == nil && (res[i].Run.ID != items[i].ID || res[i].Run.State != items[i].State || !res[i].Run.FinishedAt.Equal(now)):
			t.Errorf("item %d: run %+v, want run %d %s at %v", i, res[i].Run, items[i].ID, items[i].State, now)
		}
	}
	if r := res[2].Run; r.ExitCode == nil || *r.ExitCode != 3 || r.Error != "exit 3" || r.Job != "a" {
		t.Errorf("finished a2 = %+v", r)
	}
	if got, err := s.RunGet(ctx, a1.ID); err != nil || string(got.Output) != "out-a1" || got.State != store.RunSucceeded {
		t.Errorf("RunGet(a1) = %+v, %v; want succeeded with its output", got, err)
	}
	// Pruning kept the newest succeeded (a1) and failed (a2) runs of a.
	if _, err := s.RunGet(ctx, a0.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RunGet(a0) err = %v; want it pruned", err)
	}
	for _, c := range []struct {
		job     string
		ok, bad int64
		lastOK  time.Time
	}{{"a", 2, 1, now}, {"b", 0, 1, time.Time{}}} {
		j, err := s.JobGet(ctx, c.job)
		if err != nil || j.Status.Succeeded != c.ok || j.Status.Failed != c.bad || !j.Status.LastSuccessfulTime.Equal(c.lastOK) {
			t.Errorf("job %s status = %+v (%v), want %d succeeded, %d failed, last success %v", c.job, j.Status, err, c.ok, c.bad, c.lastOK)
		}
	}
	events, _, err := s.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventRunFailed}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s/%s/%d", e.Message, e.Job, e.RunID))
	}
	want := []string{fmt.Sprintf("b1/b/%d", b1.ID), fmt.Sprintf("a2/a/%d", a2.ID), fmt.Sprintf("a1/a/%d", a1.ID)} // newest first
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if _, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: []store.RunFinishParams{{ID: a1.ID, State: store.RunRunning}}}); err == nil {
		t.Error("RunFinishBatch to a non-final state succeeded")
	}
}

// testRunFinishBatchConcurrent: batches finishing overlapping runs of the
// same jobs race (listed in opposite orders); every run is finished
// exactly once and counted once.
func testRunFinishBatchConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const workers, jobs, perJob = 4, 10, 4
	var ids []int64
	for i := 0; i < jobs; i++ {
		name := fmt.Sprintf("j%02d", i)
		createJob(t, s, name)
		for k := 0; k < perJob; k++ {
			ids = append(ids, insertRun(t, s, name, base.Add(time.Duration(k)*time.Minute), 1).ID)
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  = map[int64]int{}
		bad  []error
		keep = &store.HistoryLimits{KeepSucceeded: 2, KeepFailed: 2}
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := append([]int64(nil), ids...)
			if w%2 == 1 {
				slices.SortFunc(order, func(a, b int64) int { return cmp.Compare(b, a) })
			}
			var items []store.RunFinishParams
			for _, id := range order {
				items = append(items, store.RunFinishParams{ID: id, State: store.RunSucceeded, ExitCode: ptr(0), Prune: keep})
			}
			res, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: items, Now: base.Add(time.Hour)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad = append(bad, err)
				return
			}
			for i, r := range res {
				switch {
				case r.Err == nil:
					won[items[i].ID]++
				case !errors.Is(r.Err, store.ErrConflict) && !errors.Is(r.Err, store.ErrNotFound):
					bad = append(bad, r.Err)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range bad {
		t.Errorf("concurrent RunFinishBatch: %v", err)
	}
	for _, id := range ids {
		if won[id] != 1 {
			t.Errorf("run %d finished %d times, want 1", id, won[id])
		}
	}
	for i := 0; i < jobs; i++ {
		j, err := s.JobGet(ctx, fmt.Sprintf("j%02d", i))
		if err != nil || j.Status.Succeeded != perJob {
			t.Errorf("job %d status = %+v, %v; want %d succeeded", i, j.Status, err, perJob)
		}
	}
}

// testRunSetProcess: the process group of a running run is recorded for
// its node only, and read back by RunGet and RunListStale.
func testRunSetProcess(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	r1 := insertRun(t, s, "j", base, 1)
	r2 := insertRun(t, s, "j", base.Add(time.Minute), 1)
	pending := insertRun(t, s, "j", base.Add(2*time.Minute), 1)
	for _, r := range []store.Run{r1, r2} {
		if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: r.ID, ReadyAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: base, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n2", Now: base, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.RunSetProcess(ctx, store.RunSetProcessParams{Node: "n1", Items: []store.RunProcess{
		{ID: r1.ID, PGID: 4242, Start: 1 << 40}, {ID: r2.ID, PGID: 7, Start: 7}, {ID: pending.ID, PGID: 8, Start: 8}}}); err != nil {
		t.Fatalf("RunSetProcess: %v", err)
	}
	want := map[int64]store.RunProcess{r1.ID: {PGID: 4242, Start: 1 << 40}, r2.ID: {}, pending.ID: {}}
	for id, w := range want {
		got, err := s.RunGet(ctx, id)
		if err != nil || got.Process != w {
			t.Errorf("run %d process = %+v (%v), want %+v", id, got.Process, err, w)
		}
	}
	stale, err := s.RunListStale(ctx, store.RunListStaleParams{Node: "n1"})
	if err != nil || len(stale) != 1 || stale[0].Process != want[r1.ID] {
		t.Errorf("RunListStale(n1) = %+v, %v; want run %d with its process", stale, err, r1.ID)
	}
	if err := s.RunSetProcess(ctx, store.RunSetProcessParams{Node: "n1"}); err != nil {
		t.Errorf("empty RunSetProcess: %v", err)
	}
}
