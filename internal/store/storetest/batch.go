package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// batchTests cover RunInsertBatch, the controller's way of creating the
// runs that fall due together in one transaction.
var batchTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"RunInsertBatch", testRunInsertBatch},
	{"RunInsertBatchConcurrent", testRunInsertBatchConcurrent},
	{"JobCreateBatch", testJobCreateBatch},
}

// testJobCreateBatch: every job and its events in one call; a batch with a
// taken or repeated name creates nothing.
func testJobCreateBatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "taken")
	params := func(names ...string) []store.JobCreateParams {
		var ps []store.JobCreateParams
		for _, n := range names {
			ps = append(ps, store.JobCreateParams{Spec: store.JobSpec{Name: n, Cron: "0 * * * *", Command: []string{"true", n}},
				Source: store.SourceManifest, Now: base, Events: []store.Event{{Kind: store.EventJobCreated, Message: "made " + n}}})
		}
		return ps
	}
	for _, bad := range [][]string{{"x", "taken"}, {"y", "y"}} {
		if err := s.JobCreateBatch(ctx, params(bad...)); !errors.Is(err, store.ErrDuplicate) {
			t.Errorf("batch %v: err = %v, want ErrDuplicate", bad, err)
		}
		if _, err := s.JobGet(ctx, bad[0]); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("batch %v refused, yet %s exists (err %v)", bad, bad[0], err)
		}
	}
	if err := s.JobCreateBatch(ctx, params("a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		j, err := s.JobGet(ctx, n)
		if err != nil || j.Source != store.SourceManifest || j.Version != 1 || len(j.Spec.Command) != 2 || j.Spec.Command[1] != n {
			t.Errorf("job %s = %+v, %v", n, j, err)
		}
		evs, _, err := s.EventList(ctx, store.EventListParams{Job: n})
		if err != nil || len(evs) != 1 || evs[0].Message != "made "+n {
			t.Errorf("events of %s = %+v, %v; want the one given", n, evs, err)
		}
	}
	if err := s.JobCreateBatch(ctx, nil); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

// testRunInsertBatch: per-item outcomes (inserted, duplicate, duplicate
// within the batch, missing job), advances and events written only for the
// inserted items, in order.
func testRunInsertBatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "a")
	createJob(t, s, "b")
	if res, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{}); err != nil || len(res) != 0 {
		t.Fatalf("empty batch = %v, %v; want nothing", res, err)
	}
	insertRun(t, s, "a", base, 1)
	t1, t2 := base.Add(time.Minute), base.Add(2*time.Minute)
	ev := func(msg string) []store.Event {
		return []store.Event{{Kind: store.EventRunScheduled, Message: msg}}
	}
	items := []store.RunInsertParams{
		{Run: store.Run{Job: "a", ScheduledTime: base, Reason: store.ReasonSchedule}, Advance: true, Events: ev("dup")},
		{Run: store.Run{Job: "a", ScheduledTime: t2, Reason: store.ReasonSchedule, ReadyAt: t2}, Advance: true, Events: ev("a-t2")},
		{Run: store.Run{Job: "b", ScheduledTime: t1, Attempt: 1, Reason: store.ReasonCatchUp}, Events: ev("b-t1")},
		{Run: store.Run{Job: "ghost", ScheduledTime: t1, Reason: store.ReasonSchedule}, Advance: true, Events: ev("ghost")},
		{Run: store.Run{Job: "a", ScheduledTime: t2, Reason: store.ReasonSchedule}, Advance: true, Events: ev("dup-in-batch")},
	}
	res, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{Items: items, Now: t2})
	if err != nil {
		t.Fatalf("RunInsertBatch: %v", err)
	}
	if len(res) != len(items) {
		t.Fatalf("RunInsertBatch returned %d results for %d items", len(res), len(items))
	}
	wantErr := []error{store.ErrDuplicate, nil, nil, store.ErrNotFound, store.ErrDuplicate}
	for i, w := range wantErr {
		switch {
		case w == nil && res[i].Err != nil:
			t.Errorf("item %d: err %v, want none", i, res[i].Err)
		case w != nil && !errors.Is(res[i].Err, w):
			t.Errorf("item %d: err %v, want %v", i, res[i].Err, w)
		case w != nil && res[i].Run.ID != 0:
			t.Errorf("item %d failed but returned run %+v", i, res[i].Run)
		}
	}
	a2, b1 := res[1].Run, res[2].Run
	if a2.ID == 0 || a2.Job != "a" || !a2.ScheduledTime.Equal(t2) || a2.Attempt != 1 || a2.State != store.RunPending ||
		!a2.ReadyAt.Equal(t2) || !a2.CreatedAt.Equal(t2) || a2.Reason != store.ReasonSchedule {
		t.Errorf("inserted run a@t2 = %+v", a2)
	}
	if b1.ID <= a2.ID || b1.Reason != store.ReasonCatchUp || !b1.ReadyAt.IsZero() {
		t.Errorf("inserted run b@t1 = %+v (after run %d, held)", b1, a2.ID)
	}
	for _, id := range []int64{a2.ID, b1.ID} {
		if got, err := s.RunGet(ctx, id); err != nil || got.ID != id {
			t.Errorf("RunGet(%d) = %+v, %v", id, got, err)
		}
	}
	for _, c := range []struct {
		job  string
		want time.Time
	}{{"a", t2}, {"b", time.Time{}}} {
		j, err := s.JobGet(ctx, c.job)
		if err != nil || !j.Status.LastScheduleTime.Equal(c.want) {
			t.Errorf("job %s LastScheduleTime = %v (%v), want %v", c.job, j.Status.LastScheduleTime, err, c.want)
		}
	}
	events, _, err := s.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventRunScheduled}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s/%s/%d", e.Message, e.Job, e.RunID))
	}
	want := []string{fmt.Sprintf("b-t1/b/%d", b1.ID), fmt.Sprintf("a-t2/a/%d", a2.ID)} // newest first
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	// Runs from a batch go through the ordinary life.
	claimed, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: t2, Limit: 10})
	if err != nil || len(claimed) != 1 || claimed[0].ID != a2.ID {
		t.Errorf("RunClaim after the batch = %+v, %v; want run %d", claimed, err, a2.ID)
	}
}

