package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/smtptest"
)

// TestNotifyOnFailure runs a failing job with a webhook and an email
// target through a real daemon: the webhook receives the documented JSON
// event and a real SMTP listener the mail; describe shows the targets.
func TestNotifyOnFailure(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	hooks := make(chan map[string]any, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		if err := json.NewDecoder(r.Body).Decode(&ev); err == nil {
			hooks <- ev
		}
	}))
	defer srv.Close()
	smtpAddr, mails := smtptest.Start(t)
	d := startDaemon(t, bin, t.TempDir(), "--smtp", smtpAddr, "--smtp-from", "almanac@example.com")

	d.cli(t, bin, "run", "broken", "--schedule", "0 0 1 1 *", "--notify", srv.URL+"/hook", "--notify", "mailto:ops@example.com",
		"--", "sh", "-c", "echo disk full; exit 3")
	if out := d.cli(t, bin, "describe", "job", "broken"); !strings.Contains(out, "mailto:ops@example.com") || !strings.Contains(out, "failure, missed") {
		t.Errorf("describe does not show the targets:\n%s", out)
	}
	id := triggerRun(t, d, bin, "broken")
	select {
	case ev := <-hooks:
		if ev["event"] != "failure" || ev["job"] != "broken" || ev["run_id"] != float64(id) || ev["exit_code"] != float64(3) ||
			!strings.Contains(ev["output_tail"].(string), "disk full") || !strings.HasSuffix(ev["url"].(string), "/runs/"+strconv.FormatInt(id, 10)) {
			t.Errorf("webhook event %v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook received nothing")
	}
	select {
	case m := <-mails:
		if m.To != "ops@example.com" || !strings.Contains(m.Data, "Subject: [almanac] broken failed") {
			t.Errorf("mail to %q:\n%s", m.To, m.Data)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no mail reached the SMTP listener")
	}
	eventually(t, "the deliveries in the event log", 30*time.Second, func() (bool, error) {
		return strings.Count(d.cli(t, bin, "get", "events", "--job", "broken"), "notify.sent") == 2, nil
	})
}
