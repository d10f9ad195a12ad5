package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/migrate"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
)

var t0 = time.Date(2026, 3, 8, 6, 0, 0, 0, time.UTC)

// open returns a store on a fresh schema, closed when the test ends.
func open(t testing.TB) *Store {
	t.Helper()
	return openURL(t, pgtest.Schema(t))
}

// openURL opens the store at url with the lease table and fence function
// it reads, which package leader owns and a daemon migrates when it joins
// its cluster.
func openURL(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := leader.Migrate(context.Background(), s.Pool()); err != nil {
		t.Fatal(err)
	}
	return s
}

// openContracted opens a store on a fresh schema as a cluster of this
// release alone has it once its leader ran the contract steps.
func openContracted(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.Context(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Contract(t.Context(), time.Minute); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustJob(t testing.TB, s store.Store, name string) store.Job {
	t.Helper()
	j, err := s.JobCreate(context.Background(), store.JobCreateParams{
		Spec: store.JobSpec{Name: name, Cron: "* * * * *", Command: []string{"true"}}, Source: store.SourceAPI, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func mustRun(t testing.TB, s store.Store, job string, at time.Time, ready time.Time) store.Run {
	t.Helper()
	r, err := s.RunInsert(context.Background(), store.RunInsertParams{
		Run: store.Run{Job: job, ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule, ReadyAt: ready}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestJobs(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	created, err := s.JobCreate(ctx, store.JobCreateParams{
		Spec:   store.JobSpec{Name: "backup", Cron: "0 2 * * *", TimeZone: "Europe/Berlin", Shell: "backup.sh"},
		Source: store.SourceManifest, Now: t0,
		Events: []store.Event{{Kind: store.EventJobCreated, Message: "created"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.Version != 1 || !created.CreatedAt.Equal(t0) || created.Spec.TimeZone != "Europe/Berlin" || created.Source != store.SourceManifest {
		t.Errorf("created = %+v", created)
	}
	if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: "backup"}}); !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("second create: %v, want ErrDuplicate", err)
	}
	for _, name := range []string{"b", "a", "Z", "c"} {
		mustJob(t, s, name)
	}

	tests := []struct {
		name string
		p    store.JobListParams
		want []string
	}{
		{"all by name, bytewise", store.JobListParams{}, []string{"Z", "a", "b", "backup", "c"}},
		{"after and limit", store.JobListParams{After: "a", Limit: 2}, []string{"b", "backup"}},
		{"by source", store.JobListParams{Source: store.SourceManifest}, []string{"backup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := s.JobList(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range jobs {
				got = append(got, j.Spec.Name)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}

	upd, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: store.JobSpec{Name: "backup", Cron: "0 3 * * *"}, IfVersion: 1, Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Version != 2 || upd.Spec.Cron != "0 3 * * *" || upd.Source != store.SourceManifest || !upd.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("updated = %+v", upd)
	}
	if _, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: store.JobSpec{Name: "backup"}, IfVersion: 1}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("stale IfVersion: %v, want ErrConflict", err)
	}
	if _, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: store.JobSpec{Name: "nope"}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update missing: %v, want ErrNotFound", err)
	}
	if err := s.JobAdvance(ctx, store.JobAdvanceParams{Name: "backup", LastScheduleTime: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.JobAdvance(ctx, store.JobAdvanceParams{Name: "backup", LastScheduleTime: t0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if j, _ := s.JobGet(ctx, "backup"); !j.Status.LastScheduleTime.Equal(t0) {
		t.Errorf("LastScheduleTime = %v, want %v (never backwards)", j.Status.LastScheduleTime, t0)
	}
	mustRun(t, s, "backup", t0, time.Time{})
	if err := s.JobDelete(ctx, store.JobDeleteParams{Name: "backup"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.JobGet(ctx, "backup"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get deleted: %v", err)
	}
	if runs, _, _ := s.RunList(ctx, store.RunListParams{Job: "backup"}); len(runs) != 0 {
		t.Errorf("runs of a deleted job remain: %v", runs)
	}
	if err := s.JobDelete(ctx, store.JobDeleteParams{Name: "backup"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if evs, _, _ := s.EventList(ctx, store.EventListParams{Job: "backup"}); len(evs) != 1 || evs[0].Kind != store.EventJobCreated {
		t.Errorf("events of backup = %+v", evs)
	}
}

// TestRunInsertExactlyOnce has many writers race to insert the same
// scheduled instants: each key ends up with exactly one run.
func TestRunInsertExactlyOnce(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	const writers, instants = 8, 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[time.Time]int{}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < instants; i++ {
				at := t0.Add(time.Duration(i) * time.Minute)
				_, err := s.RunInsert(ctx, store.RunInsertParams{
					Run: store.Run{Job: "j", ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule}, Advance: true, Now: at})
				switch {
				case err == nil:
					mu.Lock()
					won[at]++
					mu.Unlock()
				case !errors.Is(err, store.ErrDuplicate):
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for i := 0; i < instants; i++ {
		if n := won[t0.Add(time.Duration(i)*time.Minute)]; n != 1 {
			t.Errorf("instant %d inserted %d times", i, n)
		}
	}
	runs, _, err := s.RunList(ctx, store.RunListParams{Page: store.Page{Limit: 1000}})
	if err != nil || len(runs) != instants {
		t.Fatalf("%d runs, err %v; want %d", len(runs), err, instants)
	}
	if j, _ := s.JobGet(ctx, "j"); !j.Status.LastScheduleTime.Equal(t0.Add((instants - 1) * time.Minute)) {
		t.Errorf("LastScheduleTime = %v", j.Status.LastScheduleTime)
	}
	if _, err := s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "ghost", ScheduledTime: t0}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("run of a missing job: %v, want ErrNotFound", err)
	}
}

// TestClaim checks that concurrent claimers share the ready runs without
// overlap and leave held and future runs alone.
func TestClaim(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	const ready = 300
	for i := 0; i < ready; i++ {
		mustRun(t, s, "j", t0.Add(time.Duration(i)*time.Second), t0)
	}
	held := mustRun(t, s, "j", t0.Add(-time.Hour), time.Time{})
	future := mustRun(t, s, "j", t0.Add(-2*time.Hour), t0.Add(time.Hour))

	var wg sync.WaitGroup
	var mu sync.Mutex
	claimed := map[int64]string{}
	for w := 0; w < 4; w++ {
		node := fmt.Sprintf("node-%d", w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				runs, err := s.RunClaim(ctx, store.RunClaimParams{Node: node, Now: t0.Add(time.Minute), Limit: 7})
				if err != nil {
					t.Error(err)
					return
				}
				if len(runs) == 0 {
					return
				}
				mu.Lock()
				for _, r := range runs {
					if prev, dup := claimed[r.ID]; dup {
						t.Errorf("run %d claimed by %s and %s", r.ID, prev, node)
					}
					claimed[r.ID] = node
					if r.State != store.RunRunning || r.Node != node || !r.StartedAt.Equal(t0.Add(time.Minute)) || !r.HeartbeatAt.Equal(r.StartedAt) {
						t.Errorf("claimed run = %+v", r)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != ready {
		t.Errorf("claimed %d runs, want %d", len(claimed), ready)
	}
	if claimed[held.ID] != "" || claimed[future.ID] != "" {
		t.Errorf("held or future run claimed")
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: held.ID, ReadyAt: t0}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.RunClaim(ctx, store.RunClaimParams{Node: "late", Now: t0.Add(time.Minute), Limit: 10})
	if err != nil || len(runs) != 1 || runs[0].ID != held.ID {
		t.Errorf("after release claimed %+v, %v", runs, err)
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: held.ID, ReadyAt: t0}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("release of a running run: %v, want ErrConflict", err)
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: 1 << 40}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("release of a missing run: %v, want ErrNotFound", err)
	}
}

func TestRunLifecycle(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	a := mustRun(t, s, "j", t0, t0)
	b := mustRun(t, s, "j", t0.Add(time.Minute), t0)
	if _, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: t0, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunCancel(ctx, store.RunCancelParams{ID: b.ID}); err != nil {
		t.Fatal(err)
	}
	cancel, err := s.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: "n1", IDs: []int64{a.ID, b.ID}, Now: t0.Add(10 * time.Second)})
	if err != nil || len(cancel) != 1 || cancel[0] != b.ID {
		t.Errorf("heartbeat cancel = %v, %v; want [%d]", cancel, err, b.ID)
	}
	// Another node's heartbeat does not touch n1's runs.
	if _, err := s.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: "n2", IDs: []int64{a.ID}, Now: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	stale, err := s.RunListStale(ctx, store.RunListStaleParams{HeartbeatBefore: t0.Add(20 * time.Second)})
	if err != nil || len(stale) != 2 {
		t.Errorf("stale = %+v, %v", stale, err)
	}
	if stale, _ := s.RunListStale(ctx, store.RunListStaleParams{HeartbeatBefore: t0.Add(5 * time.Second)}); len(stale) != 0 {
		t.Errorf("fresh runs listed as stale: %+v", stale)
	}
	if stale, _ := s.RunListStale(ctx, store.RunListStaleParams{Node: "n1"}); len(stale) != 2 {
		t.Errorf("runs of n1 = %+v", stale)
	}

	code := 0
	done, err := s.RunFinish(ctx, store.RunFinishParams{ID: a.ID, State: store.RunSucceeded, ExitCode: &code,
		Output: []byte("ok\n"), Now: t0.Add(time.Minute), Events: []store.Event{{Kind: store.EventRunSucceeded, Message: "done"}}})
	if err != nil {
		t.Fatal(err)
	}
	if done.State != store.RunSucceeded || *done.ExitCode != 0 || string(done.Output) != "ok\n" || !done.FinishedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("finished = %+v", done)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: a.ID, State: store.RunFailed}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second finish: %v, want ErrConflict", err)
	}
	if _, err := s.RunCancel(ctx, store.RunCancelParams{ID: a.ID}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("cancel finished: %v, want ErrConflict", err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: b.ID, State: store.RunKilled, Error: "replaced"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: b.ID, State: store.RunRunning}); err == nil {
		t.Error("finish with a non-final state accepted")
	}
	j, _ := s.JobGet(ctx, "j")
	if j.Status.Succeeded != 1 || j.Status.Failed != 1 || !j.Status.LastSuccessfulTime.Equal(t0.Add(time.Minute)) {
		t.Errorf("status = %+v", j.Status)
	}
	ev, _, _ := s.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventRunSucceeded}})
	if len(ev) != 1 || ev[0].Job != "j" || ev[0].RunID != a.ID {
		t.Errorf("run events = %+v", ev)
	}
	got, err := s.RunGet(ctx, b.ID)
	if err != nil || got.Error != "replaced" || got.ExitCode != nil || !got.CancelRequested {
		t.Errorf("run b = %+v, %v", got, err)
	}
}

func TestRunPruneAndList(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	mustJob(t, s, "j")
	states := []store.RunState{store.RunSucceeded, store.RunFailed, store.RunSucceeded, store.RunMissed,
		store.RunSucceeded, store.RunKilled, store.RunSucceeded}
	var ids []int64
	for i, st := range states {
		r := mustRun(t, s, "j", t0.Add(time.Duration(i)*time.Minute), time.Time{})
		if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: st}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	pending := mustRun(t, s, "j", t0.Add(time.Hour), time.Time{})
	n, err := s.RunPrune(ctx, store.RunPruneParams{Job: "j", KeepSucceeded: 2, KeepFailed: 1})
	if err != nil || n != 4 {
		t.Fatalf("pruned %d, %v; want 4", n, err)
	}
	var got []int64
	cursor := int64(0)
	for {
		runs, next, err := s.RunList(ctx, store.RunListParams{Job: "j", Page: store.Page{Cursor: cursor, Limit: 2}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			got = append(got, r.ID)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	want := []int64{pending.ID, ids[6], ids[5], ids[4]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	runs, _, _ := s.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunPending}})
	if len(runs) != 1 || runs[0].ID != pending.ID || runs[0].Output != nil {
		t.Errorf("pending runs = %+v", runs)
	}
}

func TestEvents(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	data := json.RawMessage(`{"b": 1, "a": [1,2]}`)
	var evs []store.Event
	for i := 0; i < 5; i++ {
		evs = append(evs, store.Event{Kind: store.EventRunSkipped, Job: "j", Time: t0.Add(time.Duration(i) * time.Second), Message: fmt.Sprint(i)})
	}
	evs = append(evs, store.Event{Kind: store.EventJobCreated, Resource: "node/a", Message: "x", Data: data})
	if err := s.EventAppend(ctx, evs...); err != nil {
		t.Fatal(err)
	}
	all, next, err := s.EventList(ctx, store.EventListParams{Page: store.Page{Limit: 4}})
	if err != nil || len(all) != 4 || next == 0 {
		t.Fatalf("first page: %d events, next %d, %v", len(all), next, err)
	}
	if string(all[0].Data) != string(data) || all[0].Resource != "node/a" || all[0].Time.IsZero() {
		t.Errorf("newest = %+v", all[0])
	}
	rest, next, _ := s.EventList(ctx, store.EventListParams{Page: store.Page{Cursor: next, Limit: 4}})
	if len(rest) != 2 || next != 0 || rest[1].Message != "0" || !rest[1].Time.Equal(t0) {
		t.Errorf("second page = %+v, next %d", rest, next)
	}
	byKind, _, _ := s.EventList(ctx, store.EventListParams{Job: "j", Kinds: []store.EventKind{store.EventRunSkipped}})
	if len(byKind) != 5 {
		t.Errorf("filtered = %d events", len(byKind))
	}
}

// TestMigrateConcurrently opens several stores on one empty schema at once,
// as nodes starting together do, then reopens it.
func TestMigrateConcurrently(t *testing.T) {
	url := pgtest.Schema(t)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), url)
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	s := openURL(t, url)
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	var versions int
	if err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM schema_version`).Scan(&versions); err != nil || versions != len(files) {
		t.Errorf("schema_version rows = %d, %v; want one per migration (%d)", versions, err, len(files))
	}
	if _, err := s.Pool().Exec(context.Background(), `INSERT INTO schema_version VALUES (999)`); err != nil {
		t.Fatal(err)
	}
	// A schema a later release expanded is opened: it only added.
	s2, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("a schema expanded past the binary: %v", err)
	}
	s2.Close()
	// One contracted past the binary is refused, distinctly.
	if _, err := s.Pool().Exec(context.Background(), `INSERT INTO schema_version_contracted VALUES (999)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), url); !errors.Is(err, migrate.ErrTooOld) {
		t.Errorf("a schema contracted past the binary: %v, want ErrTooOld", err)
	}
}

func TestOpenBadURL(t *testing.T) {
	if _, err := Open(context.Background(), "postgres://%zz"); err == nil {
		t.Error("bad URL accepted")
	}
}

// TestCloseTwice: closing a store twice (a deferred Close after an
// explicit one) is harmless.
func TestCloseTwice(t *testing.T) {
	s := open(t)
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
