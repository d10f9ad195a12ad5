package webuitest

import (
	"context"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/webui"
)

// Wave implements webui.Backend the way the job controller derives a
// wave: the latest instant with targeted runs, each target's latest
// attempt, the job's max_parallel resolved for that many targets.
func (b *Backend) Wave(_ context.Context, name string) (webui.Wave, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fj, err := b.lookup(name, true)
	if err != nil {
		return webui.Wave{}, err
	}
	return b.wave(fj)
}

// wave derives the latest wave of fj's job: the fake's runs of the latest
// instant with targeted runs, as store runs (pending ones held, the fake
// has no released runs), given to the job package's own rule, job.WaveOf,
// and shown as the daemon's backend shows it. Called with mu held.
func (b *Backend) wave(fj *fakeJob) (webui.Wave, error) {
	name := fj.job.Name
	var instant time.Time
	var runs []store.Run
	for _, r := range b.runs {
		if r.Job != name || r.Target == "" {
			continue
		}
		switch {
		case r.ScheduledTime.After(instant):
			instant, runs = r.ScheduledTime, runs[:0]
		case r.ScheduledTime.Before(instant):
			continue
		}
		runs = append(runs, store.Run{ID: r.ID, Job: r.Job, ScheduledTime: r.ScheduledTime, Attempt: r.Attempt,
			State: store.RunState(r.State), Target: r.Target, Error: r.Error})
	}
	if len(runs) == 0 {
		return webui.Wave{}, fmt.Errorf("job %q: %w", name, webui.ErrNoWave)
	}
	j := fj.job
	spec := store.JobSpec{Name: name, MaxParallel: j.MaxParallel, MaxFailures: j.MaxFailures, WavePaused: j.WavePaused}
	return webui.WaveView(job.WaveOf(spec, instant, runs)), nil
}

// SetWavesPaused implements webui.Backend, logging wave.paused or
// wave.resumed as the controller does.
func (b *Backend) SetWavesPaused(_ context.Context, name string, paused bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	fj, err := b.lookup(name, false)
	if err != nil {
		return err
	}
	if fj.job.WavePaused == paused {
		return nil
	}
	fj.job.WavePaused = paused
	kind, verb := "wave.resumed", "resumed"
	if paused {
		kind, verb = "wave.paused", "paused"
	}
	b.addEvent(webui.Event{Kind: kind, Job: name, Message: fmt.Sprintf("waves of %s %s", name, verb)})
	return nil
}

// AbortWaves implements webui.Backend: every waiting targeted run of the
// job ends as missed ("skipped: wave aborted").
func (b *Backend) AbortWaves(_ context.Context, name string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.lookup(name, false); err != nil {
		return 0, err
	}
	now := b.clock.Now()
	n := 0
	for i := range b.runs {
		r := &b.runs[i]
		if r.Job != name || r.Target == "" || r.State != webui.RunPending {
			continue
		}
		r.State, r.FinishedAt, r.Error = webui.RunMissed, now, "skipped: wave aborted"
		b.addEvent(webui.Event{Time: now, Kind: "run.skipped", Job: name, RunID: r.ID,
			Message: fmt.Sprintf("run %d on %s skipped: wave aborted", r.ID, r.Target)})
		n++
	}
	return n, nil
}
