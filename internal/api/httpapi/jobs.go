package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/jobname"
	"github.com/almanac-sh/almanac/internal/store"
)

// defaultJobPage is how many jobs GET /jobs returns without ?limit.
const defaultJobPage = 100

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "page", "limit"); err != nil {
		return err
	}
	limit, err := queryCount(r, "limit", defaultJobPage, 1000)
	if err != nil {
		return err
	}
	jobs, err := s.cfg.Store.JobList(r.Context(), store.JobListParams{After: r.URL.Query().Get("page"), Limit: int(limit),
		NamePrefix: access.From(r.Context()).JobPrefix})
	if err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	page := apitype.Page[apitype.Job]{Items: make([]apitype.Job, 0, len(jobs))}
	if bs, ok := s.cfg.Controller.(BatchStatuser); ok {
		sts, err := bs.JobStatuses(r.Context(), jobs)
		if err != nil {
			return fmt.Errorf("status of jobs: %w", err)
		}
		for _, j := range jobs {
			page.Items = append(page.Items, jobFromStore(j, sts[j.Spec.Name]))
		}
	} else {
		for _, j := range jobs {
			v, err := s.jobView(r.Context(), j)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted since the listing
			}
			if err != nil {
				return err
			}
			page.Items = append(page.Items, v)
		}
	}
	if len(jobs) == int(limit) {
		page.NextPage = jobs[len(jobs)-1].Spec.Name
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// jobView joins a stored job with the controller's live status.
func (s *Server) jobView(ctx context.Context, j store.Job) (apitype.Job, error) {
	st, err := s.cfg.Controller.JobStatus(ctx, j)
	if err != nil {
		return apitype.Job{}, fmt.Errorf("status of job %q: %w", j.Spec.Name, err)
	}
	return jobFromStore(j, st), nil
}

func notFound(name string) error {
	return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("job %q not found", name)}
}

func (s *Server) loadJob(ctx context.Context, name string) (store.Job, error) {
	if !jobname.Valid(name) || !access.From(ctx).SeesJob(name) {
		return store.Job{}, notFound(name)
	}
	j, err := s.cfg.Store.JobGet(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return j, notFound(name)
	}
	if err != nil {
		return j, fmt.Errorf("get job %q: %w", name, err)
	}
	return j, nil
}

// respondJob answers with the job as stored now.
func (s *Server) respondJob(w http.ResponseWriter, r *http.Request, name string, code int) error {
	j, err := s.loadJob(r.Context(), name)
	if err != nil {
		return err
	}
	v, err := s.jobView(r.Context(), j)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(name)
	}
	if err != nil {
		return err
	}
	writeJSON(w, code, v)
	return nil
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) error {
	return s.respondJob(w, r, r.PathValue("name"), http.StatusOK)
}

// putJob creates or replaces a job's spec: 201 when created, 200 when
// replaced (or unchanged). The job's status is kept across replacements.
// The controller reads the job once and validates the spec once; the
// answer is the job its write returned.
func (s *Server) putJob(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var in apitype.JobSpec
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	spec, err := specToStore(name, in)
	if err != nil {
		return err
	}
	ctx := r.Context()
	j, created, err := s.cfg.Controller.PutJob(ctx, spec, store.SourceAPI)
	if errors.Is(err, job.ErrManifestJob) {
		return &apitype.Error{Code: apitype.CodeConflict, Field: "name",
			Message: fmt.Sprintf("job %q is declared in a manifest; change it there", name)}
	}
	if err != nil {
		return fmt.Errorf("put job %q: %w", name, err)
	}
	if !access.From(ctx).SeesJob(name) {
		return notFound(name)
	}
	v, err := s.jobView(ctx, j)
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	writeJSON(w, code, v)
	return nil
}

