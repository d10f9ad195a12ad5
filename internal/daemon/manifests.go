package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/manifestjob"
	"github.com/almanac-sh/almanac/internal/memlimit"
	"github.com/almanac-sh/almanac/internal/puppetsched"
	"github.com/almanac-sh/almanac/internal/store"
)

// manifestController is what reloading manifests needs of the controller:
// its job writes (which validate, move the schedule of a changed job to
// now and kill a deleted job's runs; CreateJob refuses a name already taken
// with store.ErrDuplicate) and a way to make it look again at every job
// after the gates changed.
type manifestController interface {
	PutJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, bool, error)
	CreateJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, error)
	CreateJobs(ctx context.Context, specs []store.JobSpec, src store.Source) error
	DeleteJob(ctx context.Context, name string) error
	Notify(name string)
}

// manifestJobs keeps the daemon's jobs and gates in step with the `job`
// and `schedule` resources under --manifests.
type manifestJobs struct {
	dir   string
	st    jobWriter
	clk   clock.Clock
	log   *slog.Logger
	gates manifestjob.Gates
	// registry is the daemon's gate registry, for the named windows a
	// manifest job may name and for telling jobs of gates that went.
	registry *gateRegistry
	// gone reports the jobs whose gate a load took away (gatelost.go).
	gone func(ctx context.Context, gates []string)
	// schedules are the catalog's schedule resources, for the windows
	// list; swapped with the gates.
	schedules *manifestSchedules
	// reboot are the manifests' reboot_group resources, for FleetLock.
	reboot  atomic.Pointer[[]manifestjob.RebootGroup]
	ctrl    manifestController
	watcher *manifestdir.Watcher
	// named are the daemon's --windows, which a reboot_group may name.
	named *namedWindows
	// loc is where schedules without time_zone read wall-clock time:
	// --agent-tz, else the local zone, for job gates as for agent mode.
	loc *time.Location

	// loaded: accept has run once (later loads are reloads); only the
	// watcher's one goroutine calls accept.
	loaded bool

	mu       sync.Mutex
	onChange func(what string) // the agent's Notify, once it runs
}

// newManifestJobs prepares the manifests of dir (--manifests, or the
// demo's) and adds their gates to the registry; nil when dir is ""
// (every method accepts a nil receiver).
func newManifestJobs(dir string, o Config, gates *gateRegistry, st jobWriter, clk clock.Clock, log *slog.Logger) (*manifestJobs, error) {
	if dir == "" {
		return nil, nil
	}
	m := &manifestJobs{dir: dir, st: st, clk: clk, log: log.With("component", "manifests"),
		schedules: newManifestSchedules(o.agent.location()), loc: o.agent.location(), named: o.named, registry: gates}
	gates.useManifests(&m.gates)
	w, err := manifestdir.NewWatcher(dir, manifestdir.WatchConfig{
		Clock: clk, Interval: manifestdir.DefaultInterval, Logger: m.log, Accept: m.accept, Changed: m.changed,
		Compile: gates.compileOptions()})
	if err != nil {
		return nil, err
	}
	m.watcher = w
	return m, nil
}

// onGateLoss sets what to call with the gate names a load removes.
func (m *manifestJobs) onGateLoss(gone func(ctx context.Context, gates []string)) {
	if m == nil {
		return
	}
	m.gone = gone
}

// rebootGroups is the reboot_group resources of the manifests in force.
func (m *manifestJobs) rebootGroups() []manifestjob.RebootGroup {
	if m == nil {
		return nil
	}
	if p := m.reboot.Load(); p != nil {
		return *p
	}
	return nil
}

// scheduleSet is the schedule resources of the manifests in force; nil
// without --manifests.
func (m *manifestJobs) scheduleSet() *manifestSchedules {
	if m == nil {
		return nil
	}
	return m.schedules
}

