package webui_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/webui"
)

// slowUpcoming counts the merges of next fires and holds every merge
// after the first until release is closed.
type slowUpcoming struct {
	jobController
	calls   atomic.Int32
	release chan struct{}
	done    chan time.Time
}

func (s *slowUpcoming) Upcoming(ctx context.Context, from time.Time, limit int) ([]job.Fire, error) {
	if s.calls.Add(1) > 1 {
		<-s.release
		defer func() { s.done <- from }()
	}
	return s.jobController.Upcoming(ctx, from, limit)
}

// TestFiresRefreshInBackground: once the overview's next fires are
// merged, a request that finds them stale is answered from them at once
// while the merge runs again in the background, and the next request gets
// the new merge; only one merge runs at a time.
func TestFiresRefreshInBackground(t *testing.T) {
	ctx := t.Context()
	clk := clock.NewFake(demoNow)
	st := openStore(t, clk)
	ctrl := newController(t, st, clk, parseHourly)
	if _, err := ctrl.CreateJob(ctx, store.JobSpec{Name: "hourly", Cron: "@hourly", Command: []string{"true"}}, store.SourceAPI); err != nil {
		t.Fatal(err)
	}
	jobs := &slowUpcoming{jobController: jobController{ctrl}, release: make(chan struct{}), done: make(chan time.Time, 4)}
	b, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	fires := func(at time.Time) []webui.Fire {
		t.Helper()
		fs, err := b.Fires(ctx, webui.FireQuery{After: at, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	first := fires(demoNow)
	if len(first) != 3 || jobs.calls.Load() != 1 {
		t.Fatalf("first request: %d fires, %d merges", len(first), jobs.calls.Load())
	}
	later := demoNow.Add(6 * time.Second) // past the cache's 5 s
	answered := make(chan []webui.Fire)
	go func() {
		fs, _ := b.Fires(ctx, webui.FireQuery{After: later, Limit: 3})
		answered <- fs
	}()
	select {
	case fs := <-answered:
		if len(fs) != 3 || !fs[0].Time.Equal(first[0].Time) {
			t.Errorf("the stale request got %v, want the cached %v", fs, first)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request waited for the merge of next fires")
	}
	fires(later.Add(time.Second)) // a merge is already running: no second one
	close(jobs.release)
	if from := <-jobs.done; !from.Equal(later) {
		t.Errorf("the background merge was from %s, want %s", from, later)
	}
	if n := jobs.calls.Load(); n != 2 {
		t.Errorf("%d merges, want 2 (one in the first request, one in the background)", n)
	}
}
