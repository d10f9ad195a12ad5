package apiclient

import (
	"context"
	"net/url"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// Wave returns the wave of a fanned-out job's instant; a zero instant
// means the latest instant that fanned out. A job without one is a 404
// (IsNotFound), as is an unknown job.
func (c *Client) Wave(ctx context.Context, name string, instant time.Time) (apitype.Wave, error) {
	var q url.Values
	if !instant.IsZero() {
		q = url.Values{"instant": {instant.Format(time.RFC3339)}}
	}
	return call[apitype.Wave](ctx, c, "GET", jobPath(name, "wave"), q, nil)
}

// WavePause holds back the waiting runs of a job's waves; runs already
// started go on. It returns the job, whose spec then has wave_paused.
func (c *Client) WavePause(ctx context.Context, name string) (apitype.Job, error) {
	return call[apitype.Job](ctx, c, "POST", jobPath(name, "wave", "pause"), nil, nil)
}

// WaveResume lets a paused job's waves go on and returns the job.
func (c *Client) WaveResume(ctx context.Context, name string) (apitype.Job, error) {
	return call[apitype.Job](ctx, c, "POST", jobPath(name, "wave", "resume"), nil, nil)
}

// WaveAbort ends the waiting runs of a job's waves as skipped; runs
// already started go on.
func (c *Client) WaveAbort(ctx context.Context, name string) (apitype.WaveAbortResult, error) {
	return call[apitype.WaveAbortResult](ctx, c, "POST", jobPath(name, "wave", "abort"), nil, nil)
}
