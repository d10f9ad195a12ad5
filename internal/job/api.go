package job

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// CreateJob validates and stores a new job; store.ErrDuplicate if the name
// is taken, *ValidationError if the spec is invalid.
func (c *Controller) CreateJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, error) {
	host, err := c.check(&spec, src)
	if err != nil {
		return store.Job{}, err
	}
	return c.create(ctx, spec, src, host)
}

// check validates spec (completing it with its defaults) and what the
// host and the caller know of it; it returns the events to record with
// the job (job.unrunnable for a manifest job this host cannot run).
func (c *Controller) check(spec *store.JobSpec, src store.Source) ([]store.Event, error) {
	if c.cfg.Accept != nil {
		if err := c.cfg.Accept(*spec); err != nil {
			return nil, err
		}
	}
	if err := Validate(spec, c.cfg.Parse); err != nil {
		return nil, err
	}
	return c.hostCheck(*spec, src)
}

// create stores a new job from a checked spec.
func (c *Controller) create(ctx context.Context, spec store.JobSpec, src store.Source, host []store.Event) (store.Job, error) {
	j, err := c.st.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: src, Now: c.clock.Now(),
		Events: append([]store.Event{{Kind: store.EventJobCreated, Message: fmt.Sprintf("job %s created (%s)", spec.Name, src)}}, host...)})
	if err != nil {
		return store.Job{}, err
	}
	c.warnHost(host)
	c.Notify(spec.Name)
	return j, nil
}

// warnHost logs the job.unrunnable events hostCheck returned, once they
// are stored.
func (c *Controller) warnHost(events []store.Event) {
	for _, e := range events {
		c.log.Warn(e.Message, "kind", e.Kind)
	}
}

// ErrManifestJob is PutJob's refusal to let a write from anywhere but the
// manifests replace a job a manifest declares.
var ErrManifestJob = errors.New("declared in a manifest")

// putAttempts bounds how many times PutJob reads the job and writes it
// when other writers keep changing it in between.
const putAttempts = 5

// PutJob creates the job or replaces its spec (a manifest load, an API
// PUT). A change takes effect from the job's next run; if the schedule
// itself (cron, cron_dialect, on_calendar, at, time_zone) changed, instants before now are not
// caught up under the new schedule. created reports which happened. A
// spec equal to the stored one changes nothing and records nothing. A job
// a manifest declares is replaced only from the manifests (ErrManifestJob).
//
// It reads the job once and checks the spec once; only when another
// writer created or changed the job between that read and its write does
// it read again, at most putAttempts times in all.
func (c *Controller) PutJob(ctx context.Context, spec store.JobSpec, src store.Source) (j store.Job, created bool, err error) {
	var host []store.Event
	checked := false
	for attempt := 1; ; attempt++ {
		old, err := c.st.JobGet(ctx, spec.Name)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.Job{}, false, err
		}
		if exists {
			if unchanged, err := CheckReplace(old, spec, src); err != nil || unchanged {
				return old, false, err
			}
		}
		if !checked {
			if host, err = c.check(&spec, src); err != nil {
				return store.Job{}, false, err
			}
			checked = true
		}
		if !exists {
			j, err = c.create(ctx, spec, src, host)
			if errors.Is(err, store.ErrDuplicate) && attempt < putAttempts {
				continue // another writer created it first: replace theirs
			}
			return j, err == nil, err
		}
		j, err = c.update(ctx, old, spec, src, host)
		if errors.Is(err, store.ErrConflict) && attempt < putAttempts {
			continue // another writer changed it since the read
		}
		return j, false, err
	}
}

// update replaces old's spec with a checked one, if old is still the
// stored version (store.ErrConflict if not).
func (c *Controller) update(ctx context.Context, old store.Job, spec store.JobSpec, src store.Source, host []store.Event) (store.Job, error) {
	now := c.clock.Now()
	kind, msg := store.EventJobUpdated, fmt.Sprintf("job %s updated (%s)", spec.Name, src)
	switch {
	case spec.Suspend && !old.Spec.Suspend:
		kind, msg = store.EventJobSuspended, fmt.Sprintf("job %s suspended", spec.Name)
	case !spec.Suspend && old.Spec.Suspend:
		kind, msg = store.EventJobResumed, fmt.Sprintf("job %s resumed", spec.Name)
	}
	j, err := c.st.JobUpdate(ctx, store.JobUpdateParams{Spec: spec, Source: src, IfVersion: old.Version, Now: now,
		Events: append([]store.Event{{Kind: kind, Message: msg}}, host...)})
	if err != nil {
		return store.Job{}, err
	}
	c.warnHost(host)
	if scheduleChanged(old.Spec, spec) && !old.CreatedAt.IsZero() {
		if err := c.st.JobAdvance(ctx, store.JobAdvanceParams{Name: spec.Name, LastScheduleTime: now, Term: c.term()}); err != nil {
			return store.Job{}, err
		}
		j.Status.LastScheduleTime = maxTime(j.Status.LastScheduleTime, now)
	}
	c.Notify(spec.Name)
	return j, nil
}

// CheckReplace is PutJob's rule for a job that exists: a write from
// anywhere but the manifests may not replace a job a manifest declares
// (ErrManifestJob), and a spec equal to the stored one is unchanged (no
// write, no event).
func CheckReplace(old store.Job, spec store.JobSpec, src store.Source) (unchanged bool, err error) {
	if old.Source == store.SourceManifest && src != store.SourceManifest {
		return false, fmt.Errorf("job %q: %w", spec.Name, ErrManifestJob)
	}
	return sameSpec(old.Spec, spec), nil
}

