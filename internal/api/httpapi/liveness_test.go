package httpapi_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/store"
)

// judgedCluster is a ClusterSource whose nodes are judged at t0 with a
// lease TTL of 5 s.
type judgedCluster []apitype.ClusterNode

func (c judgedCluster) Cluster(context.Context) (apitype.Cluster, error) {
	out := apitype.Cluster{Now: t0, Nodes: append([]apitype.ClusterNode(nil), c...)}
	for i := range out.Nodes {
		out.Nodes[i].SetLiveness(t0, 5*time.Second)
	}
	return out, nil
}

// TestRunNodeLiveness: an active run whose node is suspect or down says
// so in node_liveness, in the list and alone; runs on live nodes, runs
// not yet claimed by any node and finished runs do not.
func TestRunNodeLiveness(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *httpapi.Config) {
		c.Cluster = judgedCluster{
			{ID: "up", HeartbeatAt: t0},
			{ID: "paused", HeartbeatAt: t0.Add(-8 * time.Second)},
			{ID: "killed", HeartbeatAt: t0.Add(-time.Minute)},
		}
	})
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true", Nodes: "all"}, Version: 1})
	add := func(r store.Run) int64 {
		r.Job, r.ScheduledTime, r.Attempt, r.Reason = "a", t0, 1, store.ReasonSchedule
		return b.st.AddRun(r).ID
	}
	want := map[int64]string{
		add(store.Run{State: store.RunRunning, Node: "killed", Target: "killed", StartedAt: t0}):                apitype.NodeDown,
		add(store.Run{State: store.RunPending, Target: "paused"}):                                               apitype.NodeSuspect,
		add(store.Run{State: store.RunRunning, Node: "up", Target: "up", StartedAt: t0}):                        "",
		add(store.Run{State: store.RunPending}):                                                                 "",
		add(store.Run{State: store.RunRunning, Node: "gone", StartedAt: t0}):                                    apitype.NodeDown,
		add(store.Run{State: store.RunFailed, Node: "killed", Target: "killed", StartedAt: t0, FinishedAt: t0}): "",
	}
	var page apitype.Page[apitype.Run]
	b.do(t, "GET", "/api/v1/runs?job=a", "").decode(t, &page)
	if len(page.Items) != len(want) {
		t.Fatalf("%d runs listed, want %d", len(page.Items), len(want))
	}
	for _, r := range page.Items {
		if r.NodeLiveness != want[r.ID] {
			t.Errorf("listed run %d (%s on %q for %q): node_liveness %q, want %q", r.ID, r.State, r.Node, r.Target, r.NodeLiveness, want[r.ID])
		}
		var one apitype.Run
		b.do(t, "GET", "/api/v1/runs/"+strconv.FormatInt(r.ID, 10), "").decode(t, &one)
		if one.NodeLiveness != want[r.ID] {
			t.Errorf("run %d alone: node_liveness %q, want %q", r.ID, one.NodeLiveness, want[r.ID])
		}
	}
}

// TestRunsTimeSpan: ?since and ?until bound the runs' scheduled time; a
// time that is not RFC 3339 is a 400 naming the parameter.
func TestRunsTimeSpan(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.st.PutJob(store.Job{Spec: store.JobSpec{Name: "a", Cron: "* * * * *", Shell: "true"}, Version: 1})
	var ids []int64
	for i := range 3 {
		ids = append(ids, b.st.AddRun(store.Run{Job: "a", ScheduledTime: t0.Add(time.Duration(i) * time.Hour), Attempt: 1,
			Reason: store.ReasonSchedule, State: store.RunSucceeded}).ID)
	}
	since, until := t0.Add(time.Hour).Format(time.RFC3339), t0.Add(2*time.Hour).Format(time.RFC3339)
	var page apitype.Page[apitype.Run]
	b.do(t, "GET", "/api/v1/runs?since="+since+"&until="+until, "").decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != ids[1] {
		t.Errorf("runs in [%s, %s) = %+v, want run %d alone", since, until, page.Items, ids[1])
	}
	r := b.do(t, "GET", "/api/v1/runs?since=yesterday", "")
	if e := r.apiErr(t); r.code != 400 || e.Field != "?since" {
		t.Errorf("?since=yesterday: %d %+v", r.code, e)
	}
}
