package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/store"
)

// jobWriter is the part of the store that seeds and reconciles jobs at
// daemon start (demo jobs, jobs declared in manifests).
type jobWriter interface {
	JobCreate(ctx context.Context, p store.JobCreateParams) (store.Job, error)
	JobCreateBatch(ctx context.Context, ps []store.JobCreateParams) error
	JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error)
	JobDelete(ctx context.Context, p store.JobDeleteParams) error
	JobGet(ctx context.Context, name string) (store.Job, error)
	JobList(ctx context.Context, p store.JobListParams) ([]store.Job, error)
}

func ptr[T any](v T) *T { return &v }

// demoJobs are what `serve --demo` starts with: together they show every
// state a job can be in within a few minutes of starting the daemon.
func demoJobs() []store.JobSpec {
	return append([]store.JobSpec{
		{
			// Runs every minute and succeeds.
			Name:  "heartbeat",
			Cron:  "* * * * *",
			Shell: `echo "tick for $ALMANAC_SCHEDULED_TIME (run $ALMANAC_RUN_ID)"; uptime`,
		},
		{
			// Fails every time; each failure is retried twice with backoff.
			Name:                   "flaky-upload",
			Cron:                   "*/2 * * * *",
			Shell:                  `echo "uploading report..."; echo "remote refused the upload" >&2; exit 3`,
			BackoffLimit:           2,
			FailedJobsHistoryLimit: ptr(5),
		},
		{
			// Takes 90 s but is due every minute: Forbid skips the overlap.
			Name:                    "slow-sync",
			Cron:                    "* * * * *",
			Command:                 []string{"sh", "-c", "echo syncing; sleep 90; echo done"},
			ConcurrencyPolicy:       store.Forbid,
			StartingDeadlineSeconds: ptr(int64(30)),
			TimeoutSeconds:          300,
		},
		{
			// Runs only in office hours, New York time.
			Name:     "office-hours-report",
			Cron:     "*/5 9-17 * * 1-5",
			TimeZone: "America/New_York",
			Shell:    `echo "report for $(date -u +%FT%TZ)"`,
		},
		{
			// A nightly job in another zone, never twice at once.
			Name:                    "nightly-backup",
			Cron:                    "30 2 * * *",
			TimeZone:                "Europe/Berlin",
			Command:                 []string{"sh", "-c", "echo backing up; sleep 2; echo backed up"},
			StartingDeadlineSeconds: ptr(int64(7200)),
			ConcurrencyPolicy:       store.Forbid,
		},
	}, demoFleetWideJobs()...)
}

// seedDemo creates the demo jobs that do not exist yet; existing jobs of the
// same names (maybe edited by the user) are left alone.
func seedDemo(ctx context.Context, st jobWriter, now time.Time) (created int, err error) {
	for _, spec := range demoJobs() {
		_, err := st.JobCreate(ctx, store.JobCreateParams{
			Spec: spec, Source: store.SourceDemo, Now: now,
			Events: []store.Event{{Time: now, Kind: store.EventJobCreated, Job: spec.Name, Message: "created by serve --demo"}},
		})
		if errors.Is(err, store.ErrDuplicate) {
			continue
		}
		if err != nil {
			return created, fmt.Errorf("create demo job %s: %w", spec.Name, err)
		}
		created++
	}
	return created, nil
}

// syncResult counts what syncManifestJobs changed.
type syncResult struct {
	Created, Updated, Deleted, Unchanged int
	// Changed lists the names of created, updated and deleted jobs.
	Changed []string
}

