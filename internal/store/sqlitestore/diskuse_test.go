package sqlitestore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// diskSim drives a store the way a daemon's jobs do: every run is
// inserted with its three events (scheduled, started, succeeded) and its
// captured output, the job's history is pruned to the default limits (3
// succeeded, 1 failed) and the event log to keepEvents.
type diskSim struct {
	t          testing.TB
	s          *Store
	dir        string
	jobs       int
	output     []byte
	keepEvents int
	next       time.Time
}

func newDiskSim(t testing.TB, jobs, outputBytes, keepEvents int) *diskSim {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	d := &diskSim{t: t, s: s, dir: dir, jobs: jobs, output: bytes.Repeat([]byte("x"), outputBytes), keepEvents: keepEvents,
		next: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for j := range jobs {
		if _, err := s.JobCreate(context.Background(), store.JobCreateParams{
			Spec:   store.JobSpec{Name: fmt.Sprintf("job-%04d", j), Cron: "* * * * *", Command: []string{"/usr/local/bin/report", "--daily"}},
			Source: store.SourceAPI, Now: d.next,
		}); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// round runs every job once more and prunes as the daemon does.
func (d *diskSim) round() {
	ctx := context.Background()
	at := d.next
	d.next = d.next.Add(time.Minute)
	for j := range d.jobs {
		job := fmt.Sprintf("job-%04d", j)
		stamp := at.Format(time.RFC3339)
		code := 0
		_, err := d.s.RunInsert(ctx, store.RunInsertParams{
			Run: store.Run{Job: job, ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule, State: store.RunSucceeded,
				Node: "node-1", StartedAt: at, FinishedAt: at.Add(time.Second), ExitCode: &code, Output: d.output},
			Now: at,
			Events: []store.Event{
				{Time: at, Kind: store.EventRunScheduled, Job: job, Message: "scheduled schedule run for " + stamp},
				{Time: at, Kind: store.EventRunStarted, Job: job, Message: "run started on node-1 for " + stamp},
				{Time: at.Add(time.Second), Kind: store.EventRunSucceeded, Job: job, Message: "run succeeded (exit 0) in 1s"},
			},
		})
		if err != nil {
			d.t.Fatal(err)
		}
		if _, err := d.s.RunPrune(ctx, store.RunPruneParams{Job: job, KeepSucceeded: 3, KeepFailed: 1}); err != nil {
			d.t.Fatal(err)
		}
	}
	if _, err := d.s.EventPrune(ctx, store.EventPruneParams{Keep: d.keepEvents}); err != nil {
		d.t.Fatal(err)
	}
}

// size is the database's size on disk after a checkpoint.
func (d *diskSim) size() int64 {
	if _, err := d.s.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		d.t.Fatal(err)
	}
	var total int64
	for _, name := range []string{FileName, FileName + "-wal"} {
		if fi, err := os.Stat(filepath.Join(d.dir, name)); err == nil {
			total += fi.Size()
		}
	}
	return total
}

// TestDiskUseDoesNotGrowWithUptime: with history limits and event
// retention, a store's size levels off: ten times the runs after it
// filled its limits leave it within a few percent of its size then.
func TestDiskUseDoesNotGrowWithUptime(t *testing.T) {
	d := newDiskSim(t, 10, 4096, 300)
	for range 12 {
		d.round()
	}
	full := d.size()
	for range 120 {
		d.round()
	}
	if later := d.size(); float64(later) > float64(full)*1.10 {
		t.Fatalf("the store grew from %d to %d bytes over ten times the runs; disk use must not follow uptime", full, later)
	}
}

// TestDiskUseTable measures what a run and an event cost on disk and
// prints docs/daemon.md's sizing table from them. Opt-in:
//
//	ALMANAC_DISK_TABLE=1 go test -run TestDiskUseTable -v ./internal/store/sqlitestore/
func TestDiskUseTable(t *testing.T) {
	if os.Getenv("ALMANAC_DISK_TABLE") == "" {
		t.Skip("set ALMANAC_DISK_TABLE=1 to measure the sizing table of docs/daemon.md")
	}
	// Cost of a kept run with output of a given size: every run succeeds,
	// so each job keeps 3.
	perRun := func(output int) float64 {
		d := newDiskSim(t, 200, output, 1)
		empty := d.size()
		for range 6 {
			d.round()
		}
		return float64(d.size()-empty) / float64(200*3)
	}
	// Cost of an event: runs without output, events kept.
	d := newDiskSim(t, 100, 0, 1<<30)
	base := d.size()
	for range 100 {
		d.round()
	}
	runsOnly := 100 * 3 * perRun(0)
	perEvent := (float64(d.size()-base) - runsOnly) / float64(100*100*3)
	small, large := perRun(1024), perRun(1<<20)
	t.Logf("measured: a kept run with 1 KiB of output %.0f bytes, with 1 MiB %.0f bytes; an event %.0f bytes", small, large, perEvent)
	var b strings.Builder
	b.WriteString("| jobs | runs per job per day | events kept (30d, at most 100000) | MB, 1 KiB output | MB, 1 MiB output (the cap) |\n|---:|---:|---:|---:|---:|\n")
	for _, jobs := range []int{10, 100, 1000} {
		for _, perDay := range []int{24, 1440} {
			// Each job keeps 3 succeeded and 1 failed run: 4 at most.
			events := min(jobs*perDay*3*30, 100000)
			mb := func(run float64) float64 { return (float64(jobs)*4*run + float64(events)*perEvent) / 1e6 }
			fmt.Fprintf(&b, "| %d | %d | %d | %.1f | %.0f |\n", jobs, perDay, events, mb(small), mb(large))
		}
	}
	t.Log("\n" + b.String())
}
