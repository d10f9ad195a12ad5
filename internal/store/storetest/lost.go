package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func init() {
	batchTests = append(batchTests, struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{"RunFinishLostAndEndTime", testRunFinishLostAndEndTime})
}

// testRunFinishLostAndEndTime: both finish paths record the run's own end
// time when given one (a command that ended while the daemon was down) and
// the finish time otherwise; a lost run is terminal, counted as a failure,
// has its event kind and falls under the failed history limit.
func testRunFinishLostAndEndTime(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "d")
	now := base.Add(time.Hour)
	ended := base.Add(10*time.Minute + 1500*time.Microsecond)
	r1 := insertRun(t, s, "d", base, 1)
	r2 := insertRun(t, s, "d", base.Add(time.Minute), 1)
	r3 := insertRun(t, s, "d", base.Add(2*time.Minute), 1)
	r4 := insertRun(t, s, "d", base.Add(3*time.Minute), 1)
	got, err := s.RunFinish(ctx, store.RunFinishParams{ID: r1.ID, State: store.RunSucceeded, ExitCode: ptr(0), Now: now, FinishedAt: ended})
	if err != nil || !got.FinishedAt.Equal(ended) {
		t.Errorf("RunFinish with an end time: finished at %v (%v), want %v", got.FinishedAt, err, ended)
	}
	keep := &store.HistoryLimits{KeepSucceeded: 10, KeepFailed: 1}
	res, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Now: now, Items: []store.RunFinishParams{
		{ID: r2.ID, State: store.RunLost, Error: "lost: the machine rebooted", Events: []store.Event{{Kind: store.EventRunFinished(store.RunLost), Message: "lost"}}},
		{ID: r3.ID, State: store.RunFailed, ExitCode: ptr(2), FinishedAt: ended.Add(time.Minute), Prune: keep},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0].Run; res[0].Err != nil || r.State != store.RunLost || !r.FinishedAt.Equal(now) {
		t.Errorf("lost item = %+v (%v), want lost at %v", r, res[0].Err, now)
	}
	if r := res[1].Run; res[1].Err != nil || !r.FinishedAt.Equal(ended.Add(time.Minute)) {
		t.Errorf("failed item finished at %v (%v), want its own end %v", r.FinishedAt, res[1].Err, ended.Add(time.Minute))
	}
	if stored, err := s.RunGet(ctx, r3.ID); err != nil || !stored.FinishedAt.Equal(ended.Add(time.Minute)) {
		t.Errorf("stored end = %v (%v), want %v", stored.FinishedAt, err, ended.Add(time.Minute))
	}
	// The failed run is newer than the lost one: with one failure kept,
	// the lost run is pruned like a failed one.
	if _, err := s.RunGet(ctx, r2.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("lost run beyond the failed history limit: %v, want pruned", err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r4.ID, State: store.RunLost, Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r4.ID, State: store.RunFailed, Now: now}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("finishing a lost run again: %v, want ErrConflict (lost is terminal)", err)
	}
	j, err := s.JobGet(ctx, "d")
	if err != nil || j.Status.Succeeded != 1 || j.Status.Failed != 3 {
		t.Errorf("job status = %+v (%v), want 1 succeeded and 3 failed (lost counts as failed)", j.Status, err)
	}
	ev, _, err := s.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventRunLost}})
	if err != nil || len(ev) != 1 || ev[0].RunID != r2.ID {
		t.Errorf("run.lost events = %+v (%v), want the one of run %d", ev, err, r2.ID)
	}
}
