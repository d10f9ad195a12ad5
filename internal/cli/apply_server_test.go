package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
)

// fakeAgent is an httpapi.Agent that records triggers.
type fakeAgent struct{ reasons []string }

func (f *fakeAgent) Trigger(reason string) bool {
	f.reasons = append(f.reasons, reason)
	return len(f.reasons) == 1
}
func (f *fakeAgent) Status() agent.Status { return agent.Status{Host: "db-7"} }
func (f *fakeAgent) ListReports(context.Context, agent.ReportFilter) ([]*agent.Report, error) {
	return nil, nil
}
func (f *fakeAgent) GetReport(context.Context, int64) (*agent.Report, error) {
	return nil, agent.ErrNotFound
}

func TestApplyServerTriggersTheAgent(t *testing.T) {
	fa := &fakeAgent{}
	api := httpapi.New(httpapi.Config{Store: nilStore{}, Controller: nilController{}})
	api.HandleApplies(fa)
	srv := httptest.NewServer(api)
	defer srv.Close()

	out, errOut, code := runCLI(t, "apply", "--server", srv.URL, "--reason", "deploy 7")
	if code != 0 || !strings.Contains(out, "apply queued on db-7") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = runCLI(t, "apply", "--server="+srv.URL, "-o", "json")
	var q apitype.ApplyQueued
	if code != 0 || json.Unmarshal([]byte(out), &q) != nil || q.Queued {
		t.Fatalf("second trigger: exit %d, %q", code, out)
	}
	if len(fa.reasons) != 2 || fa.reasons[0] != "deploy 7" || fa.reasons[1] != "cli" {
		t.Errorf("reasons = %q", fa.reasons)
	}
	if _, errOut, code := runCLI(t, "apply", "--server", srv.URL, "site.pp"); code != 2 || !strings.Contains(errOut, "unexpected argument") {
		t.Errorf("apply --server FILE: exit %d, %q", code, errOut)
	}
	// Without an agent the route does not exist.
	plain := httptest.NewServer(httpapi.New(httpapi.Config{Store: nilStore{}, Controller: nilController{}}))
	defer plain.Close()
	if _, errOut, code := runCLI(t, "apply", "--server", plain.URL); code != 1 || !strings.Contains(errOut, "this daemon runs no agent") {
		t.Errorf("daemon without agent: exit %d, %q", code, errOut)
	}
	resp, err := http.Get(srv.URL + "/api/v1/applies/abc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET /api/v1/applies/abc = %d, want 400", resp.StatusCode)
	}
}

// nilStore and nilController satisfy httpapi's required dependencies for
// tests that only use the apply routes.
type nilStore struct{ httpapi.Store }
type nilController struct{ httpapi.Controller }
