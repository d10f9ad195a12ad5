package job

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestControllerLogs checks that starts, finishes, retries, skips and
// misses are logged, one line each, naming the job, the run and the
// scheduled instant.
func TestControllerLogs(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		var buf syncBuffer
		b.stop()
		b.cfg.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
		b.start()
		b.put(spec("retried", "1h", func(s *store.JobSpec) { s.BackoffLimit = 1 }))
		b.advance(time.Hour)
		b.exitAll("retried", 2) // fails, is retried
		b.put(spec("busy", "1m", func(s *store.JobSpec) { s.ConcurrencyPolicy = store.Forbid }))
		b.advance(time.Minute)
		b.advance(time.Minute) // the first busy run still runs: skipped
		b.gates["never"] = closedGate{}
		b.put(spec("gated", "1h", func(s *store.JobSpec) { s.Gate = "never"; s.StartingDeadlineSeconds = ptr(int64(60)) }))
		b.advance(time.Hour)
		b.advance(2 * time.Minute)

		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			msg, _ := rec["msg"].(string)
			if _, ok := rec["job"]; ok {
				if _, ok := rec["instant"]; !ok && msg != "runs missed" {
					t.Errorf("%q names no instant: %s", msg, line)
				}
				seen[msg] = true
			}
		}
		for _, want := range []string{"run started", "run finished", "run retry scheduled", "run skipped", "runs missed"} {
			if !seen[want] {
				t.Errorf("no %q line in the log:\n%s", want, buf.String())
			}
		}
	})
}
