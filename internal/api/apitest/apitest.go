// Package apitest provides in-memory fakes of the store and controller the
// HTTP API depends on, for tests of the API, its client and the CLI. It is
// imported only by tests.
package apitest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
)

// MemStore is an in-memory store for API tests. It implements the store
// contract's documented behaviour for the methods the API calls.
type MemStore struct {
	mu     sync.Mutex
	jobs   map[string]store.Job
	runs   []store.Run // ID order
	events []store.Event
	nextID int64
	waits  map[int64]store.Waiting
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{jobs: map[string]store.Job{}} }

func (m *MemStore) appendEvents(evs []store.Event) {
	for _, e := range evs {
		m.nextID++
		e.ID = m.nextID
		m.events = append(m.events, e)
	}
}

// JobCreate implements the store method.
func (m *MemStore) JobCreate(_ context.Context, p store.JobCreateParams) (store.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.jobs[p.Spec.Name]; ok {
		return store.Job{}, fmt.Errorf("job %q: %w", p.Spec.Name, store.ErrDuplicate)
	}
	j := store.Job{Spec: p.Spec, Status: p.Status, Source: p.Source, Version: 1, CreatedAt: p.Now, UpdatedAt: p.Now}
	m.jobs[p.Spec.Name] = j
	m.appendEvents(p.Events)
	return j, nil
}

// JobCreateBatch implements the store method: all or none.
func (m *MemStore) JobCreateBatch(_ context.Context, ps []store.JobCreateParams) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range ps {
		if _, ok := m.jobs[p.Spec.Name]; ok || seen[p.Spec.Name] {
			return fmt.Errorf("job %q: %w", p.Spec.Name, store.ErrDuplicate)
		}
		seen[p.Spec.Name] = true
	}
	for _, p := range ps {
		m.jobs[p.Spec.Name] = store.Job{Spec: p.Spec, Status: p.Status, Source: p.Source, Version: 1, CreatedAt: p.Now, UpdatedAt: p.Now}
		m.appendEvents(p.Events)
	}
	return nil
}

// JobUpdate implements the store method.
func (m *MemStore) JobUpdate(_ context.Context, p store.JobUpdateParams) (store.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[p.Spec.Name]
	if !ok {
		return j, fmt.Errorf("job %q: %w", p.Spec.Name, store.ErrNotFound)
	}
	if p.IfVersion != 0 && p.IfVersion != j.Version {
		return j, fmt.Errorf("job %q: %w", p.Spec.Name, store.ErrConflict)
	}
	j.Spec, j.Source, j.UpdatedAt = p.Spec, p.Source, p.Now
	j.Version++
	m.jobs[p.Spec.Name] = j
	m.appendEvents(p.Events)
	return j, nil
}

// JobDelete implements the store method.
func (m *MemStore) JobDelete(_ context.Context, p store.JobDeleteParams) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.jobs[p.Name]; !ok {
		return fmt.Errorf("job %q: %w", p.Name, store.ErrNotFound)
	}
	delete(m.jobs, p.Name)
	m.runs = slices.DeleteFunc(m.runs, func(r store.Run) bool { return r.Job == p.Name })
	m.appendEvents(p.Events)
	return nil
}

// JobGet implements the store method.
func (m *MemStore) JobGet(_ context.Context, name string) (store.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[name]
	if !ok {
		return j, fmt.Errorf("job %q: %w", name, store.ErrNotFound)
	}
	return j, nil
}

// JobList implements the store method.
func (m *MemStore) JobList(_ context.Context, p store.JobListParams) ([]store.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Job
	for _, j := range m.jobs {
		if j.Spec.Name > p.After && (p.Source == "" || p.Source == j.Source) &&
			(p.NameContains == "" || strings.Contains(j.Spec.Name, p.NameContains)) && (!p.WithAlertAfter || j.Spec.AlertAfterSeconds > 0) &&
			strings.HasPrefix(j.Spec.Name, p.NamePrefix) {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b store.Job) int { return cmp.Compare(a.Spec.Name, b.Spec.Name) })
	if p.Limit > 0 && len(out) > p.Limit {
		out = out[:p.Limit]
	}
	return out, nil
}

// AddRun inserts a run directly (the controller's job in production) and
// returns it with its id.
func (m *MemStore) AddRun(r store.Run) store.Run {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	r.ID = m.nextID
	m.runs = append(m.runs, r)
	return r
}

