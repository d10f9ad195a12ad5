package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// A daemon in agent mode runs a gated exec when its few-second window
// opens, although its run interval (30 min) never lands there, and the
// report is visible over the API and the CLI.
func TestEndToEndAgentRunsGatedExecInItsWindow(t *testing.T) {
	bin := almanacBinary(t)
	dir, out := t.TempDir(), t.TempDir()
	// The window opens 4 s from now and lasts 10 s (UTC wall clock).
	open := time.Now().UTC().Add(4 * time.Second).Truncate(time.Second)
	rng := open.Format("15:04:05") + " - " + open.Add(10*time.Second).Format("15:04:05")
	manifest := `
schedule { 'narrow': range => '` + rng + `', period => daily, time_zone => 'UTC' }
exec { 'vacuum':
  command  => 'date -u +%s >> ` + out + `/vacuum',
  schedule => 'narrow',
}
notify { 'hello': message => 'agent mode' }
`
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir, "--run-interval", "30m")
	c := d.client(t)
	ctx := context.Background()
	var gate apitype.ApplyReport
	eventually(t, "a gate-opened apply report", 30*time.Second, func() (bool, error) {
		l, err := c.ApplyList(ctx, "", 0)
		if err != nil {
			return false, err
		}
		for _, r := range l.Items {
			if r.Trigger.Kind == string(agent.TriggerSchedule) {
				gate = r
				return true, nil
			}
		}
		return false, nil
	})
	if gate.Trigger.Schedule != "narrow" || gate.Status != agent.StatusChanged || gate.Summary.Changed != 2 { // the exec and the notify
		t.Errorf("gate report = %+v", gate)
	}
	if gate.Start.Before(open) || gate.Start.After(open.Add(10*time.Second)) {
		t.Errorf("gate apply started at %v, outside the window opening at %v", gate.Start, open)
	}
	b, err := os.ReadFile(filepath.Join(out, "vacuum"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("vacuum ran %d times, want 1", n)
	}
	full, err := c.ApplyGet(ctx, gate.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rs := range full.Resources {
		if rs.Ref == "Exec[vacuum]" {
			found = rs.Status == agent.StatusChanged && rs.Schedule == "narrow" && rs.NextOpening != nil
		}
	}
	if !found {
		t.Errorf("full report resources = %+v", full.Resources)
	}

	// The start-up apply skipped it, and said when the gate would open.
	table := d.cli(t, bin, "get", "applies")
	if !strings.Contains(table, "schedule narrow") || !strings.Contains(table, "startup") {
		t.Errorf("get applies:\n%s", table)
	}
	desc := d.cli(t, bin, "describe", "apply", strconv.FormatInt(gate.ID, 10))
	for _, want := range []string{"Trigger:   schedule narrow (for Exec[vacuum])", "Exec[vacuum]", "changed"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe apply lacks %q:\n%s", want, desc)
		}
	}

	// A manual trigger runs one more apply; the exec stays done for the day.
	q, err := c.ApplyTrigger(ctx, "e2e")
	if err != nil || !q.Queued {
		t.Fatalf("trigger: %+v, %v", q, err)
	}
	eventually(t, "the manual apply's report", 30*time.Second, func() (bool, error) {
		l, err := c.ApplyList(ctx, "", 1)
		if err != nil || len(l.Items) == 0 {
			return false, err
		}
		r := l.Items[0]
		return r.Trigger.Kind == string(agent.TriggerManual) && r.Trigger.Reason == "e2e", nil
	})
	if _, err := c.ApplyGet(ctx, 99999); !apiclient.IsNotFound(err) {
		t.Errorf("missing report: %v, want 404", err)
	}
}

// The daemon's one manifest watcher reloads the jobs and makes the agent
// apply the edited manifests, naming the file in the report.
func TestEndToEndAgentAppliesEditedManifests(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(site, []byte("notify { 'hello': }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, t.TempDir(), "--manifests", dir, "--run-interval", "0")
	c := d.client(t)
	ctx := context.Background()
	eventually(t, "the start-up apply", 30*time.Second, func() (bool, error) {
		l, err := c.ApplyList(ctx, "", 1)
		return err == nil && len(l.Items) == 1, err
	})
	edit := "notify { 'hello': }\njob { 'tick': cron => '0 3 * * *', command => 'true' }\nnotify { 'again': }\n"
	if err := os.WriteFile(site, []byte(edit), 0o644); err != nil {
		t.Fatal(err)
	}
	var r apitype.ApplyReport
	eventually(t, "an apply of the edited manifests", 30*time.Second, func() (bool, error) {
		l, err := c.ApplyList(ctx, "", 1)
		if err != nil || len(l.Items) == 0 {
			return false, err
		}
		r = l.Items[0]
		return r.Trigger.Kind == string(agent.TriggerManifest), nil
	})
	if r.Trigger.Reason != site || r.Summary.Changed != 2 {
		t.Errorf("manifest apply = %+v", r)
	}
	// The same watcher loaded the job.
	eventually(t, "the manifest job", 30*time.Second, func() (bool, error) {
		_, err := c.JobGet(ctx, "tick")
		return err == nil, nil
	})
}
