package jobnotify_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/jobnotify"
	"github.com/almanac-sh/almanac/internal/smtptest"
	"github.com/almanac-sh/almanac/internal/store"
)

var t0 = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)

// events records appended events.
type events struct {
	mu  sync.Mutex
	evs []store.Event
}

func (e *events) EventAppend(_ context.Context, evs ...store.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, evs...)
	return nil
}

func (e *events) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.evs {
		out = append(out, string(ev.Kind))
	}
	return out
}

// until polls cond (a state, not the clock) for up to ten seconds.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func failure(spec store.JobSpec) job.Outcome {
	code := 3
	return job.Outcome{Kind: job.OutcomeFailure, Spec: spec, Time: t0, Message: "exit status 3",
		Run: store.Run{ID: 42, Job: spec.Name, ScheduledTime: t0.Add(-time.Minute), State: store.RunFailed, ExitCode: &code,
			Output: []byte(strings.Repeat("noise\n", 30) + "disk full\n")}}
}

// TestWebhookRetriesThenDelivers: the receiver fails once, then accepts;
// both attempts are in the event log and the body is the documented JSON.
func TestWebhookRetriesThenDelivers(t *testing.T) {
	var mu sync.Mutex
	var bodies []jobnotify.Event
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var ev jobnotify.Event
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			t.Error(err)
		}
		bodies = append(bodies, ev)
	}))
	defer srv.Close()
	clk := clock.NewFake(t0)
	evs := &events{}
	n := jobnotify.New(jobnotify.Config{Events: evs, Clock: clk, PublicURL: "https://almanac.example.com", Backoff: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)

	n.Report(ctx, failure(store.JobSpec{Name: "backup", Notify: []string{srv.URL + "/hook"}}))
	until(t, "the retry timer", func() bool { return clk.PendingTimers() == 1 })
	clk.Advance(time.Minute)
	until(t, "the second attempt", func() bool { mu.Lock(); defer mu.Unlock(); return len(bodies) == 1 })
	ev := bodies[0]
	if ev.Event != "failure" || ev.Job != "backup" || ev.RunID != 42 || ev.State != "failed" || ev.ExitCode == nil || *ev.ExitCode != 3 ||
		ev.URL != "https://almanac.example.com/runs/42" || !strings.HasSuffix(ev.OutputTail, "disk full") || strings.Count(ev.OutputTail, "\n") != 19 {
		t.Errorf("webhook body = %+v", ev)
	}
	until(t, "both attempts recorded", func() bool { return len(evs.kinds()) == 2 })
	if k := evs.kinds(); k[0] != "notify.failed" || k[1] != "notify.sent" {
		t.Errorf("events %v, want notify.failed then notify.sent", k)
	}
}

// TestReportFilters: outcomes a job did not ask for are not sent; the
// daemon's default target serves jobs without their own.
func TestReportFilters(t *testing.T) {
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
	evs := &events{}
	n := jobnotify.New(jobnotify.Config{Events: evs, Default: []string{srv.URL}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)
	success := func(spec store.JobSpec, kind string) job.Outcome {
		return job.Outcome{Kind: kind, Spec: spec, Time: t0, Run: store.Run{ID: 1, Job: spec.Name, State: store.RunSucceeded}}
	}
	n.Report(ctx, success(store.JobSpec{Name: "quiet"}, job.OutcomeSuccess))                                                    // default: failure, missed only
	n.Report(ctx, failure(store.JobSpec{Name: "loud"}))                                                                         // default target
	n.Report(ctx, success(store.JobSpec{Name: "fixed", NotifyOn: []string{"recovered"}}, job.OutcomeRecovered))                 // asked for
	n.Report(ctx, failure(store.JobSpec{Name: "own", Notify: []string{"mailto:x@example.com"}, NotifyOn: []string{"success"}})) // not asked for
	until(t, "two deliveries", func() bool { return len(evs.kinds()) == 2 })
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, " ") != "loud:failure fixed:recovered" {
		t.Errorf("delivered %v", got)
	}
}

// TestReportNeverBlocks fills the queue with no one delivering.
func TestReportNeverBlocks(t *testing.T) {
	n := jobnotify.New(jobnotify.Config{Queue: 2})
	spec := store.JobSpec{Name: "x", Notify: []string{"https://example.invalid/h"}}
	for range 5 {
		n.Report(context.Background(), failure(spec))
	}
	if n.Dropped() != 3 {
		t.Errorf("dropped %d, want 3", n.Dropped())
	}
}

// TestMailToARealSMTPListener delivers a failure by email.
func TestMailToARealSMTPListener(t *testing.T) {
	addr, got := smtptest.Start(t)
	evs := &events{}
	n := jobnotify.New(jobnotify.Config{SMTP: addr, From: "almanac@example.com", Events: evs})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)
	n.Report(ctx, failure(store.JobSpec{Name: "backup", Notify: []string{"mailto:ops@example.com"}}))
	select {
	case m := <-got:
		if m.To != "ops@example.com" {
			t.Errorf("mail to %q", m.To)
		}
		for _, want := range []string{"Subject: [almanac] backup failed", "exit 3", "disk full"} {
			if !strings.Contains(m.Data, want) {
				t.Errorf("mail lacks %q:\n%s", want, m.Data)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no mail arrived")
	}
	until(t, "the attempt recorded", func() bool { k := evs.kinds(); return len(k) == 1 && k[0] == "notify.sent" })
}
