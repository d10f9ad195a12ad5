// Package storetest is the conformance suite for store.Store backends. Every
// backend's tests call Run with a function that opens a fresh, empty store;
// the suite checks the contract the job controller relies on: CRUD, the
// unique run key under concurrent inserts, paging, claims, heartbeats,
// history pruning and the event log.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// base is a fixed instant the suite's timestamps are built from.
var base = time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)

// Run runs the conformance suite. open must return a new empty store; the
// suite closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"JobCRUD", testJobCRUD},
		{"JobList", testJobList},
		{"JobAdvance", testJobAdvance},
		{"RebootLocks", testRebootLocks},
		{"RebootLocksConcurrent", testRebootLocksConcurrent},
		{"RunInsertUnique", testRunInsertUnique},
		{"RunInsertConcurrent", testRunInsertConcurrent},
		{"RunListPaging", testRunListPaging},
		{"RunClaim", testRunClaim},
		{"RunClaimConcurrent", testRunClaimConcurrent},
		{"RunHeartbeatAndStale", testRunHeartbeatAndStale},
		{"RunFinish", testRunFinish},
		{"RunPrune", testRunPrune},
		{"JobDeleteCascades", testJobDeleteCascades},
		{"Events", testEvents},
	}
	tests = append(tests, batchTests...)
	tests = append(tests, resourceTests...)
	tests = append(tests, targetTests...)
	tests = append(tests, retentionTests...)
	tests = append(tests, auditTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func createJob(t *testing.T, s store.Store, name string) store.Job {
	t.Helper()
	j, err := s.JobCreate(context.Background(), store.JobCreateParams{
		Spec:   store.JobSpec{Name: name, Cron: "* * * * *", Command: []string{"true"}},
		Source: store.SourceAPI,
		Now:    base,
	})
	if err != nil {
		t.Fatalf("JobCreate(%q): %v", name, err)
	}
	return j
}

func insertRun(t *testing.T, s store.Store, job string, at time.Time, attempt int) store.Run {
	t.Helper()
	r, err := s.RunInsert(context.Background(), store.RunInsertParams{
		Run: store.Run{Job: job, ScheduledTime: at, Attempt: attempt, Reason: store.ReasonSchedule},
		Now: at,
	})
	if err != nil {
		t.Fatalf("RunInsert(%s, %v, %d): %v", job, at, attempt, err)
	}
	return r
}

func testJobCRUD(t *testing.T, s store.Store) {
	ctx := context.Background()
	at := base.Add(time.Hour)
	spec := store.JobSpec{
		Name: "backup", At: &at, TimeZone: "Europe/Berlin",
		Shell: "tar czf /tmp/x.tgz /etc", Env: map[string]string{"A": "1", "B": "two"}, Cwd: "/tmp",
		StartingDeadlineSeconds: ptr(int64(300)), ConcurrencyPolicy: store.Forbid, Suspend: true,
		BackoffLimit: 2, TimeoutSeconds: 60, SuccessfulJobsHistoryLimit: ptr(5), FailedJobsHistoryLimit: ptr(0),
		Gate: "weekend", Requires: []string{"dump"}, Before: []string{"report"},
	}
	j, err := s.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: store.SourceManifest, Now: base})
	if err != nil {
		t.Fatalf("JobCreate: %v", err)
	}
	if j.Version != 1 || !j.CreatedAt.Equal(base) || !j.UpdatedAt.Equal(base) || j.Source != store.SourceManifest {
		t.Errorf("JobCreate = version %d created %v updated %v source %q", j.Version, j.CreatedAt, j.UpdatedAt, j.Source)
	}
	got, err := s.JobGet(ctx, "backup")
	if err != nil {
		t.Fatalf("JobGet: %v", err)
	}
	if got.Spec.At == nil || !got.Spec.At.Equal(at) {
		t.Fatalf("JobGet spec.At = %v, want %v", got.Spec.At, at)
	}
	got.Spec.At = &at
	if !reflect.DeepEqual(got.Spec, spec) {
		t.Errorf("JobGet spec =\n%+v\nwant\n%+v", got.Spec, spec)
	}
	if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: store.SourceAPI}); !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("second JobCreate err = %v, want ErrDuplicate", err)
	}
	if _, err := s.JobGet(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobGet(nope) err = %v, want ErrNotFound", err)
	}

	spec.Suspend = false
	spec.Cron, spec.At = "0 2 * * *", nil
	up, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: spec, Source: store.SourceAPI, IfVersion: 1, Now: base.Add(time.Minute)})
	if err != nil {
		t.Fatalf("JobUpdate: %v", err)
	}
	if up.Version != 2 || up.Spec.Suspend || up.Spec.Cron != "0 2 * * *" || up.Spec.At != nil ||
		!up.UpdatedAt.Equal(base.Add(time.Minute)) || !up.CreatedAt.Equal(base) || up.Source != store.SourceAPI {
		t.Errorf("JobUpdate = %+v", up)
	}
	if _, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: spec, IfVersion: 1}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("JobUpdate with stale version err = %v, want ErrConflict", err)
	}
	if _, err := s.JobUpdate(ctx, store.JobUpdateParams{Spec: store.JobSpec{Name: "nope"}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobUpdate(nope) err = %v, want ErrNotFound", err)
	}
	if err := s.JobDelete(ctx, store.JobDeleteParams{Name: "backup"}); err != nil {
		t.Fatalf("JobDelete: %v", err)
	}
	if err := s.JobDelete(ctx, store.JobDeleteParams{Name: "backup"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second JobDelete err = %v, want ErrNotFound", err)
	}
	if _, err := s.JobGet(ctx, "backup"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobGet after delete err = %v, want ErrNotFound", err)
	}
}

func testJobList(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, n := range []string{"c", "a", "e", "b", "d", "backup-db"} {
		src := store.SourceAPI
		if n == "b" || n == "d" {
			src = store.SourceManifest
		}
		spec := store.JobSpec{Name: n, Cron: "@daily", Suspend: n == "c" || n == "e"}
		if n == "b" || n == "e" {
			spec.AlertAfterSeconds = 3600
		}
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.JobCounts(ctx); err != nil || c != (store.JobCounts{Total: 6, Suspended: 2}) {
		t.Errorf("JobCounts = %+v, %v; want 6 jobs, 2 suspended", c, err)
	}
	names := func(jobs []store.Job) []string {
		var out []string
		for _, j := range jobs {
			out = append(out, j.Spec.Name)
		}
		return out
	}
	tests := []struct {
		name string
		p    store.JobListParams
		want []string
	}{
		{"all", store.JobListParams{}, []string{"a", "b", "backup-db", "c", "d", "e"}},
		{"limit", store.JobListParams{Limit: 2}, []string{"a", "b"}},
		{"after", store.JobListParams{After: "b", Limit: 2}, []string{"backup-db", "c"}},
		{"source", store.JobListParams{Source: store.SourceManifest}, []string{"b", "d"}},
		{"name contains", store.JobListParams{NameContains: "ck"}, []string{"backup-db"}},
		{"name contains, paged", store.JobListParams{NameContains: "b", After: "b", Limit: 5}, []string{"backup-db"}},
		{"name contains nothing", store.JobListParams{NameContains: "%"}, nil},
		{"with alert_after", store.JobListParams{WithAlertAfter: true}, []string{"b", "e"}},
		{"with alert_after, paged", store.JobListParams{WithAlertAfter: true, After: "b", Limit: 1}, []string{"e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := s.JobList(ctx, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(jobs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("JobList(%+v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func testJobAdvance(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	check := func(want time.Time) {
		t.Helper()
		j, err := s.JobGet(ctx, "j")
		if err != nil {
			t.Fatal(err)
		}
		if !j.Status.LastScheduleTime.Equal(want) {
			t.Errorf("LastScheduleTime = %v, want %v", j.Status.LastScheduleTime, want)
		}
	}
	check(time.Time{})
	if err := s.JobAdvance(ctx, store.JobAdvanceParams{Name: "j", LastScheduleTime: base.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	check(base.Add(time.Hour))
	if err := s.JobAdvance(ctx, store.JobAdvanceParams{Name: "j", LastScheduleTime: base}); err != nil {
		t.Fatal(err)
	}
	check(base.Add(time.Hour)) // never backwards
	if _, err := s.RunInsert(ctx, store.RunInsertParams{
		Run: store.Run{Job: "j", ScheduledTime: base.Add(2 * time.Hour), Reason: store.ReasonSchedule}, Advance: true,
	}); err != nil {
		t.Fatal(err)
	}
	check(base.Add(2 * time.Hour))
	if err := s.JobAdvance(ctx, store.JobAdvanceParams{Name: "nope", LastScheduleTime: base}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("JobAdvance(nope) err = %v, want ErrNotFound", err)
	}
}

func testRunInsertUnique(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	r := insertRun(t, s, "j", base, 1)
	if r.ID == 0 || r.State != store.RunPending || r.Attempt != 1 || !r.ScheduledTime.Equal(base) || !r.ReadyAt.IsZero() {
		t.Errorf("RunInsert = %+v", r)
	}
	_, err := s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "j", ScheduledTime: base, Attempt: 1, Reason: store.ReasonCatchUp}})
	if !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("duplicate RunInsert err = %v, want ErrDuplicate", err)
	}
	insertRun(t, s, "j", base, 2)                  // another attempt
	insertRun(t, s, "j", base.Add(time.Second), 1) // another instant
	_, err = s.RunInsert(ctx, store.RunInsertParams{Run: store.Run{Job: "nope", ScheduledTime: base, Attempt: 1}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RunInsert for a missing job err = %v, want ErrNotFound", err)
	}
	got, err := s.RunGet(ctx, r.ID)
	if err != nil || got.ID != r.ID || got.Reason != store.ReasonSchedule {
		t.Errorf("RunGet = %+v, %v", got, err)
	}
	if _, err := s.RunGet(ctx, 1<<40); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RunGet(missing) err = %v, want ErrNotFound", err)
	}
}

// testRunInsertConcurrent: many goroutines insert the same keys; each key
// ends up with exactly one row and every loser sees ErrDuplicate.
func testRunInsertConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	const workers, instants = 8, 20
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		won = map[time.Time]int{}
		bad []error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < instants; i++ {
				at := base.Add(time.Duration(i) * time.Minute)
				_, err := s.RunInsert(ctx, store.RunInsertParams{
					Run: store.Run{Job: "j", ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule}, Advance: true,
				})
				mu.Lock()
				switch {
				case err == nil:
					won[at]++
				case !errors.Is(err, store.ErrDuplicate):
					bad = append(bad, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range bad {
		t.Errorf("concurrent RunInsert: %v (want nil or ErrDuplicate)", err)
	}
	for i := 0; i < instants; i++ {
		at := base.Add(time.Duration(i) * time.Minute)
		if won[at] != 1 {
			t.Errorf("instant %v inserted %d times, want 1", at, won[at])
		}
	}
	runs, _, err := s.RunList(ctx, store.RunListParams{Job: "j", Page: store.Page{Limit: 1000}})
	if err != nil || len(runs) != instants {
		t.Errorf("RunList = %d runs, %v; want %d", len(runs), err, instants)
	}
}

func testRunListPaging(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "a")
	createJob(t, s, "b")
	var ids []int64
	for i := 0; i < 25; i++ {
		job := "a"
		if i%5 == 0 {
			job = "b"
		}
		ids = append(ids, insertRun(t, s, job, base.Add(time.Duration(i)*time.Minute), 1).ID)
	}
	var got []int64
	cursor, pages := int64(0), 0
	for {
		runs, next, err := s.RunList(ctx, store.RunListParams{Page: store.Page{Cursor: cursor, Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range runs {
			got = append(got, r.ID)
			if r.Output != nil {
				t.Errorf("RunList without WithOutput returned output for run %d", r.ID)
			}
		}
		if next == 0 {
			break
		}
		cursor = next
		if pages > 10 {
			t.Fatal("paging does not end")
		}
	}
	if pages != 3 || len(got) != 25 {
		t.Fatalf("paged %d runs in %d pages, want 25 in 3", len(got), pages)
	}
	for i, id := range got {
		if want := ids[len(ids)-1-i]; id != want {
			t.Fatalf("run %d of listing = id %d, want %d (newest first)", i, id, want)
		}
	}
	runs, next, err := s.RunList(ctx, store.RunListParams{Job: "b", Page: store.Page{Limit: 10}})
	if err != nil || len(runs) != 5 || next != 0 {
		t.Errorf("RunList(job b) = %d runs next %d err %v, want 5, 0, nil", len(runs), next, err)
	}
	runs, _, err = s.RunList(ctx, store.RunListParams{Job: "a", ScheduledTime: base.Add(3 * time.Minute)})
	if err != nil || len(runs) != 1 || runs[0].ID != ids[3] {
		t.Errorf("RunList(job a, instant 00:03) = %+v, %v; want run %d", runs, err, ids[3])
	}
	runs, _, err = s.RunList(ctx, store.RunListParams{States: []store.RunState{store.RunRunning}})
	if err != nil || len(runs) != 0 {
		t.Errorf("RunList(running) = %d runs, %v; want none", len(runs), err)
	}
	// An exactly full last page reports no next cursor.
	runs, next, err = s.RunList(ctx, store.RunListParams{Job: "b", Page: store.Page{Limit: 5}})
	if err != nil || len(runs) != 5 || next != 0 {
		t.Errorf("RunList(job b, limit 5) = %d runs next %d err %v, want 5, 0, nil", len(runs), next, err)
	}
}

func testRunClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	held := insertRun(t, s, "j", base, 1)
	later := insertRun(t, s, "j", base.Add(time.Minute), 1)
	ready := insertRun(t, s, "j", base.Add(2*time.Minute), 1)
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: ready.ID, ReadyAt: base}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: later.ID, ReadyAt: base.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n1", Now: base.Add(time.Minute), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 || claimed[0].ID != ready.ID {
		t.Fatalf("RunClaim = %+v, want only run %d (held and not-yet-ready runs stay)", claimed, ready.ID)
	}
	c := claimed[0]
	if c.State != store.RunRunning || c.Node != "n1" || !c.StartedAt.Equal(base.Add(time.Minute)) || !c.HeartbeatAt.Equal(c.StartedAt) {
		t.Errorf("claimed run = %+v", c)
	}
	if again, err := s.RunClaim(ctx, store.RunClaimParams{Node: "n2", Now: base.Add(time.Minute), Limit: 10}); err != nil || len(again) != 0 {
		t.Errorf("second RunClaim = %v, %v; want nothing", again, err)
	}
	if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: ready.ID, ReadyAt: base}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("RunRelease of a running run err = %v, want ErrConflict", err)
	}
	claimed, err = s.RunClaim(ctx, store.RunClaimParams{Node: "n2", Now: base.Add(2 * time.Hour), Limit: 10})
	if err != nil || len(claimed) != 1 || claimed[0].ID != later.ID {
		t.Errorf("RunClaim after ReadyAt = %+v, %v; want run %d", claimed, err, later.ID)
	}
	if r, _ := s.RunGet(ctx, held.ID); r.State != store.RunPending {
		t.Errorf("held run state = %s, want pending", r.State)
	}
}

// testRunClaimConcurrent: concurrent claimers never get the same run.
func testRunClaimConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	const n = 60
	for i := 0; i < n; i++ {
		r := insertRun(t, s, "j", base.Add(time.Duration(i)*time.Second), 1)
		if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: r.ID, ReadyAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[int64]string{}
		errs []error
	)
	for w := 0; w < 6; w++ {
		node := fmt.Sprintf("n%d", w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				runs, err := s.RunClaim(ctx, store.RunClaimParams{Node: node, Now: base.Add(time.Hour), Limit: 3})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				for _, r := range runs {
					if prev, dup := seen[r.ID]; dup {
						errs = append(errs, fmt.Errorf("run %d claimed by %s and %s", r.ID, prev, node))
					}
					seen[r.ID] = node
				}
				mu.Unlock()
				if err != nil || len(runs) == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(seen) != n {
		t.Errorf("claimed %d runs, want %d", len(seen), n)
	}
}

func testRunHeartbeatAndStale(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	var ids []int64
	for i := 0; i < 3; i++ {
		r := insertRun(t, s, "j", base.Add(time.Duration(i)*time.Minute), 1)
		if _, err := s.RunRelease(ctx, store.RunReleaseParams{ID: r.ID, ReadyAt: base}); err != nil {
			t.Fatal(err)
		}
		node := "n1"
		if i == 2 {
			node = "n2"
		}
		if c, err := s.RunClaim(ctx, store.RunClaimParams{Node: node, Now: base, Limit: 1}); err != nil || len(c) != 1 {
			t.Fatalf("RunClaim: %v %v", c, err)
		}
		ids = append(ids, r.ID)
	}
	if _, err := s.RunCancel(ctx, store.RunCancelParams{ID: ids[1]}); err != nil {
		t.Fatal(err)
	}
	// n1 heart-beats all three; only its own two are refreshed.
	cancel, err := s.RunHeartbeat(ctx, store.RunHeartbeatParams{Node: "n1", IDs: ids, Now: base.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cancel, []int64{ids[1]}) {
		t.Errorf("RunHeartbeat cancel = %v, want [%d]", cancel, ids[1])
	}
	stale, err := s.RunListStale(ctx, store.RunListStaleParams{HeartbeatBefore: base.Add(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].ID != ids[2] {
		t.Errorf("RunListStale(heartbeat) = %+v, want run %d of n2", stale, ids[2])
	}
	stale, err = s.RunListStale(ctx, store.RunListStaleParams{Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 2 || stale[0].ID != ids[0] || stale[1].ID != ids[1] {
		t.Errorf("RunListStale(node n1) = %+v, want runs %v", stale, ids[:2])
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: ids[0], State: store.RunSucceeded, ExitCode: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunCancel(ctx, store.RunCancelParams{ID: ids[0]}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("RunCancel of a finished run err = %v, want ErrConflict", err)
	}
	if stale, _ := s.RunListStale(ctx, store.RunListStaleParams{Node: "n1"}); len(stale) != 1 {
		t.Errorf("finished run still listed as stale: %+v", stale)
	}
}

func testRunFinish(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	out := []byte("hello\x00world\n")
	tests := []struct {
		state store.RunState
		exit  *int
	}{
		{store.RunSucceeded, ptr(0)},
		{store.RunFailed, ptr(3)},
		{store.RunKilled, nil},
		{store.RunMissed, nil},
		{store.RunSucceeded, ptr(0)},
	}
	for i, tc := range tests {
		r := insertRun(t, s, "j", base.Add(time.Duration(i)*time.Minute), 1)
		fin := base.Add(time.Duration(i)*time.Minute + 30*time.Second)
		got, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: tc.state, ExitCode: tc.exit, Output: out,
			Error: "why", Now: fin, Events: []store.Event{{Kind: store.EventRunFinished(tc.state), Message: "done"}}})
		if err != nil {
			t.Fatalf("RunFinish(%s): %v", tc.state, err)
		}
		if got.State != tc.state || !got.FinishedAt.Equal(fin) || string(got.Output) != string(out) || got.Error != "why" ||
			(tc.exit == nil) != (got.ExitCode == nil) || tc.exit != nil && *got.ExitCode != *tc.exit {
			t.Errorf("RunFinish(%s) = %+v", tc.state, got)
		}
		if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunFailed}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("second RunFinish err = %v, want ErrConflict", err)
		}
	}
	j, err := s.JobGet(ctx, "j")
	if err != nil {
		t.Fatal(err)
	}
	if j.Status.Succeeded != 2 || j.Status.Failed != 2 || !j.Status.LastSuccessfulTime.Equal(base.Add(4*time.Minute+30*time.Second)) {
		t.Errorf("job status = %+v, want 2 succeeded, 2 failed, last success at 00:04:30", j.Status)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: 1 << 40, State: store.RunFailed}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RunFinish(missing) err = %v, want ErrNotFound", err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: 1, State: store.RunRunning}); err == nil {
		t.Error("RunFinish to a non-final state succeeded")
	}
}

func testRunPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	createJob(t, s, "other")
	states := []store.RunState{store.RunSucceeded, store.RunFailed, store.RunSucceeded, store.RunMissed,
		store.RunSucceeded, store.RunKilled, store.RunSucceeded, store.RunFailed}
	var ids []int64
	for i, st := range states {
		r := insertRun(t, s, "j", base.Add(time.Duration(i)*time.Minute), 1)
		if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: st}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	active := insertRun(t, s, "j", base.Add(time.Hour), 1)
	untouched := insertRun(t, s, "other", base, 1)
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: untouched.ID, State: store.RunSucceeded}); err != nil {
		t.Fatal(err)
	}
	n, err := s.RunPrune(ctx, store.RunPruneParams{Job: "j", KeepSucceeded: 2, KeepFailed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("RunPrune deleted %d, want 5", n)
	}
	runs, _, err := s.RunList(ctx, store.RunListParams{Job: "j"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range runs {
		got = append(got, r.ID)
	}
	want := []int64{active.ID, ids[7], ids[6], ids[4]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after prune runs = %v, want %v (pending, newest failed, two newest succeeded)", got, want)
	}
	if _, err := s.RunGet(ctx, untouched.ID); err != nil {
		t.Errorf("prune of j touched another job's run: %v", err)
	}
	if n, err := s.RunPrune(ctx, store.RunPruneParams{Job: "j", KeepSucceeded: 0, KeepFailed: 0}); err != nil || n != 3 {
		t.Errorf("RunPrune(keep 0) = %d, %v; want 3", n, err)
	}
}

func testJobDeleteCascades(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	r := insertRun(t, s, "j", base, 1)
	if err := s.JobDelete(ctx, store.JobDeleteParams{Name: "j", Events: []store.Event{{Kind: store.EventJobDeleted, Message: "bye"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunGet(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("run of a deleted job: err = %v, want ErrNotFound", err)
	}
	events, _, err := s.EventList(ctx, store.EventListParams{Job: "j"})
	if err != nil || len(events) != 1 || events[0].Kind != store.EventJobDeleted {
		t.Errorf("events of a deleted job = %+v, %v; want the deletion kept", events, err)
	}
	// The name can be reused and starts afresh.
	createJob(t, s, "j")
	insertRun(t, s, "j", base, 1)
}

func testEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	r, err := s.RunInsert(ctx, store.RunInsertParams{
		Run:    store.Run{Job: "j", ScheduledTime: base, Reason: store.ReasonSchedule},
		Now:    base,
		Events: []store.Event{{Kind: store.EventRunScheduled, Message: "scheduled"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	data := json.RawMessage(`{"count":3,"first":"2026-03-29T00:00:00Z"}`)
	if err := s.EventAppend(ctx,
		store.Event{Time: base.Add(time.Minute), Kind: store.EventRunMissed, Job: "j", Message: "missed 3", Data: data},
		store.Event{Time: base.Add(2 * time.Minute), Kind: store.EventKind("resource.started"), Resource: "vm-1", Message: "started"},
	); err != nil {
		t.Fatal(err)
	}
	events, next, err := s.EventList(ctx, store.EventListParams{})
	if err != nil || next != 0 {
		t.Fatalf("EventList: next %d err %v", next, err)
	}
	// The job's creation wrote no event (none was passed), so three remain.
	if len(events) != 3 {
		t.Fatalf("EventList = %d events, want 3: %+v", len(events), events)
	}
	if events[0].Resource != "vm-1" || events[2].Kind != store.EventRunScheduled {
		t.Errorf("EventList order = %+v, want newest first", events)
	}
	sched := events[2]
	if sched.RunID != r.ID || sched.Job != "j" || !sched.Time.Equal(base) {
		t.Errorf("event written with RunInsert = %+v, want run %d, job j, time %v filled in", sched, r.ID, base)
	}
	var a, b any
	json.Unmarshal(events[1].Data, &a)
	json.Unmarshal(data, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("event data = %s, want %s", events[1].Data, data)
	}
	if events[0].Data != nil {
		t.Errorf("event without data came back with %s", events[0].Data)
	}
	byKind, _, err := s.EventList(ctx, store.EventListParams{Job: "j", Kinds: []store.EventKind{store.EventRunMissed}})
	if err != nil || len(byKind) != 1 || byKind[0].Message != "missed 3" {
		t.Errorf("EventList(job j, missed) = %+v, %v", byKind, err)
	}
	page, next, err := s.EventList(ctx, store.EventListParams{Page: store.Page{Limit: 2}})
	if err != nil || len(page) != 2 || next == 0 {
		t.Fatalf("EventList(limit 2) = %d, next %d, %v", len(page), next, err)
	}
	rest, next, err := s.EventList(ctx, store.EventListParams{Page: store.Page{Cursor: next, Limit: 2}})
	if err != nil || len(rest) != 1 || next != 0 || rest[0].ID != sched.ID {
		t.Errorf("EventList second page = %+v, next %d, %v", rest, next, err)
	}
	// A time range: [base+1m, base+2m) holds only the missed event.
	ranged, _, err := s.EventList(ctx, store.EventListParams{Since: base.Add(time.Minute), Until: base.Add(2 * time.Minute)})
	if err != nil || len(ranged) != 1 || ranged[0].Kind != store.EventRunMissed {
		t.Errorf("EventList(since, until) = %+v, %v", ranged, err)
	}
	if since, _, err := s.EventList(ctx, store.EventListParams{Since: base.Add(time.Minute)}); err != nil || len(since) != 2 {
		t.Errorf("EventList(since) = %d events, %v; want 2", len(since), err)
	}
}
