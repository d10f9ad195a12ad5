package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// targetTests cover fanned-out runs: the unique key includes the target,
// only the target claims a targeted run, and listings filter by node.
var targetTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"RunTargetUnique", testRunTargetUnique},
	{"RunTargetClaim", testRunTargetClaim},
	{"RunListNode", testRunListNode},
	{"RunListTime", testRunListTime},
	{"RunPrunePerTarget", testRunPrunePerTarget},
	{"RunFinishPrunePerTarget", testRunFinishPrunePerTarget},
}

func insertTargeted(ctx context.Context, s store.Store, job string, at time.Time, target string, attempt int, ready time.Time) (store.Run, error) {
	return s.RunInsert(ctx, store.RunInsertParams{
		Run: store.Run{Job: job, ScheduledTime: at, Attempt: attempt, Reason: store.ReasonSchedule, Target: target, ReadyAt: ready},
		Now: at,
	})
}

// testRunTargetUnique: one run per (job, instant, target, attempt), by
// RunInsert and by RunInsertBatch; the target reads back.
func testRunTargetUnique(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	for _, n := range []string{"", "a", "b"} {
		r, err := insertTargeted(ctx, s, "j", base, n, 1, time.Time{})
		if err != nil {
			t.Fatalf("insert for target %q: %v", n, err)
		}
		if r.Target != n {
			t.Errorf("insert for target %q read back target %q", n, r.Target)
		}
		if got, err := s.RunGet(ctx, r.ID); err != nil || got.Target != n {
			t.Errorf("RunGet(%d) target = %q, %v; want %q", r.ID, got.Target, err, n)
		}
		if _, err := insertTargeted(ctx, s, "j", base, n, 1, time.Time{}); !errors.Is(err, store.ErrDuplicate) {
			t.Errorf("second insert for target %q: err = %v, want ErrDuplicate", n, err)
		}
	}
	res, err := s.RunInsertBatch(ctx, store.RunInsertBatchParams{Now: base, Items: []store.RunInsertParams{
		{Run: store.Run{Job: "j", ScheduledTime: base, Attempt: 1, Target: "a"}},
		{Run: store.Run{Job: "j", ScheduledTime: base, Attempt: 1, Target: "c"}},
		{Run: store.Run{Job: "j", ScheduledTime: base, Attempt: 2, Target: "a"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, store.ErrDuplicate) || res[1].Err != nil || res[2].Err != nil {
		t.Fatalf("batch results = %+v; want a duplicate, then two new runs", res)
	}
	if res[1].Run.Target != "c" || res[2].Run.Target != "a" || res[2].Run.Attempt != 2 {
		t.Errorf("batch runs = %+v, %+v", res[1].Run, res[2].Run)
	}
}

// testRunTargetClaim: a targeted run is claimed by its node only; an
// untargeted one by anyone.
func testRunTargetClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	forA, err := insertTargeted(ctx, s, "j", base, "a", 1, base)
	if err != nil {
		t.Fatal(err)
	}
	forB, err := insertTargeted(ctx, s, "j", base, "b", 1, base)
	if err != nil {
		t.Fatal(err)
	}
	anyone, err := insertTargeted(ctx, s, "j", base.Add(time.Second), "", 1, base)
	if err != nil {
		t.Fatal(err)
	}
	now := base.Add(time.Minute)
	got, err := s.RunClaim(ctx, store.RunClaimParams{Node: "c", Now: now, Limit: 10, TargetedOnly: true})
	if err != nil || len(got) != 0 {
		t.Fatalf("node c claimed %v, %v with TargetedOnly; want nothing", targetsOf(got), err)
	}
	got, err = s.RunClaim(ctx, store.RunClaimParams{Node: "a", Now: now, Limit: 10, TargetedOnly: true})
	if err != nil || len(got) != 1 || got[0].ID != forA.ID {
		t.Fatalf("node a claimed %v, %v with TargetedOnly; want only run %d", targetsOf(got), err, forA.ID)
	}
	got, err = s.RunClaim(ctx, store.RunClaimParams{Node: "c", Now: now, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != anyone.ID {
		t.Fatalf("node c claimed %+v; want only the untargeted run %d", got, anyone.ID)
	}
	if r, _ := s.RunGet(ctx, forA.ID); r.Node != "a" || r.State != store.RunRunning {
		t.Fatalf("run for a = %+v; want running on a", r)
	}
	if r, _ := s.RunGet(ctx, forB.ID); r.State != store.RunPending {
		t.Errorf("run for b is %s after a and c claimed; want pending", r.State)
	}
	got, err = s.RunClaim(ctx, store.RunClaimParams{Node: "b", Now: now, Limit: 10, Skip: []int64{forB.ID, 1 << 40}})
	if err != nil || len(got) != 0 {
		t.Fatalf("node b claimed %v, %v skipping its run; want nothing", targetsOf(got), err)
	}
	got, err = s.RunClaim(ctx, store.RunClaimParams{Node: "b", Now: now, Limit: 10})
	if err != nil || len(got) != 1 || got[0].ID != forB.ID {
		t.Errorf("node b claimed %+v, %v; want run %d", got, err, forB.ID)
	}
}

// testRunListNode: the node filter returns runs targeted at the node or
// claimed by it.
func testRunListNode(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	forA, err := insertTargeted(ctx, s, "j", base, "a", 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	forB, err := insertTargeted(ctx, s, "j", base, "b", 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	anyone, err := insertTargeted(ctx, s, "j", base.Add(time.Second), "", 1, base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunClaim(ctx, store.RunClaimParams{Node: "a", Now: base.Add(time.Minute), Limit: 10}); err != nil {
		t.Fatal(err)
	}
	ids := func(node string) []int64 {
		runs, _, err := s.RunList(ctx, store.RunListParams{Node: node})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range runs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, tt := range []struct {
		node string
		want []int64
	}{
		{"a", []int64{forA.ID, anyone.ID}},
		{"b", []int64{forB.ID}},
		{"c", nil},
		{"", []int64{forA.ID, forB.ID, anyone.ID}},
	} {
		if got := ids(tt.node); !slices.Equal(got, tt.want) {
			t.Errorf("RunList(node %q) = %v, want %v", tt.node, got, tt.want)
		}
	}
}

// testRunPrunePerTarget: history limits count per target node, so a
// fanned-out job keeps its recent instants on every node, through
// RunPrune and through the prune at a run's end.
func testRunPrunePerTarget(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	keep := map[int64]bool{}
	for i := range 4 {
		at := base.Add(time.Duration(i) * time.Minute)
		for _, n := range []string{"a", "b"} {
			r, err := insertTargeted(ctx, s, "j", at, n, 1, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunSucceeded}); err != nil {
				t.Fatal(err)
			}
			if i >= 2 {
				keep[r.ID] = true
			}
		}
	}
	if n, err := s.RunPrune(ctx, store.RunPruneParams{Job: "j", KeepSucceeded: 2, KeepFailed: 1}); err != nil || n != 4 {
		t.Fatalf("RunPrune = %d, %v; want 4 (two instants of each node)", n, err)
	}
	runs, _, err := s.RunList(ctx, store.RunListParams{Job: "j"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if !keep[r.ID] {
			t.Errorf("run %d (%s at %s) kept; want the two newest of each node", r.ID, r.Target, r.ScheduledTime)
		}
	}
	if len(runs) != len(keep) {
		t.Errorf("%d runs kept, want %d", len(runs), len(keep))
	}
	// The prune at a run's end counts per node too.
	r, err := insertTargeted(ctx, s, "j", base.Add(time.Hour), "a", 1, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: r.ID, State: store.RunSucceeded,
		Prune: &store.HistoryLimits{KeepSucceeded: 2, KeepFailed: 1}}); err != nil {
		t.Fatal(err)
	}
	byTarget := map[string]int{}
	runs, _, _ = s.RunList(ctx, store.RunListParams{Job: "j"})
	for _, r := range runs {
		byTarget[r.Target]++
	}
	if byTarget["a"] != 2 || byTarget["b"] != 2 {
		t.Errorf("after a run's end: runs per node = %v, want 2 each", byTarget)
	}
}

func targetsOf(runs []store.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%d:%s", r.ID, r.Target))
	}
	return out
}

// testRunFinishPrunePerTarget: every way a run ends (RunFinish and
// RunFinishBatch, to every terminal state) prunes the job's history per
// target node: a node's runs never count against another's limits, and
// one node's failure never deletes another node's.
func testRunFinishPrunePerTarget(t *testing.T, s store.Store) {
	ctx := context.Background()
	nodes := []string{"a", "b", "c"}
	limits := &store.HistoryLimits{KeepSucceeded: 2, KeepFailed: 1}
	finishers := []struct {
		name   string
		finish func(job string, ids []int64, state store.RunState) error
	}{
		{"RunFinish", func(_ string, ids []int64, state store.RunState) error {
			for _, id := range ids {
				if _, err := s.RunFinish(ctx, store.RunFinishParams{ID: id, State: state, Prune: limits}); err != nil {
					return err
				}
			}
			return nil
		}},
		{"RunFinishBatch", func(_ string, ids []int64, state store.RunState) error {
			items := make([]store.RunFinishParams, len(ids))
			for i, id := range ids {
				items[i] = store.RunFinishParams{ID: id, State: state, Prune: limits}
			}
			res, err := s.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: items})
			if err != nil {
				return err
			}
			for _, r := range res {
				if r.Err != nil {
					return r.Err
				}
			}
			return nil
		}},
	}
	states := []store.RunState{store.RunSucceeded, store.RunFailed, store.RunKilled, store.RunMissed}
	for _, f := range finishers {
		for _, state := range states {
			job := fmt.Sprintf("%s-%s", f.name, state)
			createJob(t, s, job)
			// Four instants, each on every node, all ending in state.
			for i := range 4 {
				at := base.Add(time.Duration(i) * time.Minute)
				var ids []int64
				for _, n := range nodes {
					r, err := insertTargeted(ctx, s, job, at, n, 1, time.Time{})
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, r.ID)
				}
				if err := f.finish(job, ids, state); err != nil {
					t.Fatalf("%s: finish instant %d as %s: %v", f.name, i, state, err)
				}
			}
			keep := limits.KeepFailed
			if state == store.RunSucceeded {
				keep = limits.KeepSucceeded
			}
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: job})
			if err != nil {
				t.Fatal(err)
			}
			perNode := map[string]int{}
			for _, r := range runs {
				perNode[r.Target]++
			}
			for _, n := range nodes {
				if perNode[n] != keep {
					t.Errorf("%s to %s: node %s keeps %d runs, want %d (runs per node %v)", f.name, state, n, perNode[n], keep, perNode)
				}
			}
			// One node's later failure leaves the others' runs alone.
			r, err := insertTargeted(ctx, s, job, base.Add(time.Hour), "a", 1, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.finish(job, []int64{r.ID}, store.RunFailed); err != nil {
				t.Fatalf("%s: finish a later failure: %v", f.name, err)
			}
			runs, _, _ = s.RunList(ctx, store.RunListParams{Job: job})
			clear(perNode)
			for _, r := range runs {
				perNode[r.Target]++
			}
			for _, n := range nodes[1:] {
				if perNode[n] != keep {
					t.Errorf("%s to %s: after a failure on a, node %s keeps %d runs, want %d", f.name, state, n, perNode[n], keep)
				}
			}
		}
	}
}

// testRunListTime: Since and Until bound the scheduled time (Since
// inclusive, Until exclusive), alone and with the other filters.
func testRunListTime(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	var ids []int64
	for i := range 4 {
		r, err := insertTargeted(ctx, s, "j", base.Add(time.Duration(i)*time.Hour), "a", 1, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	for _, tt := range []struct {
		name         string
		since, until time.Time
		node         string
		want         []int64
	}{
		{"unbounded", time.Time{}, time.Time{}, "", ids},
		{"since inclusive", base.Add(2 * time.Hour), time.Time{}, "", ids[2:]},
		{"until exclusive", time.Time{}, base.Add(2 * time.Hour), "", ids[:2]},
		{"both", base.Add(time.Hour), base.Add(3 * time.Hour), "a", ids[1:3]},
		{"other node", base, base.Add(4 * time.Hour), "b", nil},
		{"empty span", base.Add(time.Hour), base.Add(time.Hour), "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, _, err := s.RunList(ctx, store.RunListParams{Job: "j", Since: tt.since, Until: tt.until, Node: tt.node})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range runs {
				got = append(got, r.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("RunList(since %v, until %v) = %v, want %v", tt.since, tt.until, got, tt.want)
			}
		})
	}
}
