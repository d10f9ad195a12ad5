package agentsql_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/agent/agentsql"
	"github.com/almanac-sh/almanac/internal/agent/agenttest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

func TestConformance(t *testing.T) {
	agenttest.Run(t, func(t *testing.T) agent.StateStore {
		s, db, err := agentsql.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "agent.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s
	})
}

// The agent's tables live in the daemon store's database file next to its
// own, and survive a restart of both.
func TestSharesTheDaemonDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t0 := time.Date(2026, 6, 1, 2, 0, 0, 0, time.UTC)
	for round := range 2 {
		st, err := sqlitestore.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		s, db, err := agentsql.OpenSQLite(ctx, st.Path())
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := s.SaveState(ctx, agent.State{"Exec[vacuum]": {Checked: t0, Synced: t0}}); err != nil {
				t.Fatal(err)
			}
			r := &agent.Report{Trigger: agent.Trigger{Kind: agent.TriggerStartup}, Start: t0, End: t0}
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
			if err != nil {
				t.Fatal(err)
			}
			if !state["Exec[vacuum]"].Checked.Equal(t0) {
				t.Errorf("state after restart = %v", state)
			}
			reps, err := s.ListReports(ctx, agent.ReportFilter{})
			if err != nil || len(reps) != 1 || reps[0].Trigger.Kind != agent.TriggerStartup {
				t.Errorf("reports after restart = %v, %v", reps, err)
			}
			if _, err := st.JobGet(ctx, "backup"); err != nil {
				t.Errorf("daemon store lost its job: %v", err)
			}
		}
		db.Close()
		st.Close()
	}
}

// TestAdoptsTablesMadeBeforeMigrations: a database whose agent tables were
// created before they had migrations keeps its reports when a newer
// daemon opens it.
func TestAdoptsTablesMadeBeforeMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE agent_state (ref TEXT PRIMARY KEY, checked INTEGER NOT NULL, synced INTEGER NOT NULL)`,
		`CREATE TABLE agent_reports (id INTEGER PRIMARY KEY AUTOINCREMENT, started INTEGER NOT NULL, ended INTEGER NOT NULL,
			status TEXT NOT NULL, trigger_kind TEXT NOT NULL, head TEXT NOT NULL, body TEXT NOT NULL)`,
		`CREATE INDEX agent_reports_ended ON agent_reports (ended)`,
		`INSERT INTO agent_reports (started, ended, status, trigger_kind, head, body) VALUES (1, 2, 'changed', 'startup', '{"id":1,"status":"changed"}', '{}')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, db, err := agentsql.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reps, err := s.ListReports(ctx, agent.ReportFilter{Limit: 10})
	if err != nil || len(reps) != 1 || reps[0].Status != "changed" {
		t.Fatalf("reports after the upgrade = %+v, %v; want the old one", reps, err)
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT MAX(version) FROM agent_schema_version`).Scan(&v); err != nil || v != 1 {
		t.Fatalf("agent_schema_version = %d, %v; want 1", v, err)
	}
}
