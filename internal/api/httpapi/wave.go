package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/store"
)

// The rolling-wave routes of a fanned-out job: its wave's status, and an
// operator's pause, resume and abort. Like suspend and resume they work on
// jobs of any source: they are operational overrides, not spec edits.

// getWave answers the wave of the job's instant ?instant (RFC 3339;
// default the latest instant that fanned out).
func (s *Server) getWave(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "instant"); err != nil {
		return err
	}
	var instant time.Time
	if v := r.URL.Query().Get("instant"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return badRequest("?instant", fmt.Sprintf("%q is not an RFC 3339 time", v))
		}
		if t.Before(job.MinInstant) || !t.Before(job.MaxInstant) {
			return badRequest("?instant", fmt.Sprintf("%s is outside %s to %s", v, job.MinInstant.Format(time.RFC3339), job.MaxInstant.Format(time.RFC3339)))
		}
		instant = t
	}
	j, err := s.loadJob(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	wave, err := s.cfg.Controller.Wave(r.Context(), j.Spec.Name, instant)
	switch {
	case errors.Is(err, job.ErrNoWave):
		return noWave(j, instant)
	case errors.Is(err, store.ErrNotFound):
		return notFound(j.Spec.Name)
	case err != nil:
		return fmt.Errorf("wave of job %q: %w", j.Spec.Name, err)
	}
	out := waveFromJob(wave)
	if err := s.addWaveWaiting(r.Context(), out.Nodes); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// noWave is the 404 for a job without a wave (at instant, if given).
func noWave(j store.Job, instant time.Time) error {
	msg := fmt.Sprintf("job %q has no wave: no instant of it has fanned out to nodes", j.Spec.Name)
	switch {
	case !instant.IsZero():
		msg = fmt.Sprintf("job %q has no wave at %s: no runs of that instant were fanned out to nodes", j.Spec.Name, instant.UTC().Format(time.RFC3339))
	case !fansOut(j.Spec):
		msg += " (its nodes selector is any: each instant is one run on any node)"
	}
	return &apitype.Error{Code: apitype.CodeNotFound, Message: msg}
}

// fansOut reports whether spec's instants become one run per node.
func fansOut(spec store.JobSpec) bool {
	sel, err := nodeselect.Parse(spec.Nodes)
	return err == nil && sel.Mode != nodeselect.ModeAny
}

// pauseWave holds back the waiting runs of the job's waves and answers the
// job; pausing a job that does not fan out is a conflict, as it would have
// no effect.
func (s *Server) pauseWave(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	j, err := s.loadJob(r.Context(), name)
	if err != nil {
		return err
	}
	if !fansOut(j.Spec) {
		return &apitype.Error{Code: apitype.CodeConflict, Field: "nodes",
			Message: fmt.Sprintf("job %q does not fan out (its nodes selector is any), so it has no waves to pause", name)}
	}
	return s.setSuspend(w, r, s.cfg.Controller.WavePause)
}

// resumeWave lets a paused job's waves go on and answers the job.
func (s *Server) resumeWave(w http.ResponseWriter, r *http.Request) error {
	return s.setSuspend(w, r, s.cfg.Controller.WaveResume)
}

// abortWave ends the job's waiting fanned-out runs as skipped and answers
// how many.
func (s *Server) abortWave(w http.ResponseWriter, r *http.Request) error {
	j, err := s.loadJob(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	n, err := s.cfg.Controller.WaveAbort(r.Context(), j.Spec.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound(j.Spec.Name)
	case err != nil:
		return fmt.Errorf("abort the waves of job %q: %w", j.Spec.Name, err)
	}
	writeJSON(w, http.StatusOK, apitype.WaveAbortResult{Job: j.Spec.Name, Skipped: n})
	return nil
}

// addWaveWaiting fills in why the wave's waiting nodes wait, with one
// store read.
func (s *Server) addWaveWaiting(ctx context.Context, nodes []apitype.WaveNode) error {
	var ids []int64
	for _, n := range nodes {
		if n.State == apitype.WaveNodeWaiting {
			ids = append(ids, n.RunID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	waits, err := s.cfg.Store.RunWaiting(ctx, ids)
	if err != nil {
		return fmt.Errorf("read why the wave's nodes wait: %w", err)
	}
	for i, n := range nodes {
		if w, ok := waits[n.RunID]; ok && n.State == apitype.WaveNodeWaiting {
			nodes[i].Waiting = &apitype.Waiting{Kind: string(w.Kind), Detail: w.Detail, Until: timePtr(w.Until)}
		}
	}
	return nil
}

// waveFromJob converts the controller's wave to the API's.
func waveFromJob(w job.Wave) apitype.Wave {
	out := apitype.Wave{Job: w.Job, Instant: w.Instant.UTC(), State: w.State, MaxParallel: w.MaxParallel,
		MaxFailures: w.MaxFailures, Paused: w.Paused, Nodes: make([]apitype.WaveNode, 0, len(w.Nodes))}
	for _, n := range w.Nodes {
		out.Nodes = append(out.Nodes, apitype.WaveNode{Node: n.Node, State: n.State, RunID: n.RunID, Attempt: n.Attempt, Error: n.Error})
		switch n.State {
		case apitype.WaveNodeWaiting:
			out.Counts.Waiting++
		case apitype.WaveNodeRunning:
			out.Counts.Running++
		case apitype.WaveNodeDone:
			out.Counts.Done++
		case apitype.WaveNodeFailed:
			out.Counts.Failed++
		case apitype.WaveNodeSkipped:
			out.Counts.Skipped++
		}
	}
	out.Counts.Total = len(w.Nodes)
	return out
}
