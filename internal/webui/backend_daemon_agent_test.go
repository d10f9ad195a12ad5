package webui_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// fakeAgent is an httpapi.Agent over the agent package's memory store,
// holding three reports: changed, a skip, a failed apply.
type fakeAgent struct{ *agent.MemoryStore }

func newFakeAgent(t *testing.T) fakeAgent {
	t.Helper()
	m := agent.NewMemoryStore()
	for i, r := range []agent.Report{
		{Resources: []agent.ResourceStatus{{Ref: "File[/etc/motd]", Status: agent.StatusChanged}}},
		{Resources: []agent.ResourceStatus{{Ref: "Exec[vacuum]", Schedule: "night", Status: agent.StatusSkipped, Reason: "not scheduled"}}},
		{Error: "compile manifests: boom"},
	} {
		r.Trigger = agent.Trigger{Kind: agent.TriggerInterval, At: demoNow.Add(time.Duration(i-3) * time.Hour)}
		r.Start, r.End = r.Trigger.At, r.Trigger.At.Add(time.Second)
		r.Finish()
		if _, err := m.AddReport(t.Context(), &r); err != nil {
			t.Fatal(err)
		}
	}
	return fakeAgent{m}
}

func (fakeAgent) Trigger(string) bool { return true }

func (fakeAgent) Status() agent.Status { return agent.Status{Host: "h", Interval: 30 * time.Minute} }

// fixedCluster is a single-node cluster source.
type fixedCluster struct{}

func (fixedCluster) Cluster(context.Context) (apitype.Cluster, error) {
	return apitype.Cluster{Leader: "solo", Self: "solo", Now: demoNow,
		Nodes: []apitype.ClusterNode{{ID: "solo", Address: "127.0.0.1:8080", Leader: true}}}, nil
}

func TestDaemonBackendApplyNotFound(t *testing.T) {
	h := newDaemonHarness(t)
	if code, body := h.get("/applies/42"); code != http.StatusNotFound {
		t.Errorf("GET /applies/42 = %d\n%s", code, body)
	}
}
