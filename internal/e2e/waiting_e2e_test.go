package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// TestRunWaitingShown: a pending run held by its gate says so in the API's
// run JSON (waiting), in `get runs` and in `describe run`; a run that is
// not waiting has "waiting": null, and its process gets ALMANAC_NODE.
func TestRunWaitingShown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon")
	}
	// A weekly window two days from now: closed now, its next opening known.
	opens := time.Now().UTC().AddDate(0, 0, 2)
	opens = time.Date(opens.Year(), opens.Month(), opens.Day(), 3, 0, 0, 0, time.UTC)
	toml := filepath.Join(t.TempDir(), "later.toml")
	if err := os.WriteFile(toml, []byte(fmt.Sprintf(`[updates.periodic]
time_zone = "UTC"
[[updates.periodic.window]]
days = [ %q ]
start_time = "03:00"
length_minutes = 60
`, opens.Weekday().String()[:3])), 0o600); err != nil {
		t.Fatal(err)
	}
	d := daemontest.Start(t, daemontest.Options{Token: e2eToken, Args: []string{"--windows", "later=" + toml}})
	c, err := apiclient.New(d.URL, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Second).UTC().Truncate(time.Second)
	// A one-shot whose instant has passed is due at once; its gate does
	// not exist, so it waits for it.
	if _, _, err := c.JobPut(context.Background(), "held", apitype.JobSpec{At: &past, Gate: "later",
		Command: apitype.Command{Argv: []string{"true"}}}); err != nil {
		t.Fatal(err)
	}
	var run apitype.Run
	eventually(t, "the run to wait for its gate", 10*time.Second, func() (bool, error) {
		var page apitype.Page[apitype.Run]
		if err := json.Unmarshal([]byte(cliAt(t, d.URL, "get", "runs", "-o", "json")), &page); err != nil {
			return false, err
		}
		for _, r := range page.Items {
			if r.Job == "held" && r.Waiting != nil {
				run = r
				return true, nil
			}
		}
		return false, nil
	})
	if run.State != apitype.RunPending || run.Waiting.Kind != apitype.WaitGate ||
		!strings.Contains(run.Waiting.Detail, `"later" is closed`) || run.Waiting.Until == nil || !run.Waiting.Until.Equal(opens) {
		t.Errorf("run = %+v waiting %+v; want pending, waiting for gate later until %s", run, run.Waiting, opens)
	}
	if out := cliAt(t, d.URL, "get", "runs"); !strings.Contains(out, "WAITING") || !strings.Contains(out, "gate") {
		t.Errorf("get runs does not show why the run waits:\n%s", out)
	}
	out := cliAt(t, d.URL, "describe", "run", strconv.FormatInt(run.ID, 10))
	if !strings.Contains(out, `Waiting:     gate: schedule gate "later" is closed (until `+opens.Local().Format(time.RFC3339)+")") {
		t.Errorf("describe run:\n%s", out)
	}
	// A run that is not held has waiting null, spelt out; its process
	// learns which node runs it.
	if _, _, err := c.JobPut(context.Background(), "free", apitype.JobSpec{At: &past,
		Command: apitype.Command{Shell: `echo "node=$ALMANAC_NODE job=$ALMANAC_JOB"`}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the free run to end", 10*time.Second, func() (bool, error) {
		raw := cliAt(t, d.URL, "get", "runs", "--job", "free", "-o", "json")
		return strings.Contains(raw, `"state": "succeeded"`) && strings.Contains(raw, `"waiting": null`), nil
	})
	var page apitype.Page[apitype.Run]
	if err := json.Unmarshal([]byte(cliAt(t, d.URL, "get", "runs", "--job", "free", "-o", "json")), &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("runs of free: %v %+v", err, page)
	}
	ran := page.Items[0]
	if out := cliAt(t, d.URL, "logs", strconv.FormatInt(ran.ID, 10)); !strings.Contains(out, "node="+ran.Node+" job=free") || ran.Node == "" {
		t.Errorf("the run on node %q printed %q; want ALMANAC_NODE set to it", ran.Node, out)
	}
}
