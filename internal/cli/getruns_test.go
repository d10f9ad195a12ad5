package cli

import (
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestGetRunsNodeAndTime: `get runs` always has a NODE column (where the
// run ran, else the node it is for, else "any"), marks an active run's
// down node, and filters by scheduled time with --since and --until (RFC
// 3339 or a duration ago).
func TestGetRunsNodeAndTime(t *testing.T) {
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	st := apitest.NewMemStore()
	api := httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: at}, Clock: clock.NewFake(at),
		Cluster: fixedCluster{Now: at, Nodes: []apitype.ClusterNode{{ID: "db-1", HeartbeatAt: at}, {ID: "db-2", HeartbeatAt: at.Add(-time.Minute)}}}.judged(at, 5*time.Second)})
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	st.PutJob(store.Job{Spec: store.JobSpec{Name: "patch", Cron: "0 * * * *", Shell: "true", Nodes: "all"}, Version: 1})
	old := st.AddRun(store.Run{Job: "patch", ScheduledTime: at.Add(-48 * time.Hour), Attempt: 1, Reason: store.ReasonSchedule,
		State: store.RunSucceeded, Node: "db-1", Target: "db-1", StartedAt: at.Add(-48 * time.Hour), FinishedAt: at.Add(-48*time.Hour + 24*time.Millisecond)})
	running := st.AddRun(store.Run{Job: "patch", ScheduledTime: at.Add(-time.Hour), Attempt: 1, Reason: store.ReasonSchedule,
		State: store.RunRunning, Node: "db-2", Target: "db-2", StartedAt: at.Add(-time.Hour)})
	anyNode := st.AddRun(store.Run{Job: "patch", ScheduledTime: at.Add(-time.Minute), Attempt: 1, Reason: store.ReasonManual, State: store.RunPending})

	out, errOut, code := runCLIAt(t, at, "get", "runs", "--server="+ts.URL)
	if code != 0 {
		t.Fatalf("get runs: %d %s", code, errOut)
	}
	for _, re := range []string{
		`(?m)^ID\s+JOB\s+NODE\s+STATE\s+REASON`,
		`(?m)^` + itoa(old.ID) + `\s+patch\s+db-1\s+succeeded\s.*\s24ms\s+-$`,
		`(?m)^` + itoa(running.ID) + `\s+patch\s+db-2 \(down\)\s+running\s`,
		`(?m)^` + itoa(anyNode.ID) + `\s+patch\s+any\s+pending\s`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	for _, tt := range []struct {
		args []string
		want []int64
	}{
		{[]string{"--since", "24h"}, []int64{running.ID, anyNode.ID}},
		{[]string{"--until", "2030-06-01T11:00:00Z"}, []int64{old.ID}},
		{[]string{"--since", "2030-05-30T00:00:00Z", "--until", "30m"}, []int64{old.ID, running.ID}},
	} {
		out, errOut, code := runCLIAt(t, at, append([]string{"get", "runs", "--server=" + ts.URL}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", tt.args, code, errOut)
		}
		for _, id := range []int64{old.ID, running.ID, anyNode.ID} {
			listed := regexp.MustCompile(`(?m)^` + itoa(id) + `\s`).MatchString(out)
			if want := slices.Contains(tt.want, id); listed != want {
				t.Errorf("get runs %v: run %d listed %v, want %v:\n%s", tt.args, id, listed, want, out)
			}
		}
	}
	if _, errOut, code := runCLIAt(t, at, "get", "runs", "--since", "yesterday", "--server="+ts.URL); code != exitUsage || !strings.Contains(errOut, "--since") {
		t.Errorf("get runs --since yesterday: %d %q", code, errOut)
	}
	if _, errOut, code := runCLIAt(t, at, "get", "jobs", "--since", "1h", "--server="+ts.URL); code != exitUsage || !strings.Contains(errOut, "--since applies to runs") {
		t.Errorf("get jobs --since: %d %q", code, errOut)
	}
}

// TestGetRunsWaiting: a daemon that says why a pending run waits (the
// run's waiting field) gets a WAITING column; one that does not, none.
func TestGetRunsWaiting(t *testing.T) {
	until := time.Date(2030, 6, 2, 2, 0, 0, 0, time.UTC)
	var out strings.Builder
	e := &env{stdout: &out}
	runs := []apitype.Run{
		{ID: 7, Job: "patch", State: apitype.RunPending, Target: "db-1", Attempt: 1,
			Waiting: &apitype.Waiting{Kind: "window", Detail: `node db-1's window "nightly" is closed`, Until: &until}},
		{ID: 6, Job: "patch", State: apitype.RunSucceeded, Node: "db-2", Attempt: 1},
	}
	if err := printRuns(e, runs); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ID\s+JOB\s+NODE\s+STATE.*\sWAITING$`).MatchString(out.String()) ||
		!strings.Contains(out.String(), `window: node db-1's window "nightly" is closed (until `) {
		t.Errorf("output:\n%s", out.String())
	}
	out.Reset()
	if err := printRuns(e, runs[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "WAITING") {
		t.Errorf("a WAITING column with no waiting run:\n%s", out.String())
	}
}
