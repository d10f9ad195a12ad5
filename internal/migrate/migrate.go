// Package migrate applies numbered SQL migrations, embedded in the binary,
// to a database inside one transaction the caller owns. It is shared by
// the SQLite and PostgreSQL stores, which differ only in how they run a
// statement and write a bind parameter.
//
// # Expand and contract
//
// Several almanac versions may share one PostgreSQL database during a
// rolling upgrade, so a schema change comes in two halves:
//
//   - An expand migration (DIR/NNN_name.sql) only adds: tables, nullable
//     or defaulted columns, indexes, constraints that what is already
//     written satisfies. Every node applies the expand migrations it knows
//     when it starts, and a binary keeps running on a schema expanded past
//     what it knows, since nothing it reads went away.
//   - A contract step (DIR/contract/NNN_name.sql, NNN the expand migration
//     it completes) removes what binaries older than NNN read: a column, a
//     constraint the new code no longer wants. It runs only when no live
//     node knows less than NNN (Contract), once, and is recorded in the
//     version table's companion TABLE_contracted. A binary that knows less
//     than the highest contracted step refuses the database (TooOldError).
//
// Features that need the contracted shape switch on only once the step is
// recorded (see Contracted). docs/development.md states the rule for
// writing migrations and a test over each store's migration directory
// enforces it.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// Tx is what Apply needs of the caller's transaction.
type Tx interface {
	// Exec runs a statement.
	Exec(ctx context.Context, sql string, args ...any) error
	// QueryInt runs a query that answers one integer.
	QueryInt(ctx context.Context, sql string) (int, error)
}

// ErrTooOld is what a TooOldError matches with errors.Is.
var ErrTooOld = errors.New("binary too old for the database schema")

// TooOldError refuses a database whose schema was contracted past what
// this binary knows: it would read a column or a constraint that is gone.
type TooOldError struct {
	// Table is the version table (one per schema owner).
	Table string
	// Schema is the database's schema version, Contracted its highest
	// contract step and Binary the highest migration this binary knows.
	Schema, Contracted, Binary int
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("database schema version %d (%s) was contracted at %d, past this binary's %d; upgrade almanac",
		e.Schema, e.Table, e.Contracted, e.Binary)
}

// Unwrap makes errors.Is(err, ErrTooOld) hold.
func (e *TooOldError) Unwrap() error { return ErrTooOld }

// Step is one migration applied, as logged.
type Step struct {
	Name     string
	From, To int
	Duration time.Duration
	// Contract is set for a contract step.
	Contract bool
}

// Options adjusts Run.
type Options struct {
	// Contract lists the contract steps (DIR/contract/NNN_name.sql).
	Contract []string
	// ContractNow applies every known contract step after the expand
	// migrations: for a store only one process opens at a time (SQLite,
	// under the data directory's lock), where no older node can be live.
	ContractNow bool
	// Log receives one line per migration (from, to, duration); nil
	// means slog.Default().
	Log *slog.Logger
	// Clock measures durations (nil: clock.Real). It only measures; it
	// decides nothing.
	Clock clock.Clock
}

// Apply is Run without contract steps, logging to slog.Default().
func Apply(ctx context.Context, tx Tx, fsys fs.ReadFileFS, names []string, table, bindParam string) error {
	_, err := Run(ctx, tx, fsys, names, table, bindParam, Options{})
	return err
}

