package jobnotify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/jobnotify"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestOverdueOncePerSilence: a job with alert_after that does not succeed
// is reported overdue once, not again at later checks nor after a restart
// (a new Notifier), and again only after a success goes stale in turn.
// openStore opens a SQLite store on a fake clock at t0.
func openStore(t *testing.T) (*sqlitestore.Store, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0)
	st, err := sqlitestore.Open(context.Background(), t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, clk
}

func TestOverdueOncePerSilence(t *testing.T) {
	ctx := context.Background()
	st, clk := openStore(t)
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev jobnotify.Event
		json.NewDecoder(r.Body).Decode(&ev)
		mu.Lock()
		got = append(got, ev.Job+":"+ev.Event)
		mu.Unlock()
	}))
	defer srv.Close()
	spec := store.JobSpec{Name: "nightly", Cron: "0 2 * * *", Command: []string{"true"}, AlertAfterSeconds: 3600, Notify: []string{srv.URL}}
	if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: spec, Now: t0}); err != nil {
		t.Fatal(err)
	}
	quiet := store.JobSpec{Name: "quiet", Cron: "0 2 * * *", Command: []string{"true"}, Notify: []string{srv.URL}}
	if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: quiet, Now: t0}); err != nil {
		t.Fatal(err)
	}
	overdue := func() int {
		evs, _, err := st.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventJobOverdue}, Page: store.Page{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	check := func(n *jobnotify.Notifier, at time.Duration) {
		clk.Set(t0.Add(at))
		n.CheckOverdue(ctx, st)
	}
	n := jobnotify.New(jobnotify.Config{Events: st, Clock: clk})
	check(n, 30*time.Minute)
	if overdue() != 0 {
		t.Fatal("overdue before alert_after passed")
	}
	check(n, 61*time.Minute)
	check(n, 2*time.Hour)
	check(jobnotify.New(jobnotify.Config{Events: st, Clock: clk}), 3*time.Hour) // a restarted daemon
	if c := overdue(); c != 1 {
		t.Fatalf("%d overdue events, want 1", c)
	}
	// A success re-arms the check.
	r, err := st.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "nightly", ScheduledTime: t0.Add(3 * time.Hour), Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: t0.Add(3 * time.Hour)}, Now: t0.Add(3 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunSucceeded, Now: t0.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	check(n, 3*time.Hour+30*time.Minute)
	check(n, 4*time.Hour+time.Minute)
	if c := overdue(); c != 2 {
		t.Fatalf("%d overdue events after a stale success, want 2", c)
	}
	// The deliveries: run the queue until both arrive.
	ctxRun, cancel := context.WithCancel(ctx)
	defer cancel()
	go n.Run(ctxRun)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k >= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, g := range got {
		if g != "nightly:overdue" {
			t.Errorf("delivered %s", g)
		}
	}
	if len(got) == 0 {
		t.Error("no overdue notification delivered")
	}
}

// TestOverdueReadsEveryPage: the dead-man check reads the jobs with an
// alert_after a page at a time and misses none, however many there are,
// and ignores the jobs without one.
func TestOverdueReadsEveryPage(t *testing.T) {
	ctx := context.Background()
	st, clk := openStore(t)
	const watched = 1234 // more than two pages
	for i := range 2 * watched {
		spec := store.JobSpec{Name: fmt.Sprintf("job-%05d", i), Cron: "0 2 * * *", Command: []string{"true"}}
		if i%2 == 0 {
			spec.AlertAfterSeconds = 3600
		}
		if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: spec, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	n := jobnotify.New(jobnotify.Config{Events: st, Clock: clk})
	clk.Advance(2 * time.Hour)
	n.CheckOverdue(ctx, st)
	jobs := map[string]bool{}
	for cursor := int64(0); ; {
		evs, next, err := st.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventJobOverdue}, Page: store.Page{Cursor: cursor, Limit: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			jobs[e.Job] = true
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	if len(jobs) != watched {
		t.Fatalf("%d jobs reported overdue, want the %d with alert_after", len(jobs), watched)
	}
	if jobs["job-00001"] {
		t.Error("a job without alert_after was reported")
	}
}
