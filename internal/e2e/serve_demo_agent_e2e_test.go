package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// `serve --demo` without --manifests runs agent mode on the embedded demo
// manifest: its start-up apply is listed by GET /api/v1/applies, changed
// only files under --data, and its schedule is on GET /api/v1/windows.
func TestEndToEndDemoAgent(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	data := t.TempDir()
	d := startDaemon(t, bin, data, "--demo")

	type applies struct {
		Items []struct {
			ID      int64 `json:"id"`
			Status  string
			Trigger struct{ Kind string }
			Summary struct{ Resources, Changed, Failed, Refreshed int }
		} `json:"items"`
	}
	var list applies
	eventually(t, "a start-up apply report", 30*time.Second, func() (bool, error) {
		list = applies{}
		err := getJSON(d.url+"/api/v1/applies", &list)
		return err == nil && len(list.Items) > 0, err
	})
	r := list.Items[len(list.Items)-1]
	if r.Trigger.Kind != "startup" || r.Status != "changed" || r.Summary.Failed != 0 || r.Summary.Refreshed != 1 || r.Summary.Resources < 5 {
		t.Errorf("start-up apply = %+v, want a changed startup apply with one refresh and no failure", r)
	}
	if b, err := os.ReadFile(filepath.Join(data, "demo-agent", "motd")); err != nil || len(b) == 0 {
		t.Errorf("the demo agent did not write its file under --data: %v", err)
	}

	var wl apitype.WindowList
	if err := getJSON(d.url+"/api/v1/windows", &wl); err != nil {
		t.Fatal(err)
	}
	var sched *apitype.Window
	for i := range wl.Items {
		if wl.Items[i].Name == "demo-midday" {
			sched = &wl.Items[i]
		}
	}
	if sched == nil {
		t.Fatalf("GET /api/v1/windows lacks the demo schedule: %+v", wl.Items)
	}
	if sched.Kind != "schedule" || sched.TimeZone != "UTC" || len(sched.Windows) != 5 || sched.WeeklyMinutes != 5*30 {
		t.Errorf("demo-midday = kind %q zone %q, %d spans, %d min a week; want a UTC schedule of five 30-minute spans",
			sched.Kind, sched.TimeZone, len(sched.Windows), sched.WeeklyMinutes)
	}

	// The job of the demo manifest is gated by that schedule.
	var job struct {
		Source string `json:"source"`
		Spec   struct {
			Schedule string `json:"schedule"`
		} `json:"spec"`
	}
	if err := getJSON(d.url+"/api/v1/jobs/demo-midday-report", &job); err != nil {
		t.Fatal(err)
	}
	if job.Source != "manifest" || job.Spec.Schedule != "demo-midday" {
		t.Errorf("job demo-midday-report = %+v, want a manifest job gated by demo-midday", job)
	}
}

// getJSON decodes the JSON answer of a GET to url into v.
func getJSON(url string, v any) error {
	resp, err := authGet(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