// Run creates the version tables if they are missing and runs, in order,
// every expand migration in names (read from fsys) whose number, the
// digits before the first '_' of its base name, is above the recorded
// version; then, with opts.ContractNow, every contract step not yet
// recorded. bindParam is the dialect's first bind parameter ("$1" or
// "?"). A schema newer than this binary is accepted unless it was
// contracted past it (*TooOldError). It returns the steps applied, each
// also logged.
func Run(ctx context.Context, tx Tx, fsys fs.ReadFileFS, names []string, table, bindParam string, opts Options) ([]Step, error) {
	log, now := opts.logger(), opts.now()
	expand, err := number(names)
	if err != nil {
		return nil, err
	}
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (version integer NOT NULL)`); err != nil {
		return nil, fmt.Errorf("create %s: %w", table, err)
	}
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+`_contracted (version integer NOT NULL)`); err != nil {
		return nil, fmt.Errorf("create %s_contracted: %w", table, err)
	}
	current, err := tx.QueryInt(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	contracted, err := tx.QueryInt(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+table+`_contracted`)
	if err != nil {
		return nil, fmt.Errorf("read %s_contracted: %w", table, err)
	}
	latest := Latest(names)
	if contracted > latest {
		return nil, &TooOldError{Table: table, Schema: current, Contracted: contracted, Binary: latest}
	}
	if current > latest {
		log.Warn("database schema is newer than this binary; running on it, its later migrations only added",
			"schema", table, "version", current, "binary", latest)
	}
	var steps []Step
	for _, m := range expand {
		if m.n <= current {
			continue
		}
		st, err := exec(ctx, tx, fsys, m, current, table, bindParam, now)
		if err != nil {
			return steps, err
		}
		steps = append(steps, st)
		log.Info("schema migrated", "schema", table, "migration", st.Name, "from", st.From, "to", st.To, "duration", st.Duration)
		current = m.n
	}
	if opts.ContractNow {
		more, err := contract(ctx, tx, fsys, opts.Contract, table, bindParam, latest, log, now)
		steps = append(steps, more...)
		if err != nil {
			return steps, err
		}
	}
	return steps, nil
}

// Contract runs, in order, the contract steps in names not yet recorded
// whose number is at most minLive, the lowest schema version any live
// node knows (the caller reads it from its nodes table inside tx, under
// the same lock as Run). It returns the steps applied, each logged.
func Contract(ctx context.Context, tx Tx, fsys fs.ReadFileFS, names []string, table, bindParam string, minLive int, opts Options) ([]Step, error) {
	return contract(ctx, tx, fsys, names, table, bindParam, minLive, opts.logger(), opts.now())
}

func contract(ctx context.Context, tx Tx, fsys fs.ReadFileFS, names []string, table, bindParam string, upTo int, log *slog.Logger, now func() time.Time) ([]Step, error) {
	steps, err := number(names)
	if err != nil {
		return nil, err
	}
	var done []Step
	for _, m := range steps {
		if m.n > upTo {
			break
		}
		n, err := tx.QueryInt(ctx, `SELECT count(*) FROM `+table+`_contracted WHERE version = `+strconv.Itoa(m.n))
		if err != nil {
			return done, fmt.Errorf("read %s_contracted: %w", table, err)
		}
		if n > 0 {
			continue
		}
		st, err := exec(ctx, tx, fsys, m, m.n, table+"_contracted", bindParam, now)
		if err != nil {
			return done, err
		}
		st.Contract = true
		done = append(done, st)
		log.Info("schema contracted", "schema", table, "migration", "contract/"+st.Name, "from", st.From, "to", st.To, "duration", st.Duration)
	}
	return done, nil
}

// Pending lists the numbers of the contract steps in names not yet
// recorded in table's companion.
func Pending(ctx context.Context, tx Tx, names []string, table string) ([]int, error) {
	steps, err := number(names)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, m := range steps {
		n, err := tx.QueryInt(ctx, `SELECT count(*) FROM `+table+`_contracted WHERE version = `+strconv.Itoa(m.n))
		if err != nil {
			return nil, fmt.Errorf("read %s_contracted: %w", table, err)
		}
		if n == 0 {
			out = append(out, m.n)
		}
	}
	return out, nil
}

type migration struct {
	n    int
	name string
}

// number parses and orders migration file names.
func number(names []string) ([]migration, error) {
	out := make([]migration, 0, len(names))
	for _, name := range names {
		base := path.Base(name)
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", base)
		}
		out = append(out, migration{n, name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n || out[i].n == out[j].n && out[i].name < out[j].name })
	return out, nil
}

// exec runs one migration file and records its number in table.
func exec(ctx context.Context, tx Tx, fsys fs.ReadFileFS, m migration, from int, table, bindParam string, now func() time.Time) (Step, error) {
	base := path.Base(m.name)
	body, err := fsys.ReadFile(m.name)
	if err != nil {
		return Step{}, err
	}
	start := now()
	if err := tx.Exec(ctx, string(body)); err != nil {
		return Step{}, fmt.Errorf("migration %s: %w", base, err)
	}
	if err := tx.Exec(ctx, `INSERT INTO `+table+` (version) VALUES (`+bindParam+`)`, m.n); err != nil {
		return Step{}, err
	}
	return Step{Name: base, From: from, To: m.n, Duration: now().Sub(start)}, nil
}

func (o Options) logger() *slog.Logger {
	if o.Log != nil {
		return o.Log
	}
	return slog.Default()
}

func (o Options) now() func() time.Time {
	if o.Clock != nil {
		return o.Clock.Now
	}
	return clock.Real{}.Now
}

// Latest is the highest migration number among names (0 for none or for
// names without a number): the schema version a binary knows.
func Latest(names []string) int {
	latest := 0
	for _, name := range names {
		if n, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0]); err == nil {
			latest = max(latest, n)
		}
	}
	return latest
}
