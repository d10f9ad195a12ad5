package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

// eventCount counts the events the daemon at url lists (at most 1000).
func eventCount(t *testing.T, url string) int {
	t.Helper()
	c, err := apiclient.New(url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.EventList(t.Context(), apiclient.EventFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Items)
}

// TestServeKeepEvents: a daemon started with --keep-events prunes the
// event log a per-second job filled down to the count it keeps, and logs
// that it did.
func TestServeKeepEvents(t *testing.T) {
	t.Parallel()
	bin := almanacBinary(t)
	data := t.TempDir()
	d := startDaemon(t, bin, data)
	d.cli(t, bin, "run", "tick", "--schedule", "@every 1s", "--", "true")
	eventually(t, "30 events", 60*time.Second, func() (bool, error) { return eventCount(t, d.url) >= 30, nil })
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	d = startDaemon(t, bin, data, "--keep-events", "10")
	eventually(t, "the log pruned", 30*time.Second, func() (bool, error) {
		return strings.Contains(d.logs.String(), "pruned the event log"), nil
	})
	// The pruning ran at start: what is listed now is the 10 kept plus
	// what the job added since.
	if n := eventCount(t, d.url); n >= 30 {
		t.Errorf("%d events after pruning to 10", n)
	}
}