// RunInsert implements the store method: it enforces the unique
// (job, scheduled time, target, attempt) key and the job's existence.
func (m *MemStore) RunInsert(_ context.Context, p store.RunInsertParams) (store.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := p.Run
	if _, ok := m.jobs[r.Job]; !ok {
		return store.Run{}, fmt.Errorf("job %q: %w", r.Job, store.ErrNotFound)
	}
	for _, o := range m.runs {
		if o.Job == r.Job && o.ScheduledTime.Equal(r.ScheduledTime) && o.Target == r.Target && o.Attempt == r.Attempt {
			return store.Run{}, fmt.Errorf("run of %q at %s: %w", r.Job, r.ScheduledTime, store.ErrDuplicate)
		}
	}
	if r.State == "" {
		r.State = store.RunPending
	}
	m.nextID++
	r.ID, r.CreatedAt = m.nextID, p.Now
	m.runs = append(m.runs, r)
	for _, e := range p.Events {
		e.RunID = r.ID
		m.appendEvents([]store.Event{e})
	}
	return r, nil
}

// AddEvent appends an event.
func (m *MemStore) AddEvent(e store.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appendEvents([]store.Event{e})
}

// RunGet implements the store method.
// SetWaiting records why a held run waits, as the controller would.
func (m *MemStore) SetWaiting(id int64, w store.Waiting) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.waits == nil {
		m.waits = map[int64]store.Waiting{}
	}
	m.waits[id] = w
}

// RunWaiting implements httpapi.Store: the reasons of those of ids that
// are held (pending, not released).
func (m *MemStore) RunWaiting(_ context.Context, ids []int64) (map[int64]store.Waiting, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[int64]store.Waiting{}
	for _, r := range m.runs {
		if w, ok := m.waits[r.ID]; ok && r.State == store.RunPending && r.ReadyAt.IsZero() && slices.Contains(ids, r.ID) {
			out[r.ID] = w
		}
	}
	return out, nil
}

func (m *MemStore) RunGet(_ context.Context, id int64) (store.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		if r.ID == id {
			return r, nil
		}
	}
	return store.Run{}, fmt.Errorf("run %d: %w", id, store.ErrNotFound)
}

// RunList implements the store method.
func (m *MemStore) RunList(_ context.Context, p store.RunListParams) ([]store.Run, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Run
	for i := len(m.runs) - 1; i >= 0; i-- {
		r := m.runs[i]
		if (p.Cursor != 0 && r.ID >= p.Cursor) || (p.Job != "" && r.Job != p.Job) ||
			(!p.ScheduledTime.IsZero() && !r.ScheduledTime.Equal(p.ScheduledTime)) ||
			(len(p.States) > 0 && !slices.Contains(p.States, r.State)) ||
			(p.Node != "" && r.Target != p.Node && r.Node != p.Node) ||
			(!p.Since.IsZero() && r.ScheduledTime.Before(p.Since)) || (!p.Until.IsZero() && !r.ScheduledTime.Before(p.Until)) ||
			!strings.HasPrefix(r.Job, p.JobPrefix) {
			continue
		}
		if !p.WithOutput {
			r.Output = nil
		}
		if len(out) == p.Size() {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, r)
	}
	return out, 0, nil
}

// EventList implements the store method.
func (m *MemStore) EventList(_ context.Context, p store.EventListParams) ([]store.Event, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Event
	for i := len(m.events) - 1; i >= 0; i-- {
		e := m.events[i]
		if (p.Cursor != 0 && e.ID >= p.Cursor) || (p.Job != "" && e.Job != p.Job) ||
			(len(p.Kinds) > 0 && !slices.Contains(p.Kinds, e.Kind)) || (p.Actor != "" && e.Actor != p.Actor) ||
			(p.JobPrefix != "" && (e.Job == "" || !strings.HasPrefix(e.Job, p.JobPrefix))) {
			continue
		}
		if len(out) == p.Size() {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, e)
	}
	return out, 0, nil
}

// Store is what the fake controller needs: the API's store plus RunInsert.
// Both *MemStore and the real SQLite store satisfy it.
type Store interface {
	httpapi.Store
	RunInsert(ctx context.Context, p store.RunInsertParams) (store.Run, error)
}

// Controller is a fake job controller over a Store. Job writes go to
// the store with the events the real controller records; Trigger inserts a
// pending manual run; JobStatus and NextFires answer from the store and
// from SetNext; the wave methods go to Waves.
type Controller struct {
	St  Store
	Now time.Time
	// Waves, if set, answers the wave methods: a real *job.Controller
	// over a real store, for tests of rolling waves. Without it no job
	// has a wave, pause and resume set the spec's wave_paused, and abort
	// finds nothing to skip.
	Waves Waver

	mu       sync.Mutex
	changed  []string
	next     map[string][]time.Time
	outlooks map[outlookKey]job.Outlook
	killed   []int64
}

