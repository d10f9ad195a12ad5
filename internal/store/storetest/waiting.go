package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func init() {
	batchTests = append(batchTests, struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{"RunWaiting", testRunWaiting})
}

// testRunWaiting: a held run's waiting reason reads back as written,
// changes and clears; a released or finished run has none, and a reason
// for a run that is not pending is not recorded.
func testRunWaiting(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	a := insertRun(t, s, "j", base, 1)
	b := insertRun(t, s, "j", base.Add(time.Minute), 1)
	c := insertRun(t, s, "j", base.Add(2*time.Minute), 1)
	until := base.Add(time.Hour)
	gate := store.Waiting{Kind: store.WaitGate, Detail: `schedule gate "tue" is closed`, Until: until}
	down := store.Waiting{Kind: store.WaitNodeDown, Detail: "node b is down"}
	if err := s.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: []store.RunWaiting{
		{ID: a.ID, Waiting: &gate}, {ID: b.ID, Waiting: &down}, {ID: c.ID, Waiting: &gate},
	}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.RunWaiting(ctx, []int64{a.ID, b.ID, c.ID, 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got[a.ID].Until.Equal(until) || got[a.ID].Kind != store.WaitGate || got[a.ID].Detail != gate.Detail ||
		got[b.ID].Kind != store.WaitNodeDown || !got[b.ID].Until.IsZero() {
		t.Fatalf("RunWaiting = %+v", got)
	}
	// Change one, clear one, release and finish the others.
	if err := s.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: []store.RunWaiting{
		{ID: a.ID, Waiting: &down}, {ID: b.ID},
	}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RunWaiting(ctx, []int64{a.ID, b.ID}); len(got) != 1 || got[a.ID].Kind != store.WaitNodeDown {
		t.Errorf("after a change and a clear: RunWaiting = %+v", got)
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: a.ID, ReadyAt: base}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: c.ID, State: store.RunMissed}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RunWaiting(ctx, []int64{a.ID, b.ID, c.ID}); len(got) != 0 {
		t.Errorf("released or finished runs still wait: %+v", got)
	}
	if err := s.RunSetWaiting(ctx, store.RunSetWaitingParams{Items: []store.RunWaiting{{ID: c.ID, Waiting: &gate}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RunWaiting(ctx, []int64{c.ID}); len(got) != 0 {
		t.Errorf("a finished run's reason was recorded: %+v", got)
	}
}
