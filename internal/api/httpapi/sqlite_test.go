package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestWithSQLiteStore runs the API over the real embedded store, through
// the typed client, so the handlers' assumptions about the store contract
// (error values, paging cursors, event filters) are checked against it.
func TestWithSQLiteStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithClock(clock.NewFake(t0)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctrl := &apitest.Controller{St: st, Now: t0}
	metrics := httpapi.NewMetrics(st)
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: ctrl, Clock: clock.NewFake(t0), Metrics: metrics}))
	defer ts.Close()
	c, err := apiclient.New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"c", "a", "b"} {
		if _, created, err := c.JobPut(ctx, name, apitype.JobSpec{Cron: "*/5 * * * *", Command: apitype.Command{Shell: "echo " + name}}); err != nil || !created {
			t.Fatalf("put %s: created=%v %v", name, created, err)
		}
	}
	page, err := c.JobList(ctx, "")
	if err != nil || len(page.Items) != 3 || page.Items[0].Name != "a" || page.Items[2].Name != "c" {
		t.Fatalf("list = %+v, %v", page, err)
	}
	if _, _, err := c.JobPut(ctx, "a", apitype.JobSpec{Cron: "*/5 * * * *", Command: apitype.Command{Shell: "echo a"}}); err != nil {
		t.Fatal(err)
	}
	run, err := c.JobTrigger(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// A second trigger at the same instant hits the store's unique key.
	if _, err := c.JobTrigger(ctx, "a"); err == nil || !strings.Contains(err.Error(), "already triggered") {
		t.Fatalf("duplicate trigger: %v", err)
	}
	exit0 := 0
	if _, err := st.RunFinish(ctx, store.RunFinishParams{ID: run.ID, State: store.RunSucceeded, ExitCode: &exit0, Output: []byte("a\n"), Now: t0,
		Events: []store.Event{{Kind: store.EventRunSucceeded, Job: "a"}}}); err != nil {
		t.Fatal(err)
	}
	got, err := c.RunGet(ctx, run.ID)
	if err != nil || got.State != "succeeded" || *got.ExitCode != 0 {
		t.Fatalf("run = %+v, %v", got, err)
	}
	out, state, err := c.RunLog(ctx, run.ID)
	if err != nil || string(out) != "a\n" || state != "succeeded" {
		t.Fatalf("log = %q %q %v", out, state, err)
	}
	runs, err := c.RunList(ctx, apiclient.RunFilter{Job: "a", States: []string{"succeeded"}})
	if err != nil || len(runs.Items) != 1 {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	evs, err := c.EventList(ctx, apiclient.EventFilter{Kinds: []string{"job.created"}, Limit: 2})
	if err != nil || len(evs.Items) != 2 || evs.NextPage == "" {
		t.Fatalf("events page 1 = %+v, %v", evs, err)
	}
	evs2, err := c.EventList(ctx, apiclient.EventFilter{Kinds: []string{"job.created"}, Limit: 2, Page: evs.NextPage})
	if err != nil || len(evs2.Items) != 1 || evs2.Items[0].ID >= evs.Items[1].ID {
		t.Fatalf("events page 2 = %+v, %v", evs2, err)
	}
	if err := c.JobDelete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.JobGet(ctx, "b"); !apiclient.IsNotFound(err) {
		t.Fatalf("get deleted: %v", err)
	}
	if err := c.JobDelete(ctx, "b"); !apiclient.IsNotFound(err) {
		t.Fatalf("delete twice: %v", err)
	}
	if _, err := c.RunGet(ctx, 9999); !apiclient.IsNotFound(err) {
		t.Fatalf("missing run: %v", err)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("metrics: %v %v", resp, err)
	}
	resp.Body.Close()
}
