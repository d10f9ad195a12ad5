package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// openSQLite opens the embedded store under dir.
// resetSQLite sets the damaged or lost SQLite database under --data aside
// for --reset. A healthy database is never reset.
func resetSQLite(o Config, clk clock.Clock, log *slog.Logger) error {
	moved, err := sqlitestore.SetAside(o.data, clk.Now())
	if err != nil {
		return fmt.Errorf("--reset: %w", err)
	}
	log.Warn("--reset: the old database was set aside; starting with an empty one", "files", moved)
	return nil
}

// lockData takes the data directory's lock for an embedded store, held
// until the daemon closes, so `almanac restore` refuses to replace the
// database under a running daemon and a second daemon on the same
// directory is refused.
func (d *Daemon) lockData() error {
	if d.cfg.storeURL != "" && d.cfg.storeURL != "sqlite" {
		return nil
	}
	l, err := sqlitestore.Lock(d.cfg.data)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	d.closers = append(d.closers, func() { l.Unlock() })
	return nil
}

func openSQLite(ctx context.Context, dir string, clk clock.Clock, log *slog.Logger) (store.Store, error) {
	st, err := sqlitestore.Open(ctx, dir, sqlitestore.WithClock(clk), sqlitestore.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("open store in %s: %w", dir, err)
	}
	return st, nil
}

// schemaGate is the PostgreSQL store's answer to whether fan-out may
// start (its schema contracted); nil on SQLite, which always may.
func schemaGate(st store.Store) job.SchemaGate {
	if g, ok := st.(job.SchemaGate); ok {
		return g
	}
	return nil
}

// newController builds the job controller the daemon runs.
func newController(st store.Store, o Config, clk clock.Clock, log *slog.Logger, gates *gateRegistry, report func(context.Context, job.Outcome)) (controller, error) {
	c, err := job.NewController(job.Config{
		Report:        report,
		Store:         st,
		Clock:         clk,
		Parse:         job.ParseCron,
		Gates:         gates.Lookup,
		Node:          o.node,
		Nodes:         o.nodes,
		Schema:        o.schema,
		Labels:        o.labels.labels(),
		Slots:         o.slots,
		Term:          controllerTerm(st),
		Logger:        log.With("component", "controller"),
		ShutdownGrace: o.grace,
		Alive:         o.alive,
		AliveInterval: o.aliveEvery,
		Executor:      executor(o.data, o.node, int(o.retention.maxOutput), log),
	})
	if err != nil {
		return nil, err
	}
	ac := apiController{Controller: c, gates: gates}
	if g, ok := o.slots.(interface{ Groups() []string }); ok {
		ac.groups = g.Groups
	}
	return ac, nil
}

// executor is how the daemon runs commands: each under a supervisor that
// outlives it (job.Supervised), its run's directory under DATA/runs/NODE
// (a node sweeps its own directory at start-up, so two nodes sharing a
// data directory leave each other's runs alone), when the running binary
// can be a supervisor; else as the daemon's children. Either keeps at
// most maxOutput bytes of a run's output (serve --max-output).
func executor(data, node string, maxOutput int, log *slog.Logger) job.Executor {
	bin := supervisor.Binary()
	if bin == "" {
		return &job.Exec{MaxOutput: maxOutput}
	}
	dir, err := filepath.Abs(filepath.Join(data, "runs", url.PathEscape(node)))
	if err != nil {
		log.Warn("runs will not survive the daemon: no directory for their supervisors", "err", err)
		return &job.Exec{MaxOutput: maxOutput}
	}
	return &job.Supervised{Binary: bin, Dir: dir, MaxOutput: maxOutput}
}

// apiController adapts *job.Controller to httpapi.Controller: it turns the
// controller's validation errors into 422 answers naming the field, and its
// status into the API's. It refuses a job whose schedule gate, or a
// window of its nodes, names nothing in the gate registry.
type apiController struct {
	*job.Controller
	gates *gateRegistry
	// groups lists the reboot groups a job's reboot_group may name; nil
	// when there are none.
	groups func() []string
}

