package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// The demo fleet is live in `serve --demo`: `get resources` lists all eight
// machines, the invalid ones with their errors, and the event log holds each
// finding with its key and value.
func TestEndToEndDemoFleet(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	d := startDaemon(t, bin, t.TempDir(), "--demo")
	// The first inventory runs in the background after start-up; wait
	// for it to be recorded before reading what it found.
	eventually(t, "the demo fleet's first inventory", 30*time.Second, func() (bool, error) {
		var l apitype.ResourceList
		err := json.Unmarshal([]byte(d.cli(t, bin, "get", "resources", "-o", "json")), &l)
		return err == nil && l.LastInventory != nil, err
	})

	out := d.cli(t, bin, "get", "resources")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("get resources: want a header and 8 machines:\n%s", out)
	}
	for _, want := range []string{
		`(?m)^demo-broken-1\s+broken-1\s+running\s+errors\s+UTC\s+-\s+-\s+1\s+0$`,
		`(?m)^demo-clash-1\s+clash-1\s+stopped\s+errors\s+Asia/Tokyo\s+-\s+-\s+1\s+0$`,
		`(?m)^demo-nozone-1\s+nozone-1\s+running\s+errors\s+-\s+-\s+-\s+1\s+0$`,
		`(?m)^demo-legacy-1\s+legacy-1\s+running\s+warnings\s+America/New_York\s+\S+-0[45]:00\s+\S+-0[45]:00\s+0\s+2$`,
		`(?m)^demo-db-1\s+db-1\s+running\s+unscheduled\s`,
		`(?m)^demo-web-1\s+web-1\s+running\s+ok\s+America/New_York\s`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("get resources has no line matching %s:\n%s", want, out)
		}
	}

	var list apitype.ResourceList
	if err := json.Unmarshal([]byte(d.cli(t, bin, "get", "resources", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	wantErr := map[string]string{
		"demo-broken-1": "almanac-schedule-start is an invalid schedule: mon0900_tue2500",
		"demo-clash-1":  "have the same time value: tue0800",
		"demo-nozone-1": "almanac-schedule-timezone is missing",
	}
	for _, r := range list.Items {
		msg, bad := wantErr[r.ID]
		switch {
		case bad && (len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, msg) || r.Actionable):
			t.Errorf("%s errors = %+v, want one containing %q", r.ID, r.Errors, msg)
		case !bad && len(r.Errors) != 0:
			t.Errorf("%s has errors %+v", r.ID, r.Errors)
		}
	}
	if len(list.Items) != 8 || list.LastInventory == nil {
		t.Fatalf("json list: %d items, last inventory %v", len(list.Items), list.LastInventory)
	}

	events := d.cli(t, bin, "get", "events", "--resource", "demo-broken-1", "--kind", "resource.validation-error", "-o", "json")
	var page apitype.Page[apitype.Event]
	if err := json.Unmarshal([]byte(events), &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("validation events of broken-1: %v\n%s", err, events)
	}
	var data struct{ Key, Value string }
	json.Unmarshal(page.Items[0].Data, &data)
	if page.Items[0].Resource != "demo-broken-1" || data.Key != "almanac-schedule-start" || data.Value != "mon0900_tue2500" {
		t.Errorf("validation event = %+v (data %s)", page.Items[0], page.Items[0].Data)
	}

	desc := d.cli(t, bin, "describe", "resource", "demo-batch-1")
	for _, want := range []string{"Time zone:             Europe/Berlin", "Stop hibernates:       true",
		"Week (Europe/Berlin):", "  Mon  " + strings.Repeat(".", 44) + "S###\n", "  Tue  " + strings.Repeat("#", 12) + "H."} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe resource demo-batch-1 lacks %q:\n%s", want, desc)
		}
	}
	if out := d.cli(t, bin, "inventory"); !regexp.MustCompile(`^inventory at \S+: 8 resources\n$`).MatchString(out) {
		t.Errorf("inventory: %q", out)
	}
}

