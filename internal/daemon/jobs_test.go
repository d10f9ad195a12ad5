package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/store"
)

// t0 is the instant the tests here start from.
var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

func TestSeedDemo(t *testing.T) {
	ctx := context.Background()
	st := apitest.NewMemStore()
	n, err := seedDemo(ctx, st, t0)
	if err != nil || n != len(demoJobs()) {
		t.Fatalf("seedDemo = %d, %v", n, err)
	}
	// A user edit survives a restart with --demo.
	j, _ := st.Job("heartbeat")
	j.Spec.Suspend = true
	st.PutJob(j)
	if n, err = seedDemo(ctx, st, t0); err != nil || n != 0 {
		t.Fatalf("second seedDemo = %d, %v", n, err)
	}
	if j, _ = st.Job("heartbeat"); !j.Spec.Suspend || j.Source != store.SourceDemo {
		t.Fatalf("demo seeding overwrote an edit: %+v", j)
	}
}

func TestSyncManifestJobs(t *testing.T) {
	ctx := context.Background()
	st := apitest.NewMemStore()
	st.PutJob(store.Job{Spec: store.JobSpec{Name: "api-job", Cron: "* * * * *", Shell: "true"}, Source: store.SourceAPI, Version: 1})
	a := store.JobSpec{Name: "a", Cron: "0 * * * *", Shell: "echo a"}
	b := store.JobSpec{Name: "b", Cron: "0 2 * * *", Command: []string{"backup"}}

	res, err := syncManifestJobs(ctx, st, []store.JobSpec{a, b}, t0)
	if err != nil || res.Created != 2 || strings.Join(res.Changed, ",") != "a,b" {
		t.Fatalf("first sync = %+v, %v", res, err)
	}
	st.AddRun(store.Run{Job: "a", State: store.RunSucceeded})
	a2 := a
	a2.Shell = "echo a2"
	res, err = syncManifestJobs(ctx, st, []store.JobSpec{a2}, t0)
	if err != nil || res.Updated != 1 || res.Deleted != 1 || res.Created != 0 || strings.Join(res.Changed, ",") != "a,b" {
		t.Fatalf("second sync = %+v, %v", res, err)
	}
	if j, _ := st.Job("a"); j.Spec.Shell != "echo a2" || j.Version != 2 {
		t.Fatalf("a after update: %+v", j)
	}
	if _, ok := st.Job("b"); ok {
		t.Fatal("b survived its removal from the manifests")
	}
	if _, ok := st.Job("api-job"); !ok {
		t.Fatal("sync deleted a job created through the API")
	}
	res, err = syncManifestJobs(ctx, st, []store.JobSpec{a2}, t0)
	if err != nil || res.Unchanged != 1 || len(res.Changed) != 0 {
		t.Fatalf("idempotent sync = %+v, %v", res, err)
	}
	if _, err = syncManifestJobs(ctx, st, []store.JobSpec{{Name: "api-job", Cron: "* * * * *", Shell: "x"}}, t0); err == nil ||
		!strings.Contains(err.Error(), "clashes with a job of the same name created by api") {
		t.Fatalf("clash: %v", err)
	}
	if _, err = syncManifestJobs(ctx, st, []store.JobSpec{a, a}, t0); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Fatalf("duplicate: %v", err)
	}
}