// checkRebootGroup refuses a job whose reboot_group names no configured
// group, as a validation error of that field listing the groups there are.
func checkRebootGroup(spec store.JobSpec, groups func() []string) error {
	if spec.RebootGroup == "" {
		return nil
	}
	var known []string
	if groups != nil {
		known = groups()
	}
	if slices.Contains(known, spec.RebootGroup) {
		return nil
	}
	msg := fmt.Sprintf("no reboot group %q is configured (serve --reboot-group or a reboot_group resource)", spec.RebootGroup)
	if len(known) > 0 {
		msg += "; known groups: " + strings.Join(known, ", ")
	}
	return &job.ValidationError{Job: spec.Name, Fields: []job.FieldError{{Field: "reboot_group", Message: msg}}}
}

var (
	_ httpapi.Controller    = apiController{}
	_ httpapi.BatchStatuser = apiController{}
)

// PutJob implements httpapi.Controller.
func (a apiController) PutJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, bool, error) {
	if err := a.gates.checkSpec(spec); err != nil {
		return store.Job{}, false, apiValidation(err)
	}
	if err := checkRebootGroup(spec, a.groups); err != nil {
		return store.Job{}, false, apiValidation(err)
	}
	j, created, err := a.Controller.PutJob(ctx, spec, src)
	return j, created, apiValidation(err)
}

// CreateJob creates a job, checked as PutJob checks it; store.ErrDuplicate
// if the name is taken. A manifest load creates its new jobs with it.
func (a apiController) CreateJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, error) {
	if err := a.gates.checkSpec(spec); err != nil {
		return store.Job{}, apiValidation(err)
	}
	if err := checkRebootGroup(spec, a.groups); err != nil {
		return store.Job{}, apiValidation(err)
	}
	j, err := a.Controller.CreateJob(ctx, spec, src)
	return j, apiValidation(err)
}

// CreateJobs creates jobs in one store transaction, each checked as
// PutJob checks it; store.ErrDuplicate if a name is taken.
func (a apiController) CreateJobs(ctx context.Context, specs []store.JobSpec, src store.Source) error {
	for _, spec := range specs {
		if err := a.gates.checkSpec(spec); err != nil {
			return apiValidation(err)
		}
		if err := checkRebootGroup(spec, a.groups); err != nil {
			return apiValidation(err)
		}
	}
	return apiValidation(a.Controller.CreateJobs(ctx, specs, src))
}

// JobStatus implements httpapi.Controller.
func (a apiController) JobStatus(ctx context.Context, name string) (httpapi.JobStatus, error) {
	s, err := a.Controller.Status(ctx, name)
	if err != nil {
		return httpapi.JobStatus{}, apiValidation(err)
	}
	return httpapi.JobStatus{Active: s.Active, NextScheduleTime: s.NextScheduleTime}, nil
}

// JobStatuses implements httpapi.BatchStatuser, so listing jobs costs a
// fixed number of store queries per page rather than two per job.
func (a apiController) JobStatuses(ctx context.Context, jobs []store.Job) (map[string]httpapi.JobStatus, error) {
	sts, err := a.Controller.Statuses(ctx, jobs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]httpapi.JobStatus, len(sts))
	for name, s := range sts {
		out[name] = httpapi.JobStatus{Active: s.Active, NextScheduleTime: s.NextScheduleTime}
	}
	return out, nil
}

// apiValidation turns a *job.ValidationError into a 422 naming the field of
// its first problem (with every problem in the message when there are
// several); other errors pass through.
func apiValidation(err error) error {
	var ve *job.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) == 0 {
		return err
	}
	first := ve.Fields[0]
	msg := first.Message
	if len(ve.Fields) > 1 {
		parts := make([]string, len(ve.Fields))
		for i, f := range ve.Fields {
			parts[i] = f.String()
		}
		msg = strings.Join(parts, "; ")
	}
	return &apitype.Error{Code: apitype.CodeInvalid, Field: first.Field, Message: msg}
}
