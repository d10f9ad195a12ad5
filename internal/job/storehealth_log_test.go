package job

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestStoreOutageLogs: a store outage of 25 minutes logs one ERROR when it
// starts, a reminder every 10 minutes, and one line when it ends, not an
// ERROR for every failing heartbeat.
func TestStoreOutageLogs(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		var buf syncBuffer
		b.stop()
		disk := &fullDisk{Store: b.st}
		b.cfg.Store = disk
		b.cfg.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
		b.start()
		b.put(spec("backup", "1h"))
		b.advance(time.Hour)

		disk.failing.Store(true)
		b.exitAll("backup", 0)
		for range 25 * 6 {
			b.advance(10 * time.Second)
		}
		disk.failing.Store(false)
		b.advance(10 * time.Second)

		var errors, recovered []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			msg, _ := rec["msg"].(string)
			if rec["level"] == "ERROR" {
				errors = append(errors, msg)
			}
			if msg == "store writes succeed again" {
				recovered = append(recovered, msg)
			}
		}
		want := []string{"store writes fail; finished runs are kept in memory until they succeed", "store writes still fail", "store writes still fail"}
		if strings.Join(errors, "|") != strings.Join(want, "|") || len(recovered) != 1 {
			t.Errorf("ERROR lines %q and %d recovery lines; want %q and 1", errors, len(recovered), want)
		}
		if runs := b.runs("backup"); len(runs) != 1 || runs[0].State != store.RunSucceeded {
			t.Errorf("after the outage: %v", states(runs))
		}
	})
}