func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	j, err := s.loadJob(ctx, r.PathValue("name"))
	if err != nil {
		return err
	}
	if j.Source == store.SourceManifest {
		return &apitype.Error{Code: apitype.CodeConflict, Field: "name",
			Message: fmt.Sprintf("job %q is declared in a manifest; remove it there", j.Spec.Name)}
	}
	err = s.cfg.Controller.DeleteJob(ctx, j.Spec.Name)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(j.Spec.Name)
	}
	if err != nil {
		return fmt.Errorf("delete job %q: %w", j.Spec.Name, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) triggerJob(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	j, err := s.loadJob(ctx, r.PathValue("name"))
	if err != nil {
		return err
	}
	run, err := s.cfg.Controller.Trigger(ctx, j.Spec.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound(j.Spec.Name)
	case errors.Is(err, store.ErrDuplicate):
		return &apitype.Error{Code: apitype.CodeConflict, Message: fmt.Sprintf("job %q was already triggered at this instant; try again", j.Spec.Name)}
	case err != nil:
		return fmt.Errorf("trigger job %q: %w", j.Spec.Name, err)
	}
	writeJSON(w, http.StatusCreated, apitype.TriggerResult{Run: runFromStore(run)})
	return nil
}

// suspendJob and resumeJob work on jobs of any source: suspending a
// manifest job is an operational override, like kubectl patch. Both are
// idempotent.
func (s *Server) suspendJob(w http.ResponseWriter, r *http.Request) error {
	return s.setSuspend(w, r, s.cfg.Controller.Suspend)
}

func (s *Server) resumeJob(w http.ResponseWriter, r *http.Request) error {
	return s.setSuspend(w, r, s.cfg.Controller.Resume)
}

func (s *Server) setSuspend(w http.ResponseWriter, r *http.Request, op func(context.Context, string) error) error {
	name := r.PathValue("name")
	if _, err := s.loadJob(r.Context(), name); err != nil {
		return err
	}
	err := op(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(name)
	}
	if err != nil {
		return fmt.Errorf("job %q: %w", name, err)
	}
	return s.respondJob(w, r, name, http.StatusOK)
}

// nextFires answers the next ?n (default 5, at most 100) instants after
// ?from (default now) at which the job is scheduled.
func (s *Server) nextFires(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "n", "from"); err != nil {
		return err
	}
	n, err := queryCount(r, "n", 5, 100)
	if err != nil {
		return err
	}
	from := s.cfg.Clock.Now()
	if f := r.URL.Query().Get("from"); f != "" {
		if from, err = time.Parse(time.RFC3339, f); err != nil {
			return badRequest("?from", fmt.Sprintf("%q is not an RFC 3339 time", f))
		}
		if from.Before(job.MinInstant) || !from.Before(job.MaxInstant) {
			return badRequest("?from", fmt.Sprintf("%s is outside %s to %s", f, job.MinInstant.Format(time.RFC3339), job.MaxInstant.Format(time.RFC3339)))
		}
	}
	j, err := s.loadJob(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	fires, err := s.cfg.Controller.JobFires(r.Context(), j.Spec.Name, from, int(n))
	if errors.Is(err, store.ErrNotFound) {
		return notFound(j.Spec.Name)
	}
	if err != nil {
		return fmt.Errorf("next fires of job %q: %w", j.Spec.Name, err)
	}
	zone := j.Spec.TimeZone
	if zone == "" {
		zone = "UTC"
	}
	out := apitype.NextFires{Job: j.Spec.Name, TimeZone: zone, Next: []time.Time{}, Fires: []apitype.Fire{}}
	for _, f := range fires {
		// Instants past year 9999 have no RFC 3339 form: the list ends there.
		if f.Time.Year() > 9999 {
			break
		}
		af := apitype.Fire{Time: f.Time, Outlook: f.Outlook.State, Reason: f.Outlook.Reason}
		if !f.Outlook.Until.IsZero() && f.Outlook.Until.Year() <= 9999 {
			until := f.Outlook.Until.In(f.Time.Location())
			af.Until = &until
		}
		out.Next = append(out.Next, f.Time)
		out.Fires = append(out.Fires, af)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
