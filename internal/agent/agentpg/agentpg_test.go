package agentpg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/agent/agentpg"
	"github.com/almanac-sh/almanac/internal/agent/agenttest"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/leader/fence"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
)

var t0 = time.Date(2026, 6, 1, 2, 0, 0, 0, time.UTC)

func open(t *testing.T, url string) *agentpg.Store {
	t.Helper()
	// The fence its writes call is package leader's.
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := leader.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	s, err := agentpg.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	agenttest.Run(t, func(t *testing.T) agent.StateStore { return open(t, pgtest.Schema(t)) })
}

// The agent's tables live in the job store's schema beside its tables, and
// both keep their data when every node restarts; opening twice (a second
// node, a restart) re-applies no migration.
func TestSharesTheJobStoreSchema(t *testing.T) {
	ctx := t.Context()
	url := pgtest.Schema(t)
	for round := range 2 {
		st, err := pgstore.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		s, err := agentpg.New(ctx, st.Pool())
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := s.SaveState(ctx, agent.State{"Exec[vacuum]": {Checked: t0, Synced: t0}}); err != nil {
				t.Fatal(err)
			}
			r := &agent.Report{Host: "db-7", Trigger: agent.Trigger{Kind: agent.TriggerStartup}, Start: t0, End: t0}
			r.Finish()
			if _, err := s.AddReport(ctx, r); err != nil {
				t.Fatal(err)
			}
			spec := store.JobSpec{Name: "backup", Cron: "0 2 * * *", Shell: "true"}
			if _, err := st.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: store.SourceAPI, Now: t0}); err != nil {
				t.Fatal(err)
			}
		} else {
			state, err := s.LoadState(ctx)
			if err != nil || !state["Exec[vacuum]"].Checked.Equal(t0) {
				t.Errorf("state after restart = %v, %v", state, err)
			}
			reps, err := s.ListReports(ctx, agent.ReportFilter{})
			if err != nil || len(reps) != 1 || reps[0].Host != "db-7" {
				t.Errorf("reports after restart = %v, %v", reps, err)
			}
			if _, err := st.JobGet(ctx, "backup"); err != nil {
				t.Errorf("job store lost its job: %v", err)
			}
		}
		st.Close()
	}
}

// A write under a term commits only while that term leads: a leader that
// lost its lease cannot overwrite its successor's state or add reports.
func TestFencedWrites(t *testing.T) {
	ctx := t.Context()
	url := pgtest.Schema(t)
	s := open(t, url)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	elect := func(holder string) int64 {
		t.Helper()
		if err := leader.Migrate(context.Background(), pool); err != nil {
			t.Fatal(err)
		}
		e, err := leader.New(pool, leader.Config{Name: agentpg.DefaultLeaseName, Holder: holder, TTL: time.Minute, RenewInterval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.Close)
		st, err := e.TryAcquire(ctx)
		if err != nil || !st.Leader {
			t.Fatalf("%s acquire: %+v, %v", holder, st, err)
		}
		return st.Term
	}
	report := func() *agent.Report {
		r := &agent.Report{Host: "a", Trigger: agent.Trigger{Kind: agent.TriggerInterval}, Start: t0, End: t0}
		r.Finish()
		return r
	}

	if err := s.SaveState(agent.WithTerm(ctx, 1), agent.State{"Exec[x]": {Checked: t0}}); !errors.Is(err, fence.ErrStaleTerm) {
		t.Fatalf("write under a term nobody holds: %v, want ErrStaleTerm", err)
	}
	termA := elect("a")
	actx := agent.WithTerm(ctx, termA)
	if err := s.SaveState(actx, agent.State{"Exec[x]": {Checked: t0}}); err != nil {
		t.Fatalf("leader's write: %v", err)
	}
	if _, err := s.AddReport(actx, report()); err != nil {
		t.Fatalf("leader's report: %v", err)
	}
	// b takes over once a's lease has run out.
	if _, err := pool.Exec(ctx, `UPDATE leader SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	termB := elect("b")
	if err := s.SaveState(agent.WithTerm(ctx, termB), agent.State{"Exec[x]": {Checked: t0.Add(time.Hour)}}); err != nil {
		t.Fatalf("new leader's write: %v", err)
	}
	for name, write := range map[string]func() error{
		"SaveState": func() error { return s.SaveState(actx, agent.State{"Exec[x]": {Checked: t0}}) },
		"AddReport": func() error { _, err := s.AddReport(actx, report()); return err },
		"PruneReports": func() error {
			_, err := s.PruneReports(actx, agent.Retention{Keep: 1}, t0)
			return err
		},
	} {
		if err := write(); !errors.Is(err, fence.ErrStaleTerm) {
			t.Errorf("old leader's %s: %v, want ErrStaleTerm", name, err)
		}
	}
	st, err := s.LoadState(ctx)
	if err != nil || !st["Exec[x]"].Checked.Equal(t0.Add(time.Hour)) {
		t.Errorf("state = %v, %v; want the new leader's", st, err)
	}
	if reps, err := s.ListReports(ctx, agent.ReportFilter{}); err != nil || len(reps) != 1 {
		t.Errorf("reports = %d, %v; want only the one written while leading", len(reps), err)
	}
}
