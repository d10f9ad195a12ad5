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
	"github.com/almanac-sh/almanac/internal/kubeexec"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// backend is the store New opened, with the one of its two kinds it is,
// so the parts that need more than store.Store (the agent's tables, the
// integrity check, the cluster, fan-out's schema gate) get it typed.
// Exactly one of sqlite and pg is set.
type backend struct {
	store.Store
	sqlite *sqlitestore.Store
	pg     *pgBackend
}

// openStore opens the store --store names: SQLite under --data by default.
func openStore(ctx context.Context, o Config, clk clock.Clock, log *slog.Logger) (backend, error) {
	log = log.With("component", "store")
	switch {
	case o.storeURL == "" || o.storeURL == "sqlite":
		st, err := openSQLite(ctx, o.data, clk, log)
		if err != nil {
			return backend{}, err
		}
		return backend{Store: st, sqlite: st}, nil
	case strings.HasPrefix(o.storeURL, "postgres://"), strings.HasPrefix(o.storeURL, "postgresql://"):
		pb, err := openPostgres(ctx, o.storeURL, clk, log)
		if err != nil {
			return backend{}, err
		}
		return backend{Store: pb, pg: pb}, nil
	}
	return backend{}, usagef("serve: --store %q: want empty (SQLite under --data) or postgres://...", redactURL(o.storeURL))
}

// schemaGate is the PostgreSQL store's answer to whether fan-out may
// start (its schema contracted); nil on SQLite, which always may.
func (b backend) schemaGate() job.SchemaGate {
	if b.pg == nil {
		return nil
	}
	return b.pg.Store
}

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

// openSQLite opens the embedded store under dir.
func openSQLite(ctx context.Context, dir string, clk clock.Clock, log *slog.Logger) (*sqlitestore.Store, error) {
	st, err := sqlitestore.Open(ctx, dir, sqlitestore.WithClock(clk), sqlitestore.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("open store in %s: %w", dir, err)
	}
	return st, nil
}

// newController builds the job controller the daemon runs, over st (the
// cluster's gated store on PostgreSQL) with term as its Term function
// (nil on a single node), from the parts New built before it.
func (d *Daemon) newController(st store.Store, term func() int64) (apiController, error) {
	o := &d.cfg
	alive, aliveEvery := d.systemd.loopHooks()
	if alive == nil {
		// The loop turns at least this often even without a watchdog, so
		// that an idle node still notices other nodes' runs gone lost
		// and steps of the wall clock.
		alive, aliveEvery = func() {}, loopTurn
	}
	c, err := job.NewController(job.Config{
		Report:        d.notifier.Report,
		Store:         st,
		Clock:         d.clk,
		Parse:         job.ParseCron,
		Gates:         d.gates.Lookup,
		Node:          o.node,
		Nodes:         d.nodes,
		Schema:        d.backend.schemaGate(),
		Labels:        o.labels.labels(),
		Slots:         d.locks,
		Accept:        acceptJob(d.gates, d.locks.Groups),
		Term:          term,
		Logger:        d.log.With("component", "controller"),
		ShutdownGrace: o.grace,
		Alive:         alive,
		AliveInterval: aliveEvery,
		Executor:      d.executor,
	})
	if err != nil {
		return apiController{}, err
	}
	return apiController{Controller: c}, nil
}

// acceptJob is the job controller's Accept: it refuses a job whose
// schedule gate, or a window of its nodes, names nothing in the gate
// registry, and one whose reboot_group names no configured group.
func acceptJob(gates *gateRegistry, groups func() []string) func(store.JobSpec) error {
	return func(spec store.JobSpec) error {
		if err := gates.checkSpec(spec); err != nil {
			return err
		}
		return checkRebootGroup(spec, groups)
	}
}

// newExecutor is how the daemon runs commands: each under a supervisor
// that outlives it (job.Supervised), its run's directory under
// DATA/runs/NODE (a node sweeps its own directory at start-up, so two
// nodes sharing a data directory leave each other's runs alone), when the
// running binary can be a supervisor; else as the daemon's children.
// Either keeps at most --max-output bytes of a run's output. Another way
// of running commands is another case here, chosen by serve's flags.
func newExecutor(o Config, st store.Store, clk clock.Clock, log *slog.Logger) (job.Executor, *kubeexec.Executor) {
	maxOutput := int(o.retention.maxOutput)
	return o.kube.executor(st, localExecutor(o.data, o.node, maxOutput, log), maxOutput, clk, log)
}

// localExecutor runs commands on this machine: under supervisors when it
// can, else as the daemon's children.
func localExecutor(data, node string, maxOutput int, log *slog.Logger) job.Executor {
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
// controller's validation errors (acceptJob's among them) into 422
// answers naming the field, and its status into the API's.
type apiController struct {
	*job.Controller
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
	j, created, err := a.Controller.PutJob(ctx, spec, src)
	return j, created, apiValidation(err)
}

// CreateJob creates a job, checked as PutJob checks it; store.ErrDuplicate
// if the name is taken. A manifest load creates its new jobs with it.
func (a apiController) CreateJob(ctx context.Context, spec store.JobSpec, src store.Source) (store.Job, error) {
	j, err := a.Controller.CreateJob(ctx, spec, src)
	return j, apiValidation(err)
}

// CreateJobs creates jobs in one store transaction, each checked as
// PutJob checks it; store.ErrDuplicate if a name is taken.
func (a apiController) CreateJobs(ctx context.Context, specs []store.JobSpec, src store.Source) error {
	return apiValidation(a.Controller.CreateJobs(ctx, specs, src))
}

// JobStatus implements httpapi.Controller.
func (a apiController) JobStatus(ctx context.Context, j store.Job) (job.Status, error) {
	s, err := a.Controller.StatusOf(ctx, j)
	if err != nil {
		return job.Status{}, apiValidation(err)
	}
	return s, nil
}

// JobStatuses implements httpapi.BatchStatuser, so listing jobs costs a
// fixed number of store queries per page rather than two per job.
func (a apiController) JobStatuses(ctx context.Context, jobs []store.Job) (map[string]job.Status, error) {
	sts, err := a.Controller.Statuses(ctx, jobs)
	if err != nil {
		return nil, err
	}
	return sts, nil
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