// SetNext sets the instants JobFires and JobStatus report for a job.
func (c *Controller) SetNext(name string, fires ...time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == nil {
		c.next = map[string][]time.Time{}
	}
	c.next[name] = fires
}

// Changed returns the names of the jobs changed through the controller, in order.
func (c *Controller) Changed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.changed...)
}

func (c *Controller) notify(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed = append(c.changed, name)
}

// PutJob implements httpapi.Controller.
func (c *Controller) PutJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, bool, error) {
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = store.Allow
	}
	old, err := c.St.JobGet(ctx, spec.Name)
	if errors.Is(err, store.ErrNotFound) {
		j, err := c.St.JobCreate(ctx, store.JobCreateParams{Spec: spec, Source: src, Now: c.Now,
			Events: []store.Event{{Time: c.Now, Kind: store.EventJobCreated, Job: spec.Name}}})
		if err == nil {
			c.notify(spec.Name)
		}
		return j, err == nil, err
	}
	if err != nil {
		return old, false, err
	}
	if unchanged, err := job.CheckReplace(old, spec, src); err != nil || unchanged {
		return old, false, err
	}
	kind := store.EventJobUpdated
	switch {
	case spec.Suspend && !old.Spec.Suspend:
		kind = store.EventJobSuspended
	case !spec.Suspend && old.Spec.Suspend:
		kind = store.EventJobResumed
	}
	j, err := c.St.JobUpdate(ctx, store.JobUpdateParams{Spec: spec, Source: src, IfVersion: old.Version, Now: c.Now,
		Events: []store.Event{{Time: c.Now, Kind: kind, Job: spec.Name}}})
	if err == nil {
		c.notify(spec.Name)
	}
	return j, false, err
}

// DeleteJob implements httpapi.Controller.
func (c *Controller) DeleteJob(ctx context.Context, name string) error {
	err := c.St.JobDelete(ctx, store.JobDeleteParams{Name: name,
		Events: []store.Event{{Time: c.Now, Kind: store.EventJobDeleted, Job: name}}})
	if err == nil {
		c.notify(name)
	}
	return err
}

// Suspend implements httpapi.Controller.
func (c *Controller) Suspend(ctx context.Context, name string) error {
	return c.setSuspend(ctx, name, true)
}

// Resume implements httpapi.Controller.
func (c *Controller) Resume(ctx context.Context, name string) error {
	return c.setSuspend(ctx, name, false)
}

func (c *Controller) setSuspend(ctx context.Context, name string, suspend bool) error {
	j, err := c.St.JobGet(ctx, name)
	if err != nil || j.Spec.Suspend == suspend {
		return err
	}
	j.Spec.Suspend = suspend
	_, _, err = c.PutJob(ctx, j.Spec, j.Source)
	return err
}

// Trigger implements httpapi.Controller.
func (c *Controller) Trigger(ctx context.Context, name string) (store.Run, error) {
	if _, err := c.St.JobGet(ctx, name); err != nil {
		return store.Run{}, err
	}
	return c.St.RunInsert(ctx, store.RunInsertParams{Now: c.Now, Run: store.Run{Job: name, ScheduledTime: c.Now, Attempt: 1,
		Reason: store.ReasonManual, State: store.RunPending}, Events: []store.Event{{Time: c.Now, Kind: store.EventRunScheduled, Job: name}}})
}

// JobStatus implements httpapi.Controller: active runs are the job's
// pending and running ones; the next schedule time is the first SetNext
// instant, unless the job is suspended.
func (c *Controller) JobStatus(ctx context.Context, j store.Job) (job.Status, error) {
	name := j.Spec.Name
	runs, _, err := c.St.RunList(ctx, store.RunListParams{Job: name,
		States: []store.RunState{store.RunPending, store.RunRunning}, Page: store.Page{Limit: 1000}})
	if err != nil {
		return job.Status{}, err
	}
	var st job.Status
	for i := len(runs) - 1; i >= 0; i-- {
		st.Active = append(st.Active, runs[i].ID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fires := c.next[name]; len(fires) > 0 && !j.Spec.Suspend {
		st.NextScheduleTime = fires[0]
	}
	return st, nil
}

// JobFires implements httpapi.Controller: the SetNext instants after
// from, with the outlooks SetOutlook gave them (on time otherwise).
func (c *Controller) JobFires(ctx context.Context, name string, from time.Time, n int) ([]job.Fire, error) {
	if _, err := c.St.JobGet(ctx, name); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []job.Fire
	for _, t := range c.next[name] {
		if t.After(from) && len(out) < n {
			o, ok := c.outlooks[outlookKey{name, t.UnixNano()}]
			if !ok {
				o = job.Outlook{State: job.OnTime}
			}
			out = append(out, job.Fire{Job: name, Time: t, Outlook: o})
		}
	}
	return out, nil
}

// SetOutlook sets what the gate does to the job's fire at t.
func (c *Controller) SetOutlook(name string, t time.Time, o job.Outlook) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.outlooks == nil {
		c.outlooks = map[outlookKey]job.Outlook{}
	}
	c.outlooks[outlookKey{name, t.UnixNano()}] = o
}

// outlookKey names one fire of one job.
type outlookKey struct {
	job string
	at  int64
}

// Kill implements httpapi.Controller: it records the request (see Killed);
// the fake does not change the run.
func (c *Controller) Kill(ctx context.Context, id int64) error {
	if _, err := c.St.RunGet(ctx, id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.killed = append(c.killed, id)
	return nil
}

// Killed returns the runs Kill was asked to stop, in order.
func (c *Controller) Killed() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.killed)
}