// syncManifestJobs makes the store's manifest jobs equal to specs: new jobs
// are created, changed ones updated (their status and history kept, so a
// change takes effect from the next run) and manifest jobs no longer
// declared are deleted. Jobs from the API or the demo are never touched; a
// manifest job whose name an API job already uses is an error.
//
// This is the seam between the daemon and the manifest compiler: whatever
// turns `job` resources in *.pp files into specs calls it on every load.
//
// Each write acts as the manifest that declares the job (files[name]), or
// the whole directory for a job no longer declared, arriving by via; the
// events say so (audit.Actor "manifest:FILE").
func syncManifestJobs(ctx context.Context, st jobWriter, specs []store.JobSpec, now time.Time, src manifestSource) (syncResult, error) {
	var res syncResult
	want := make(map[string]store.JobSpec, len(specs))
	for _, s := range specs {
		if _, dup := want[s.Name]; dup {
			return res, fmt.Errorf("job %q is declared twice", s.Name)
		}
		want[s.Name] = s
	}
	// A page at a time: a load of 100,000 jobs never holds them all twice.
	err := eachJob(ctx, st, store.SourceManifest, func(j *store.Job) error {
		name := j.Spec.Name
		spec, ok := want[name]
		if !ok {
			err := st.JobDelete(src.actor(ctx, name), store.JobDeleteParams{Name: name, Events: []store.Event{{
				Time: now, Kind: store.EventJobDeleted, Job: name, Message: "no longer declared in the manifests"}}})
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("delete job %s: %w", name, err)
			}
			res.Deleted++
			res.Changed = append(res.Changed, name)
			return nil
		}
		delete(want, name)
		if specJSON(spec) == specJSON(j.Spec) {
			res.Unchanged++
			return nil
		}
		_, err := st.JobUpdate(src.actor(ctx, name), store.JobUpdateParams{Spec: spec, Source: store.SourceManifest, IfVersion: j.Version, Now: now,
			Events: []store.Event{{Time: now, Kind: store.EventJobUpdated, Job: name, Message: "manifest changed; takes effect from the next run"}}})
		if err != nil {
			return fmt.Errorf("update job %s: %w", name, err)
		}
		res.Updated++
		res.Changed = append(res.Changed, name)
		return nil
	})
	if err != nil {
		return res, err
	}
	createOne := func(spec store.JobSpec) error {
		_, err := st.JobCreate(src.actor(ctx, spec.Name), store.JobCreateParams{Spec: spec, Source: store.SourceManifest, Now: now,
			Events: []store.Event{{Time: now, Kind: store.EventJobCreated, Job: spec.Name, Message: "declared in a manifest"}}})
		if errors.Is(err, store.ErrDuplicate) {
			other, _ := st.JobGet(ctx, spec.Name)
			return fmt.Errorf("manifest job %q clashes with a job of the same name created by %s; delete one of them", spec.Name, other.Source)
		}
		if err != nil {
			return fmt.Errorf("create job %s: %w", spec.Name, err)
		}
		res.Created++
		res.Changed = append(res.Changed, spec.Name)
		return nil
	}
	// New jobs go to the store in batches of the same file (one actor),
	// one transaction each. A batch the store refuses is created again
	// job by job, which names the job at fault as a single create would.
	var batch []store.JobCreateParams
	flush := func() error {
		defer func() { batch = batch[:0] }()
		if len(batch) == 0 {
			return nil
		}
		if len(batch) > 1 && st.JobCreateBatch(src.actor(ctx, batch[0].Spec.Name), batch) == nil {
			for _, p := range batch {
				res.Created++
				res.Changed = append(res.Changed, p.Spec.Name)
			}
			return nil
		}
		for _, p := range batch {
			if err := createOne(p.Spec); err != nil {
				return err
			}
		}
		return nil
	}
	for _, spec := range specs {
		if _, ok := want[spec.Name]; !ok {
			continue // existed and was handled above
		}
		if len(batch) == createBatch || len(batch) > 0 && src.files[batch[0].Spec.Name] != src.files[spec.Name] {
			if err := flush(); err != nil {
				return res, err
			}
		}
		batch = append(batch, store.JobCreateParams{Spec: spec, Source: store.SourceManifest, Now: now,
			Events: []store.Event{{Time: now, Kind: store.EventJobCreated, Job: spec.Name, Message: "declared in a manifest"}}})
	}
	if err := flush(); err != nil {
		return res, err
	}
	return res, nil
}

// createBatch is how many new manifest jobs one store transaction
// creates: enough that a commit is a small part of each job's cost.
const createBatch = 500

// manifestSource says where manifest jobs come from, for the audit trail.
type manifestSource struct {
	// dir is the --manifests directory; files names, by job, the file
	// that declares it.
	dir   string
	files map[string]string
	// via is audit.ViaStart for the load at start, audit.ViaReload after.
	via string
}

// actor returns ctx acting as the manifest that declares job.
func (m manifestSource) actor(ctx context.Context, job string) context.Context {
	file := m.files[job]
	if file == "" {
		file = m.dir
	}
	return audit.With(ctx, audit.Actor{Name: "manifest:" + file, Via: m.via})
}

func specJSON(s store.JobSpec) string {
	b, _ := json.Marshal(s)
	return string(b)
}