// fleetScripts writes a command-driven fleet into dir: inventory.sh lists
// vm-1 and vm-2 from <id>.state and <id>.tags files, action.sh appends
// "<action> <id>" to the actions file and fails while fail-<id> exists.
func fleetScripts(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"inventory.sh": `#!/bin/sh
d=$(dirname "$0")
printf '['
sep=''
for id in vm-1 vm-2; do
  printf '%s{"id":"%s","state":"%s","tags":%s}' "$sep" "$id" "$(cat "$d/$id.state")" "$(cat "$d/$id.tags")"
  sep=','
done
printf ']\n'
`,
		"action.sh": `#!/bin/sh
d=$(dirname "$0")
echo "$1 $2" >> "$d/actions"
if [ -e "$d/fail-$2" ]; then echo "$1 refused by the test" >&2; exit 1; fi
case $1 in start) echo running > "$d/$2.state" ;; stop) echo stopped > "$d/$2.state" ;; esac
`,
		"vm-1.state": "running\n",
		"vm-2.state": "running\n",
		"fail-vm-2":  "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeTags(t *testing.T, dir, id string, tags map[string]string) {
	t.Helper()
	b, _ := json.Marshal(tags)
	if err := os.WriteFile(filepath.Join(dir, id+".tags"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readActions(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "actions"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
}

// A command-driven fleet on a daemon (run in-process, so the test can set
// its clock) five seconds before a stop transition: the
// stop runs exactly once, at its instant, and is in the event log; a stop
// that keeps failing is retried and then reported to the webhook; a restart
// acts on nothing again; a tag change is picked up by `almanac inventory`
// and notified.
func TestEndToEndCommandFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test runs fleet commands for several seconds; skipped with -short")
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	fleetScripts(t, dir)

	notes := make(chan map[string]any, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &n); err != nil {
			t.Errorf("webhook body %q: %v", b, err)
		}
		notes <- n
	}))
	defer hook.Close()

	// The transition: the next whole minute an hour from now, in UTC.
	real := time.Now()
	at := real.Add(time.Hour).Truncate(time.Minute).UTC()
	offset := at.Sub(real) - 5*time.Second
	stopTag := strings.ToLower(at.Weekday().String()[:3]) + at.Format("1504")
	tags := func(notify string) map[string]string {
		return map[string]string{"almanac-schedule-stop": stopTag, "almanac-schedule-timezone": "utc", "almanac-schedule-notify": notify, "owner": "e2e"}
	}
	writeTags(t, dir, "vm-1", tags("one@example.com"))
	writeTags(t, dir, "vm-2", tags("two@example.com"))

	q := func(s string) string { return "'" + s + "'" }
	flags := []string{
		"--inventory-command", "sh " + q(filepath.Join(dir, "inventory.sh")),
		"--start-command", "sh " + q(filepath.Join(dir, "action.sh")) + " start",
		"--stop-command", "sh " + q(filepath.Join(dir, "action.sh")) + " stop",
		"--retry-for", "2s", "--retry-backoff", "250ms",
		"--notify-webhook", hook.URL,
	}
	data := t.TempDir()
	clk := offsetClock{offset}
	d := daemontest.Start(t, daemontest.Options{Data: data, Clock: clk, Token: e2eToken, Args: flags})
	c, _ := apiclient.New(d.URL, apiclient.WithToken(e2eToken))

	var failed apitype.Event
	eventually(t, "vm-2's stop fails for good", 30*time.Second, func() (bool, error) {
		p, err := c.EventList(ctx, apiclient.EventFilter{Resource: "vm-2", Kinds: []string{"resource.action-failed"}})
		if err != nil || len(p.Items) == 0 {
			return false, err
		}
		failed = p.Items[0]
		return true, nil
	})
	var n map[string]any
	select {
	case n = <-notes:
	case <-time.After(30 * time.Second):
		t.Fatal("no webhook notification after the failed stop")
	}
	if n["kind"] != "action-failed" || n["to"] != "two@example.com" || n["resource"] != "vm-2" || !strings.Contains(n["body"].(string), "stop refused by the test") {
		t.Errorf("notification = %v", n)
	}
	if !strings.Contains(failed.Message, "failed after") {
		t.Errorf("action-failed event = %+v", failed)
	}

	// vm-1 stopped once, at the instant; vm-2 was tried several times.
	acts := readActions(t, dir)
	var vm1, vm2 int
	for _, a := range acts {
		switch a {
		case "stop_vm-1":
			vm1++
		case "stop_vm-2":
			vm2++
		default:
			t.Errorf("unexpected action %q", a)
		}
	}
	if vm1 != 1 || vm2 < 3 {
		t.Fatalf("actions = %v; want vm-1 stopped once and vm-2 tried at least 3 times", acts)
	}
	p, err := c.EventList(ctx, apiclient.EventFilter{Resource: "vm-1", Kinds: []string{"resource.action-started", "resource.action-succeeded"}})
	if err != nil || len(p.Items) != 2 {
		t.Fatalf("vm-1 action events = %+v, %v", p.Items, err)
	}
	for _, e := range p.Items {
		var d struct {
			Transition time.Time `json:"transition"`
			Action     string    `json:"action"`
		}
		json.Unmarshal(e.Data, &d)
		if !d.Transition.Equal(at) || d.Action != "stop" || e.Time.Before(at) || e.Time.After(at.Add(5*time.Second)) {
			t.Errorf("vm-1 event %s at %v, data %s; want the stop of %v, at that instant", e.Kind, e.Time, e.Data, at)
		}
	}
	if r, err := c.ResourceGet(ctx, "vm-1"); err != nil || r.State != "stopped" || r.NextStop == nil || !r.NextStop.Equal(at.AddDate(0, 0, 7)) {
		t.Fatalf("vm-1 after the stop = %+v, %v", r, err)
	}

	// Restart: the daemon loads its claims and checkpoint and acts on nothing.
	d.Stop()
	d2 := daemontest.Start(t, daemontest.Options{Data: data, Clock: clk, Token: e2eToken, Args: flags})
	cliAt(t, d2.URL, "inventory") // returns after the start-up round
	if got := readActions(t, dir); len(got) != len(acts) {
		t.Fatalf("actions after restart = %v, want still %v", got, acts)
	}

	// A tag change is seen by the next inventory and notified.
	writeTags(t, dir, "vm-1", map[string]string{"almanac-schedule-stop": "sat2300", "almanac-schedule-timezone": "utc", "almanac-schedule-notify": "one@example.com"})
	if out := cliAt(t, d2.URL, "inventory"); !strings.Contains(out, ": 2 resources") {
		t.Fatalf("inventory: %q", out)
	}
	select {
	case n = <-notes:
	case <-time.After(30 * time.Second):
		t.Fatal("no notification of the tag change")
	}
	if n["kind"] != "schedule-changed" || n["to"] != "one@example.com" || n["resource"] != "vm-1" {
		t.Errorf("tag change notification = %v", n)
	}
	ev := cliAt(t, d2.URL, "get", "events", "--resource", "vm-1", "--kind", "resource.tag-updated")
	if !strings.Contains(ev, "almanac-schedule-stop") || !strings.Contains(ev, "sat2300") {
		t.Errorf("tag-updated events:\n%s", ev)
	}
	if out := cliAt(t, d2.URL, "describe", "resource", "vm-1"); !strings.Contains(out, "  Sat  "+strings.Repeat(".", 46)+"X.\n") {
		t.Errorf("describe after the tag change:\n%s", out)
	}
}
