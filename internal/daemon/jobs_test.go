package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
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

	res, err := syncManifestJobs(ctx, st, []store.JobSpec{a, b}, t0, manifestSource{})
	if err != nil || res.Created != 2 || strings.Join(res.Changed, ",") != "a,b" {
		t.Fatalf("first sync = %+v, %v", res, err)
	}
	st.AddRun(store.Run{Job: "a", State: store.RunSucceeded})
	a2 := a
	a2.Shell = "echo a2"
	res, err = syncManifestJobs(ctx, st, []store.JobSpec{a2}, t0, manifestSource{})
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
	res, err = syncManifestJobs(ctx, st, []store.JobSpec{a2}, t0, manifestSource{})
	if err != nil || res.Unchanged != 1 || len(res.Changed) != 0 {
		t.Fatalf("idempotent sync = %+v, %v", res, err)
	}
	if _, err = syncManifestJobs(ctx, st, []store.JobSpec{{Name: "api-job", Cron: "* * * * *", Shell: "x"}}, t0, manifestSource{}); err == nil ||
		!strings.Contains(err.Error(), "clashes with a job of the same name created by api") {
		t.Fatalf("clash: %v", err)
	}
	if _, err = syncManifestJobs(ctx, st, []store.JobSpec{a, a}, t0, manifestSource{}); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Fatalf("duplicate: %v", err)
	}
}

// TestSyncManifestJobsActor: the events of manifest jobs name the file
// that declares each job (the directory for one no longer declared) and
// whether the daemon was starting or reloading.
func TestSyncManifestJobsActor(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := store.JobSpec{Name: "a", Cron: "0 * * * *", Shell: "echo a"}
	b := store.JobSpec{Name: "b", Cron: "0 2 * * *", Shell: "echo b"}
	files := map[string]string{"a": "/m/a.pp", "b": "/m/b.pp"}
	if _, err := syncManifestJobs(ctx, st, []store.JobSpec{a, b}, t0, manifestSource{dir: "/m", files: files, via: audit.ViaStart}); err != nil {
		t.Fatal(err)
	}
	a.Shell = "echo a2"
	delete(files, "b")
	if _, err := syncManifestJobs(ctx, st, []store.JobSpec{a}, t0, manifestSource{dir: "/m", files: files, via: audit.ViaReload}); err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.EventList(ctx, store.EventListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%s %s %s/%s", e.Kind, e.Job, e.Actor, e.Via))
	}
	want := []string{"job.deleted b manifest:/m/reload", "job.updated a manifest:/m/a.pp/reload",
		"job.created b manifest:/m/b.pp/start", "job.created a manifest:/m/a.pp/start"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// storedJobs finds every stored job a load names, whether it reads them
// one at a time or lists them all.
func TestStoredJobs(t *testing.T) {
	for _, many := range []int{3, readEachOver + 5} {
		t.Run(fmt.Sprintf("%d new names", many), func(t *testing.T) {
			ctx := context.Background()
			st := apitest.NewMemStore()
			st.PutJob(store.Job{Spec: store.JobSpec{Name: "api-job", Cron: "* * * * *", Shell: "true", Suspend: true}, Source: store.SourceAPI, Version: 1})
			st.PutJob(store.Job{Spec: store.JobSpec{Name: "m", Cron: "* * * * *", Shell: "true", WavePaused: true}, Source: store.SourceManifest, Version: 1})
			st.PutJob(store.Job{Spec: store.JobSpec{Name: "gone", Cron: "* * * * *", Shell: "true"}, Source: store.SourceManifest, Version: 1})
			specs := []store.JobSpec{{Name: "m"}, {Name: "api-job"}}
			for i := range many {
				specs = append(specs, store.JobSpec{Name: fmt.Sprintf("new-%03d", i)})
			}
			got, err := storedJobs(ctx, st, specs)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]storedJob{
				"m":       {source: store.SourceManifest, wavePaused: true},
				"api-job": {source: store.SourceAPI, suspend: true},
			}
			if len(got) != len(want) {
				t.Errorf("found %v, want %v", got, want)
			}
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s = %+v, want %+v", name, got[name], w)
				}
			}
		})
	}
}

// New jobs are created in batches; a batch the store refuses is created
// job by job, so the clash is named as before and the jobs before it exist.
func TestSyncManifestJobsBatches(t *testing.T) {
	ctx := context.Background()
	st := apitest.NewMemStore()
	st.PutJob(store.Job{Spec: store.JobSpec{Name: "api-job", Cron: "* * * * *", Shell: "true"}, Source: store.SourceAPI, Version: 1})
	var specs []store.JobSpec
	for i := range createBatch + 2 {
		specs = append(specs, store.JobSpec{Name: fmt.Sprintf("m-%04d", i), Cron: "0 * * * *", Shell: "true"})
	}
	res, err := syncManifestJobs(ctx, st, specs, t0, manifestSource{})
	if err != nil || res.Created != len(specs) || len(res.Changed) != len(specs) {
		t.Fatalf("sync = %+v, %v; want %d created", res, err, len(specs))
	}
	clash := []store.JobSpec{{Name: "n-1", Cron: "0 * * * *", Shell: "true"}, {Name: "api-job", Cron: "0 * * * *", Shell: "true"}, {Name: "n-3", Cron: "0 * * * *", Shell: "true"}}
	_, err = syncManifestJobs(ctx, st, append(specs, clash...), t0, manifestSource{})
	if err == nil || err.Error() != `manifest job "api-job" clashes with a job of the same name created by api; delete one of them` {
		t.Fatalf("err = %v, want the clash named", err)
	}
	if _, ok := st.Job("n-1"); !ok {
		t.Error("n-1, before the clash, was not created")
	}
	if _, ok := st.Job("n-3"); ok {
		t.Error("n-3, after the clash, was created")
	}
}