// start loads the manifests once, through ctrl. Problems in them end the
// daemon (exit 1), every one printed to errOut as file:line:col: message.
func (m *manifestJobs) start(ctx context.Context, ctrl manifestController, errOut io.Writer) error {
	if m == nil {
		return nil
	}
	m.ctrl = ctrl
	if _, err := m.watcher.Check(ctx); err != nil {
		var el manifest.ErrorList
		if errors.As(err, &el) {
			for _, e := range el {
				fmt.Fprintln(errOut, e.Error())
			}
			noun := "errors"
			if el.Count() == 1 {
				noun = "error"
			}
			return fmt.Errorf("serve: --manifests %s: %d %s", m.dir, el.Count(), noun)
		}
		return fmt.Errorf("serve: --manifests %s: %w", m.dir, err)
	}
	return nil
}

// notifyOnChange makes the one watcher of --manifests also tell fn (the
// agent's Notify) of every new content of the directory, so the agent
// applies it.
func (m *manifestJobs) notifyOnChange(fn func(what string)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.onChange = fn
}

// changed is the watcher's Changed hook.
func (m *manifestJobs) changed(what string) {
	m.mu.Lock()
	fn := m.onChange
	m.mu.Unlock()
	if fn != nil {
		fn(what)
	}
}

// watch reloads the manifests whenever they change, until ctx ends.
func (m *manifestJobs) watch(ctx context.Context) {
	if m == nil {
		return
	}
	_ = m.watcher.Run(ctx)
}

// accept makes a newly compiled catalog the one in force: its jobs are
// converted and checked, and only if all of them are fine are the gates
// swapped and the store reconciled. Anything wrong leaves the previous
// jobs and gates as they were.
func (m *manifestJobs) accept(ctx context.Context, s *manifestdir.Snapshot) error {
	// Converting a large catalog's jobs, or refusing them, takes memory
	// bounded by the manifests' size; storing the jobs of an accepted
	// one takes what they need.
	restore := memlimit.Bound(s.Size)
	set, err := manifestjob.FromCatalogWindows(s.Catalog, job.ParseCron, m.registry.windowFunc(), puppetsched.WithDefaultLocation(m.loc))
	restore()
	if err != nil {
		return err
	}
	stored, err := storedJobs(ctx, m.st, set.Jobs)
	if err != nil {
		return err
	}
	for i := range set.Jobs {
		spec := &set.Jobs[i]
		old, ok := stored[spec.Name]
		if !ok {
			continue
		}
		if old.source != store.SourceManifest {
			return fmt.Errorf("manifest job %q clashes with a job of the same name created by %s; delete one of them", spec.Name, old.source)
		}
		if !set.SuspendSet[spec.Name] {
			// The manifest does not say: an operator's suspend or
			// resume over the API stands.
			spec.Suspend = old.suspend
		}
		// A wave pause is an operator's alone: no manifest sets it.
		spec.WavePaused = old.wavePaused
	}
	before := m.registry.Names()
	m.gates.StoreSet(set)
	// A copy: a pointer into set would keep every job spec of it alive.
	groups := set.RebootGroups
	m.reboot.Store(&groups)
	for _, w := range set.UnknownWindows(m.named.has) {
		m.log.Warn(w)
	}
	m.schedules.load(s.Catalog)
	via := audit.ViaReload
	if !m.loaded {
		via = audit.ViaStart
	}
	res, err := syncManifestJobs(ctx, controllerJobs{m.st, m.ctrl}, set.Jobs, m.clk.Now(),
		manifestSource{dir: m.dir, files: set.Files, via: via})
	m.loaded = true
	// Held runs may wait on a gate that just changed: look at all jobs.
	m.ctrl.Notify("")
	if err != nil {
		return err
	}
	if lost := lostGates(before, m.registry); len(lost) > 0 && m.gone != nil {
		m.gone(ctx, lost)
	}
	m.log.Info("manifest jobs loaded", "dir", m.dir, "files", len(s.Files), "created", res.Created, "updated", res.Updated,
		"deleted", res.Deleted, "unchanged", res.Unchanged, "gates", len(set.Gates))
	return nil
}