// testRunInsertBatchConcurrent: batches over the same keys race; each key
// is inserted exactly once, the losers see ErrDuplicate per item.
func testRunInsertBatchConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const workers, jobs = 4, 25
	for i := 0; i < jobs; i++ {
		createJob(t, s, fmt.Sprintf("j%02d", i))
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		won = map[string]int{}
		bad []error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var items []store.RunInsertParams
			for i := 0; i < jobs; i++ {
				// Half the workers list the jobs backwards: a backend that
				// wrote in item order could deadlock two such batches.
				k := i
				if w%2 == 1 {
					k = jobs - 1 - i
				}
				name := fmt.Sprintf("j%02d", k)
				items = append(items, store.RunInsertParams{Run: store.Run{Job: name, ScheduledTime: base, Reason: store.ReasonSchedule}, Advance: true})
			}
			res, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{Items: items, Now: base})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad = append(bad, err)
				return
			}
			for i, r := range res {
				switch {
				case r.Err == nil:
					won[items[i].Run.Job]++
				case !errors.Is(r.Err, store.ErrDuplicate):
					bad = append(bad, r.Err)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range bad {
		t.Errorf("concurrent RunInsertBatch: %v", err)
	}
	for i := 0; i < jobs; i++ {
		name := fmt.Sprintf("j%02d", i)
		if won[name] != 1 {
			t.Errorf("run of %s inserted %d times, want 1", name, won[name])
		}
	}
	runs, _, err := s.RunList(ctx, store.RunListParams{Page: store.Page{Limit: 1000}})
	if err != nil || len(runs) != jobs {
		t.Errorf("RunList = %d runs, %v; want %d", len(runs), err, jobs)
	}
}
