package jobnotify_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/jobnotify"
	"github.com/almanac-sh/almanac/internal/servetest"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestFailedWebhookKeepsItsPathSecret: a webhook that cannot be reached is
// logged and recorded with its host only. The HTTP client's own error
// names the whole URL, whose path is the credential of a Slack webhook.
func TestFailedWebhookKeepsItsPathSecret(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: the post fails to connect
	logs := &servetest.Log{}
	evs := &events{}
	n := jobnotify.New(jobnotify.Config{Events: evs, Clock: clock.NewFake(t0), Backoff: time.Minute, Attempts: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)
	for _, target := range []string{"http://" + addr + "/services/T0/B0/HOOKSECRET", "slack+http://" + addr + "/services/T1/B1/SLACKSECRET"} {
		n.Report(ctx, failure(store.JobSpec{Name: "backup", Notify: []string{target}}))
	}
	until(t, "both failures recorded", func() bool { return len(evs.kinds()) == 2 })
	evs.mu.Lock()
	var recorded strings.Builder
	for _, e := range evs.evs {
		recorded.WriteString(e.Message + string(e.Data) + "\n")
	}
	evs.mu.Unlock()
	for what, text := range map[string]string{"log": logs.String(), "events": recorded.String()} {
		if strings.Contains(text, "SECRET") || strings.Contains(text, "/services") {
			t.Errorf("the %s show a webhook's path:\n%s", what, text)
		}
		if !strings.Contains(text, addr) {
			t.Errorf("the %s do not name the webhook's host %s:\n%s", what, addr, text)
		}
	}
}