// storedJob is what a manifest load needs of a stored job of the same name
// as one of its own.
type storedJob struct {
	source              store.Source
	suspend, wavePaused bool
}

// readEachOver is how many names storedJobs reads one at a time before it
// lists every job instead: a page of the list costs about as much as a
// hundred reads.
const readEachOver = 100

// storedJobs finds the stored jobs named like specs: the manifest jobs by
// listing them, the other names by reading each, or, when there are more
// than readEachOver of them (a first load), by listing every job. A load of
// 100,000 jobs then costs a hundred pages, not 100,000 reads.
func storedJobs(ctx context.Context, st jobWriter, specs []store.JobSpec) (map[string]storedJob, error) {
	want := make(map[string]bool, len(specs))
	for i := range specs {
		want[specs[i].Name] = true
	}
	out := map[string]storedJob{}
	keep := func(j *store.Job) error {
		if want[j.Spec.Name] {
			out[j.Spec.Name] = storedJob{source: j.Source, suspend: j.Spec.Suspend, wavePaused: j.Spec.WavePaused}
		}
		return nil
	}
	if err := eachJob(ctx, st, store.SourceManifest, keep); err != nil {
		return nil, err
	}
	if len(specs)-len(out) > readEachOver {
		return out, eachJob(ctx, st, "", keep)
	}
	for i := range specs {
		name := specs[i].Name
		if _, ok := out[name]; ok {
			continue
		}
		j, err := st.JobGet(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read job %s: %w", name, err)
		}
		_ = keep(&j)
	}
	return out, nil
}

// eachJob calls fn with every stored job from source ("" for all), a page
// at a time, until fn returns an error. fn may delete or update the job it
// is given: the next page starts after its name.
func eachJob(ctx context.Context, st jobWriter, source store.Source, fn func(j *store.Job) error) error {
	const page = 1000
	after := ""
	for {
		jobs, err := st.JobList(ctx, store.JobListParams{Source: source, After: after, Limit: page})
		if err != nil {
			if source == store.SourceManifest {
				return fmt.Errorf("list manifest jobs: %w", err)
			}
			return fmt.Errorf("list jobs: %w", err)
		}
		for i := range jobs {
			if err := fn(&jobs[i]); err != nil {
				return err
			}
		}
		if len(jobs) < page {
			return nil
		}
		after = jobs[len(jobs)-1].Spec.Name
	}
}

// controllerJobs is the jobWriter syncManifestJobs writes manifest jobs
// through: reads go to the store, writes to the controller.
type controllerJobs struct {
	jobWriter
	ctrl manifestController
}

// JobCreate creates the job; store.ErrDuplicate if the name is taken.
func (c controllerJobs) JobCreate(ctx context.Context, p store.JobCreateParams) (store.Job, error) {
	return c.ctrl.CreateJob(ctx, p.Spec, p.Source)
}

// JobCreateBatch creates the jobs, all or none; store.ErrDuplicate if a
// name is taken.
func (c controllerJobs) JobCreateBatch(ctx context.Context, ps []store.JobCreateParams) error {
	if len(ps) == 0 {
		return nil
	}
	specs := make([]store.JobSpec, len(ps))
	for i := range ps {
		specs[i] = ps[i].Spec
	}
	return c.ctrl.CreateJobs(ctx, specs, ps[0].Source)
}

// JobUpdate replaces the job's spec; it takes effect from the next run.
func (c controllerJobs) JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error) {
	j, _, err := c.ctrl.PutJob(ctx, p.Spec, p.Source)
	return j, err
}

// JobDelete deletes the job, killing its active runs.
func (c controllerJobs) JobDelete(ctx context.Context, p store.JobDeleteParams) error {
	return c.ctrl.DeleteJob(ctx, p.Name)
}