// Waver is the part of *job.Controller behind the wave routes.
type Waver interface {
	Wave(ctx context.Context, name string, instant time.Time) (job.Wave, error)
	WavePause(ctx context.Context, name string) error
	WaveResume(ctx context.Context, name string) error
	WaveAbort(ctx context.Context, name string) (int, error)
}

// Wave implements httpapi.Controller.
func (c *Controller) Wave(ctx context.Context, name string, instant time.Time) (job.Wave, error) {
	if c.Waves != nil {
		return c.Waves.Wave(ctx, name, instant)
	}
	if _, err := c.St.JobGet(ctx, name); err != nil {
		return job.Wave{}, err
	}
	return job.Wave{}, fmt.Errorf("job %q: %w", name, job.ErrNoWave)
}

// WavePause implements httpapi.Controller.
func (c *Controller) WavePause(ctx context.Context, name string) error {
	if c.Waves != nil {
		return c.Waves.WavePause(ctx, name)
	}
	return c.setWavePaused(ctx, name, true)
}

// WaveResume implements httpapi.Controller.
func (c *Controller) WaveResume(ctx context.Context, name string) error {
	if c.Waves != nil {
		return c.Waves.WaveResume(ctx, name)
	}
	return c.setWavePaused(ctx, name, false)
}

func (c *Controller) setWavePaused(ctx context.Context, name string, paused bool) error {
	j, err := c.St.JobGet(ctx, name)
	if err != nil || j.Spec.WavePaused == paused {
		return err
	}
	j.Spec.WavePaused = paused
	_, _, err = c.PutJob(ctx, j.Spec, j.Source)
	return err
}

// WaveAbort implements httpapi.Controller.
func (c *Controller) WaveAbort(ctx context.Context, name string) (int, error) {
	if c.Waves != nil {
		return c.Waves.WaveAbort(ctx, name)
	}
	_, err := c.St.JobGet(ctx, name)
	return 0, err
}

// JobStatuses implements the batch status the web UI asks for, job by job.
func (c *Controller) JobStatuses(ctx context.Context, jobs []store.Job) (map[string]job.Status, error) {
	out := make(map[string]job.Status, len(jobs))
	for _, j := range jobs {
		st, err := c.JobStatus(ctx, j)
		if err != nil {
			return nil, err
		}
		out[j.Spec.Name] = st
	}
	return out, nil
}

// Upcoming merges the SetNext instants after from of every job that is
// not suspended, earliest first.
func (c *Controller) Upcoming(ctx context.Context, from time.Time, limit int) ([]job.Fire, error) {
	jobs, err := c.St.JobList(ctx, store.JobListParams{})
	if err != nil {
		return nil, err
	}
	var out []job.Fire
	for _, j := range jobs {
		if j.Spec.Suspend {
			continue
		}
		fs, err := c.JobFires(ctx, j.Spec.Name, from, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	slices.SortStableFunc(out, func(a, b job.Fire) int { return a.Time.Compare(b.Time) })
	return out[:min(limit, len(out))], nil
}

// PutJob stores a job as-is (for example one from a manifest).
func (m *MemStore) PutJob(j store.Job) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.jobs[j.Spec.Name] = j
}

// Job returns a stored job, if present.
func (m *MemStore) Job(name string) (store.Job, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[name]
	return j, ok
}

// Jobs returns the number of stored jobs.
func (m *MemStore) Jobs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.jobs)
}

// Events returns the stored events, oldest first.
func (m *MemStore) Events() []store.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.Event(nil), m.events...)
}
