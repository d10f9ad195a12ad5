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
	}{"RunWaiting", testRunWaiting}, struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{"JobWavePaused", testJobWavePaused})
}

// testJobWavePaused: a wave pause is kept beside the spec: replacing the
// spec keeps it, reads show it, and its events are written only when it
// changes.
func testJobWavePaused(t *testing.T, s store.Store) {
	ctx := context.Background()
	j := createJob(t, s, "j")
	set := func(paused bool) bool {
		t.Helper()
		changed, err := s.JobSetWavePaused(ctx, store.JobSetWavePausedParams{Name: "j", Paused: paused, Now: base,
			Events: []store.Event{{Kind: store.EventWavePaused, Message: "pause"}}})
		if err != nil {
			t.Fatal(err)
		}
		return changed
	}
	if !set(true) || set(true) {
		t.Error("pausing twice: want changed, then not")
	}
	spec := j.Spec
	spec.WavePaused = false
	spec.Command = []string{"false"}
	up, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: spec, Now: base})
	if err != nil {
		t.Fatal(err)
	}
	if !up.Spec.WavePaused {
		t.Error("JobUpdate's job is not paused; a spec replacement resumed the waves")
	}
	if got, _ := s.JobGet(ctx, "j"); !got.Spec.WavePaused || got.Spec.Command[0] != "false" {
		t.Errorf("JobGet after a spec replacement = %+v; want the new spec, still paused", got.Spec)
	}
	if list, _ := s.JobList(ctx, store.JobListParams{}); len(list) != 1 || !list[0].Spec.WavePaused {
		t.Errorf("JobList = %+v; want j paused", list)
	}
	// A spec that says paused does not pause.
	createJob(t, s, "k")
	k, _ := s.JobGet(ctx, "k")
	k.Spec.WavePaused = true
	if up, _ := s.JobUpdate(ctx, store.JobUpdateParams{Spec: k.Spec, Now: base}); up.Spec.WavePaused {
		t.Error("a spec with wave_paused paused the job; only JobSetWavePaused does")
	}
	if !set(false) {
		t.Error("resume: want changed")
	}
	if got, _ := s.JobGet(ctx, "j"); got.Spec.WavePaused {
		t.Error("still paused after resume")
	}
	ev, _, _ := s.EventList(ctx, store.EventListParams{Job: "j", Kinds: []store.EventKind{store.EventWavePaused}})
	if len(ev) != 2 {
		t.Errorf("%d wave events, want 2 (one per change)", len(ev))
	}
	if _, err := s.JobSetWavePaused(ctx, store.JobSetWavePausedParams{Name: "nosuch", Paused: true}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("pausing a missing job: err = %v, want ErrNotFound", err)
	}
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
