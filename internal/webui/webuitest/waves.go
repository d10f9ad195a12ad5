package webuitest

import (
	"context"
	"fmt"

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
	if b.err != nil {
		return webui.Wave{}, b.err
	}
	b.settle()
	fj, ok := b.jobs[name]
	if !ok {
		return webui.Wave{}, fmt.Errorf("job %q: %w", name, webui.ErrNotFound)
	}
	return b.wave(fj)
}

// wave derives the latest wave of fj's job. Called with mu held.
func (b *Backend) wave(fj *fakeJob) (webui.Wave, error) {
	name := fj.job.Name
	latest := map[string]webui.Run{}
	var w webui.Wave
	for _, r := range b.runs {
		if r.Job != name || r.Target == "" {
			continue
		}
		switch {
		case r.ScheduledTime.After(w.Instant):
			w.Instant, latest = r.ScheduledTime, map[string]webui.Run{}
		case r.ScheduledTime.Before(w.Instant):
			continue
		}
		if o, seen := latest[r.Target]; !seen || r.Attempt > o.Attempt {
			latest[r.Target] = r
		}
	}
	if len(latest) == 0 {
		return webui.Wave{}, fmt.Errorf("job %q: %w", name, webui.ErrNoWave)
	}
	j := fj.job
	w.MaxParallel = job.WaveLimit(store.JobSpec{MaxParallel: j.MaxParallel}, len(latest))
	w.MaxFailures, w.Paused = j.MaxFailures, j.WavePaused
	for _, r := range latest {
		switch r.State {
		case webui.RunSucceeded:
			w.Done++
		case webui.RunRunning:
			w.Running++
		case webui.RunPending:
			w.Waiting++
		case webui.RunMissed:
			w.Skipped++
		default:
			w.Failed++
		}
	}
	switch {
	case w.MaxFailures > 0 && w.Failed >= w.MaxFailures:
		w.State = webui.WaveStateStopped
	case w.Running+w.Waiting == 0:
		w.State = webui.WaveStateDone
	case w.Paused:
		w.State = webui.WaveStatePaused
	default:
		w.State = webui.WaveStateRunning
	}
	return w, nil
}

// SetWavesPaused implements webui.Backend, logging wave.paused or
// wave.resumed as the controller does.
func (b *Backend) SetWavesPaused(_ context.Context, name string, paused bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	fj, ok := b.jobs[name]
	if !ok {
		return fmt.Errorf("job %q: %w", name, webui.ErrNotFound)
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
	if b.err != nil {
		return 0, b.err
	}
	if _, ok := b.jobs[name]; !ok {
		return 0, fmt.Errorf("job %q: %w", name, webui.ErrNotFound)
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
