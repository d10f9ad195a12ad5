package job

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// advanceOutage is a store that refuses every write a due instant makes
// (creating its run, recording a missed instant) while failing is set.
type advanceOutage struct {
	insertOutage
}

func (f *advanceOutage) JobAdvance(ctx context.Context, p store.JobAdvanceParams) error {
	if err := f.err(); err != nil {
		return err
	}
	return f.Store.JobAdvance(ctx, p)
}

// TestMissedLoggedOncePerOutage: instants missed while the store refuses
// writes are retried every heartbeat until the store takes them; the
// "runs missed" line is logged once for the episode, not at every retry
// (which once made 123 lines in 11 minutes).
func TestMissedLoggedOncePerOutage(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		var buf syncBuffer
		b.stop()
		disk := &advanceOutage{insertOutage{fullDisk{Store: b.st}}}
		b.cfg.Store = disk
		b.cfg.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
		b.start()
		b.put(spec("tick", "1m", func(s *store.JobSpec) { s.StartingDeadlineSeconds = ptr(int64(5)) }))

		disk.failing.Store(true)
		for range 11 * 6 {
			b.advance(10 * time.Second)
		}
		disk.failing.Store(false)
		for range 6 {
			b.advance(10 * time.Second)
		}

		missed := 0
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			if rec["msg"] == "runs missed" && rec["level"] == "INFO" {
				missed++
			}
		}
		if missed != 1 {
			t.Errorf("%d INFO lines \"runs missed\" over an 11-minute outage and the minute after; want one\n%s", missed, buf.String())
		}
		evs, _, err := b.st.EventList(b.ctx, store.EventListParams{Job: "tick", Kinds: []store.EventKind{store.EventRunMissed}})
		if err != nil || len(evs) == 0 {
			t.Errorf("missed events %v, %v; want the outage's instants recorded once the store is back", evs, err)
		}
	})
}
