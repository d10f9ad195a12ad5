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

// insertOutage is a store that refuses to create runs while failing is
// set, as a full disk does.
type insertOutage struct {
	fullDisk
}

func (f *insertOutage) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.Store.RunInsertBatch(ctx, p)
}

func (f *insertOutage) RunInsert(ctx context.Context, p store.RunInsertParams) (store.Run, error) {
	if err := f.err(); err != nil {
		return store.Run{}, err
	}
	return f.Store.RunInsert(ctx, p)
}

// TestInstantDuringOutageRunsLate: an instant that comes due while the
// store refuses writes runs once the store is back inside the job's
// starting deadline, as after a restart, instead of being missed.
func TestInstantDuringOutageRunsLate(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.stop()
		disk := &insertOutage{fullDisk{Store: b.st}}
		b.cfg.Store = disk
		b.start()
		b.put(spec("backup", "1h", func(s *store.JobSpec) { s.StartingDeadlineSeconds = ptr(int64(300)) }))

		disk.failing.Store(true)
		b.advance(time.Hour) // the instant comes due; its run cannot be created
		for range 6 {
			b.advance(10 * time.Second)
		}
		if runs := b.runs("backup"); len(runs) != 0 {
			t.Fatalf("during the outage: %v", states(runs))
		}
		disk.failing.Store(false)
		b.advance(10 * time.Second)
		runs := b.runs("backup")
		if len(runs) != 1 || !runs[0].ScheduledTime.Equal(t0.Add(time.Hour)) {
			t.Fatalf("after the outage: %v, want the instant's run, late", states(runs))
		}
		evs, _, err := b.st.EventList(b.ctx, store.EventListParams{Job: "backup", Kinds: []store.EventKind{store.EventRunMissed}})
		if err != nil || len(evs) != 0 {
			t.Errorf("missed events %v, %v; want none", evs, err)
		}
	})
}
