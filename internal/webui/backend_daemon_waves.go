package webui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/job"
)

// WaveController is what the daemon backend needs of the job controller
// for fanned-out jobs; *job.Controller satisfies it.
type WaveController interface {
	// Wave returns the wave of job's instant; the zero instant means the
	// latest. store.ErrNotFound, or job.ErrNoWave.
	Wave(ctx context.Context, job string, instant time.Time) (job.Wave, error)
	WavePause(ctx context.Context, job string) error
	WaveResume(ctx context.Context, job string) error
	WaveAbort(ctx context.Context, job string) (int, error)
}

// errNoWaves refuses a wave action when the daemon gave the UI no
// controller for them.
var errNoWaves = errors.New("this scheduler does not manage waves")

func (d *daemonBackend) Wave(ctx context.Context, name string) (Wave, error) {
	if d.cfg.Waves == nil {
		return Wave{}, fmt.Errorf("job %q: %w", name, ErrNoWave)
	}
	w, err := d.cfg.Waves.Wave(ctx, name, time.Time{})
	if errors.Is(err, job.ErrNoWave) {
		return Wave{}, fmt.Errorf("%w (%v)", ErrNoWave, err)
	}
	if err != nil {
		return Wave{}, notFound(err)
	}
	return WaveView(w), nil
}

// WaveView converts the job controller's wave for the UI.
func WaveView(w job.Wave) Wave {
	return Wave{
		Instant: w.Instant, State: w.State, MaxParallel: w.MaxParallel, MaxFailures: w.MaxFailures, Paused: w.Paused,
		Done: w.Count(apitype.WaveNodeDone), Running: w.Count(apitype.WaveNodeRunning), Waiting: w.Count(apitype.WaveNodeWaiting),
		Failed: w.Count(apitype.WaveNodeFailed), Skipped: w.Count(apitype.WaveNodeSkipped),
	}
}

func (d *daemonBackend) SetWavesPaused(ctx context.Context, name string, paused bool) error {
	if d.cfg.Waves == nil {
		return errNoWaves
	}
	defer d.forget()
	if paused {
		return notFound(d.cfg.Waves.WavePause(ctx, name))
	}
	return notFound(d.cfg.Waves.WaveResume(ctx, name))
}

func (d *daemonBackend) AbortWaves(ctx context.Context, name string) (int, error) {
	if d.cfg.Waves == nil {
		return 0, errNoWaves
	}
	defer d.forget()
	n, err := d.cfg.Waves.WaveAbort(ctx, name)
	return n, notFound(err)
}