// sameSpec reports whether two specs are equal once the concurrency
// policy's default is applied.
func sameSpec(a, b store.JobSpec) bool {
	for _, s := range []*store.JobSpec{&a, &b} {
		if s.ConcurrencyPolicy == "" {
			s.ConcurrencyPolicy = store.Allow
		}
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// hostCheck checks what depends on this machine rather than the spec:
// that the command can run as run_as. Validate cannot, so it is checked
// where the job is accepted. A client over the API is refused (a
// ValidationError on run_as). A manifest job is accepted anyway, so that
// one job naming a user this host lacks is that job's problem, not the
// whole manifest's or the daemon's: the returned job.unrunnable event
// records it with the job (and is logged as a warning once written), and
// each run fails with the same message instead of running the command.
func (c *Controller) hostCheck(spec store.JobSpec, src store.Source) ([]store.Event, error) {
	if spec.RunAs == "" {
		return nil, nil
	}
	_, err := lookupRunAs(spec.RunAs)
	if err == nil {
		return nil, nil
	}
	if src != store.SourceManifest {
		return nil, &ValidationError{Job: spec.Name, Fields: []FieldError{{Field: "run_as", Message: err.Error()}}}
	}
	msg := fmt.Sprintf("job %s cannot run on this host: run_as: %v; its runs fail until the user exists", spec.Name, err)
	return []store.Event{{Kind: store.EventJobUnrunnable, Message: msg}}, nil
}

func scheduleChanged(a, b store.JobSpec) bool {
	atEq := a.At == nil && b.At == nil || a.At != nil && b.At != nil && a.At.Equal(*b.At)
	return a.Cron != b.Cron || a.CronDialect != b.CronDialect || !slices.Equal(a.OnCalendar, b.OnCalendar) ||
		a.TimeZone != b.TimeZone || !atEq || a.Manual != b.Manual
}

// DeleteJob deletes a job and its runs; its active runs on this node are
// killed. store.ErrNotFound if there is no such job.
func (c *Controller) DeleteJob(ctx context.Context, name string) error {
	err := c.st.JobDelete(ctx, store.JobDeleteParams{Name: name,
		Events: []store.Event{{Kind: store.EventJobDeleted, Message: fmt.Sprintf("job %s deleted", name)}}})
	if err != nil {
		return err
	}
	c.Notify(name)
	return nil
}

// Suspend stops future runs of a job; active runs continue.
func (c *Controller) Suspend(ctx context.Context, name string) error {
	return c.setSuspend(ctx, name, true)
}

// Resume lets a suspended job run again. Instants that passed while it was
// suspended are handled like downtime: the latest runs if it is still
// inside the starting deadline, the others are recorded as missed.
func (c *Controller) Resume(ctx context.Context, name string) error {
	return c.setSuspend(ctx, name, false)
}

func (c *Controller) setSuspend(ctx context.Context, name string, suspend bool) error {
	j, err := c.st.JobGet(ctx, name)
	if err != nil {
		return err
	}
	if j.Spec.Suspend == suspend {
		return nil
	}
	j.Spec.Suspend = suspend
	_, _, err = c.PutJob(ctx, j.Spec, j.Source)
	return err
}

// Trigger starts a manual run of a job now, outside its schedule. A manual
// run ignores the schedule gate, require and the concurrency policy: an
// operator asked for it explicitly.
func (c *Controller) Trigger(ctx context.Context, name string) (store.Run, error) {
	if _, err := c.st.JobGet(ctx, name); err != nil {
		return store.Run{}, err
	}
	now := c.clock.Now().UTC().Truncate(time.Microsecond)
	r, err := c.st.RunInsert(ctx, store.RunInsertParams{
		Run: store.Run{Job: name, ScheduledTime: now, Attempt: 1, Reason: store.ReasonManual, ReadyAt: now},
		Now: now,
		Events: []store.Event{{Kind: store.EventRunScheduled,
			Message: fmt.Sprintf("manual run triggered for %s", now.Format(time.RFC3339))}},
	})
	if err != nil {
		return store.Run{}, err
	}
	c.Notify(name)
	return r, nil
}

// Kill stops an active run (SIGTERM to its process group, SIGKILL after
// the grace period); the run ends as killed. A run that has not started is
// ended at once. store.ErrConflict if the run already ended.
func (c *Controller) Kill(ctx context.Context, id int64) error {
	r, err := c.st.RunGet(ctx, id)
	if err != nil {
		return err
	}
	if r.State == store.RunPending {
		p := store.RunFinishParams{ID: id, State: store.RunKilled, Error: "killed before it started",
			Now: c.clock.Now(), Events: []store.Event{{Kind: store.EventRunKilled, Message: fmt.Sprintf("run %d killed before it started", id)}}}
		if j, err := c.st.JobGet(ctx, r.Job); err == nil {
			p.Prune = historyLimits(j.Spec)
		}
		_, err := c.st.RunFinish(ctx, p)
		if !errors.Is(err, store.ErrConflict) {
			c.Notify(r.Job)
			return err
		}
	}
	_, err = c.st.RunCancel(ctx, store.RunCancelParams{ID: id, Events: []store.Event{{Kind: store.EventRunKilled,
		Message: fmt.Sprintf("kill of run %d requested", id)}}})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.kills[id] = true
	c.mu.Unlock()
	c.Notify(r.Job)
	return nil
}
