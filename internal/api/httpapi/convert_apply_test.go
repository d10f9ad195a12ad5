package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
)

// TestApplyWireShape: the API's apply types put on the wire exactly what
// the agent records, field for field, so a report reads the same whether
// it came from the store or the API.
func TestApplyWireShape(t *testing.T) {
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	next := at.Add(time.Hour)
	rep := &agent.Report{ID: 7, Host: "db-7", Start: at, End: at.Add(time.Second), Status: agent.StatusChanged, ExitCode: 2, Error: "e",
		Trigger:   agent.Trigger{Kind: agent.TriggerSchedule, Schedule: "nightly", Resources: []string{"Exec[a]"}, Reason: "r", At: at, Coalesced: 2},
		Summary:   agent.Summary{Resources: 3, Changed: 1, Failed: 1, Skipped: 1, Refreshed: 1, Noop: 1, Warnings: 1},
		Resources: []agent.ResourceStatus{{Ref: "Exec[a]", Schedule: "nightly", Status: agent.StatusChanged, Reason: "x", Refreshed: true, EventsDropped: true, NextOpening: &next}},
		Events:    []agent.Event{{Time: at, Level: "Notice", Source: "Exec[a]", Message: "ran"}},
		Warnings:  []agent.Warning{{Ref: "Exec[a]", Schedule: "nightly", Message: "w"}},
	}
	st := agent.Status{Host: "db-7", Interval: time.Hour, Splay: time.Minute, Running: &rep.Trigger, Pending: &rep.Trigger,
		NextInterval: &next, NextGate: &rep.Trigger, Last: rep, Standby: true, Term: 4}
	tests := []struct {
		name        string
		agent, wire any
	}{
		{"report", rep, applyReport(rep)},
		{"status", st, agentStatus(st)},
		{"empty status", agent.Status{}, agentStatus(agent.Status{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := json.Marshal(tt.agent)
			if err != nil {
				t.Fatal(err)
			}
			w, err := json.Marshal(tt.wire)
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(w) {
				t.Errorf("wire form differs from the agent's:\nagent %s\nwire  %s", a, w)
			}
		})
	}
}
