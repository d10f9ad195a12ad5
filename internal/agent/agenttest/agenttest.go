// Package agenttest is the conformance suite every agent.StateStore passes:
// state round trips, report ids, listing order and paging, and retention.
package agenttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
)

var t0 = time.Date(2026, 6, 1, 2, 0, 0, 0, time.UTC)

func report(i int) *agent.Report {
	start := t0.Add(time.Duration(i) * time.Hour)
	next := start.Add(24 * time.Hour)
	r := &agent.Report{
		Host:    "db-7",
		Trigger: agent.Trigger{Kind: agent.TriggerSchedule, Schedule: "maint", Resources: []string{"Exec[vacuum]"}, At: start},
		Start:   start, End: start.Add(1500 * time.Millisecond),
		Resources: []agent.ResourceStatus{
			{Ref: "Exec[vacuum]", Schedule: "maint", Status: agent.StatusChanged, NextOpening: &next},
			{Ref: "Exec[reload]", Status: agent.StatusSkipped, Reason: agent.ReasonNotScheduled, EventsDropped: true},
		},
		Events:   []agent.Event{{Time: start, Level: "Notice", Source: "Exec[vacuum]/returns", Message: "executed successfully"}},
		Warnings: []agent.Warning{{Ref: "Exec[x]", Schedule: "s", Message: "never"}},
	}
	r.Finish()
	return r
}

// Run runs the suite; open returns a new, empty store for each subtest.
func Run(t *testing.T, open func(t *testing.T) agent.StateStore) {
	t.Run("state round trip", func(t *testing.T) { testState(t, open(t)) })
	t.Run("reports", func(t *testing.T) { testReports(t, open(t)) })
	t.Run("retention", func(t *testing.T) { testRetention(t, open(t)) })
}

// testState saves resource states twice (the second save replaces the
// first: one entry changed, one gone) and reads them back.
func testState(t *testing.T, s agent.StateStore) {
	ctx := context.Background()
	st, err := s.LoadState(ctx)
	if err != nil || len(st) != 0 {
		t.Fatalf("empty store state = %v, %v", st, err)
	}
	want := agent.State{
		"Exec[a]":      {Checked: t0, Synced: t0.Add(-time.Hour)},
		"File[/etc/x]": {Checked: t0.Add(time.Second)},
		"Service['n']": {},
	}
	if err := s.SaveState(ctx, want); err != nil {
		t.Fatal(err)
	}
	delete(want, "Service['n']")
	want["Exec[a]"] = agent.ResourceState{Checked: t0.Add(time.Minute)}
	if err := s.SaveState(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("state = %v, want %v", got, want)
	}
	for ref, w := range want {
		g := got[ref]
		if !g.Checked.Equal(w.Checked) || !g.Synced.Equal(w.Synced) || g.Checked.IsZero() != w.Checked.IsZero() {
			t.Errorf("%s = %+v, want %+v", ref, g, w)
		}
	}
}

// testReports adds reports and lists them newest first (heads only), by
// page, and one in full.
func testReports(t *testing.T, s agent.StateStore) {
	ctx := context.Background()
	var ids []int64
	for i := range 5 {
		r := report(i)
		id, err := s.AddReport(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if id != r.ID || (len(ids) > 0 && id <= ids[len(ids)-1]) {
			t.Fatalf("id %d (report says %d) after %v", id, r.ID, ids)
		}
		ids = append(ids, id)
	}
	list, err := s.ListReports(ctx, agent.ReportFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 5 || list[0].ID != ids[4] || list[4].ID != ids[0] {
		t.Fatalf("list ids %v, want newest first of %v", idsOf(list), ids)
	}
	head := list[0]
	if head.Resources != nil || head.Events != nil {
		t.Error("list carries resources or events")
	}
	if head.Trigger.Schedule != "maint" || head.Summary.Changed != 1 || head.Summary.Warnings != 1 ||
		len(head.Warnings) != 1 || head.Status != agent.StatusChanged || head.ExitCode != 2 ||
		!head.Start.Equal(t0.Add(4*time.Hour)) || !head.End.Equal(t0.Add(4*time.Hour+1500*time.Millisecond)) {
		t.Errorf("list head = %+v", head)
	}
	page, err := s.ListReports(ctx, agent.ReportFilter{Before: ids[3], Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] {
		t.Errorf("page ids %v, want %v %v", idsOf(page), ids[2], ids[1])
	}
	full, err := s.GetReport(ctx, ids[2])
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Resources) != 2 || len(full.Events) != 1 || !full.Resources[1].EventsDropped ||
		full.Resources[0].NextOpening == nil || !full.Resources[0].NextOpening.Equal(t0.Add(26*time.Hour)) ||
		full.Events[0].Message != "executed successfully" {
		t.Errorf("full report = %+v", full)
	}
	if _, err := s.GetReport(ctx, ids[4]+100); !errors.Is(err, agent.ErrNotFound) {
		t.Errorf("missing report: %v, want ErrNotFound", err)
	}
}

// testRetention prunes reports by count and by age; a zero retention keeps
// everything.
func testRetention(t *testing.T, s agent.StateStore) {
	ctx := context.Background()
	for i := range 6 {
		if _, err := s.AddReport(ctx, report(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Keep the newest 4, then those that ended within 2.5 hours of the
	// last one's start.
	n, err := s.PruneReports(ctx, agent.Retention{Keep: 4}, t0.Add(6*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("prune by count deleted %d, %v; want 2", n, err)
	}
	n, err = s.PruneReports(ctx, agent.Retention{MaxAge: 150 * time.Minute}, t0.Add(6*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("prune by age deleted %d, %v; want 2", n, err)
	}
	list, err := s.ListReports(ctx, agent.ReportFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || !list[1].Start.Equal(t0.Add(4*time.Hour)) {
		t.Errorf("kept %v", idsOf(list))
	}
	n, err = s.PruneReports(ctx, agent.Retention{}, t0.Add(100*time.Hour))
	if err != nil || n != 0 {
		t.Errorf("zero retention deleted %d, %v", n, err)
	}
}

func idsOf(rs []*agent.Report) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
