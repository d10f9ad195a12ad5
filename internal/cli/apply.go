package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/provider/builtin"
)

func init() {
	register("apply", "apply manifests like puppet apply: ordering, schedules, refresh, noop", escaped(runApply))
}

const applyUsage = "usage: almanac apply [--noop] [--now RFC3339] [--state FILE] [--statettl DUR] [--graph DIR] [--ordering manifest|title-hash|random] [--seed N] [--detailed-exitcodes] [--tz ZONE] [--node NAME] [--verbose] [--debug] FILE..."

func runApply(ctx context.Context, e *env, args []string) error {
	if usesServer(args) {
		return runApplyServer(ctx, e, args) // apply_server.go
	}
	fs := newFlagSet("apply")
	noop := fs.Bool("noop", false, "report what would change, change nothing")
	nowFlag := fs.String("now", "", "pin the clock (RFC 3339)")
	statePath := fs.String("state", "", "state file (JSON) with last-checked times")
	ttlFlag := fs.String("statettl", "32d", "prune state entries unchecked for this long (0 keeps them)")
	graphDir := fs.String("graph", "", "write DOT graphs into this directory")
	orderFlag := fs.String("ordering", "manifest", "order of unrelated resources: manifest, title-hash or random")
	seedFlag := fs.String("seed", "", "seed for --ordering random")
	detailed := fs.Bool("detailed-exitcodes", false, "exit 2 for changes, 4 for failures, 6 for both")
	tz := fs.String("tz", "", "zone for schedule wall times (default: local)")
	verbose := fs.Bool("verbose", false, "also print Info lines")
	debug := fs.Bool("debug", false, "also print Info and Debug lines")
	node := nodeFlag(fs)
	files, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return usagef("apply: %v (%s)", err, applyUsage)
	}
	if len(files) == 0 {
		return usagef("apply: no manifest given (%s)", applyUsage)
	}
	ordering, err := apply.ParseOrdering(*orderFlag)
	if err != nil {
		return usagef("apply: %v", err)
	}
	ttl, err := parseTTL(*ttlFlag)
	if err != nil {
		return usagef("apply: --statettl: %v", err)
	}
	var clk clock.Clock = clock.Real{}
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usagef("apply: --now %q is not an RFC 3339 time (e.g. 2024-06-01T03:00:00Z)", *nowFlag)
		}
		clk = clock.NewFake(t)
	}
	loc := time.Local
	if *tz != "" {
		if loc, err = calendar.LoadZone(*tz); err != nil {
			return usagef("apply: --tz: %v", err)
		}
	}
	var seed uint64
	if *seedFlag != "" {
		if seed, err = strconv.ParseUint(*seedFlag, 10, 64); err != nil {
			return usagef("apply: --seed %q is not a non-negative integer", *seedFlag)
		}
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}

	cat, _, err := compileOrReport(e, "apply", files, hostOptions(*node), nil, false)
	if err != nil {
		return err
	}
	scheds, err := apply.CatalogSchedules(cat, loc)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("apply: %w", err)}
	}
	var state *apply.State
	if *statePath != "" {
		if state, err = apply.LoadState(*statePath); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("apply: %w", err)}
		}
	}
	log := &consoleLog{out: e.stdout, err: e.stderr, verbose: *verbose || *debug, debug: *debug}
	// Jobs run under the daemon's job controller, as in agent mode.
	ac := apply.WithoutControllerTypes(apply.FromCatalog(cat), func(r *apply.Resource) {
		log.Log(apply.Info, r.Ref(), "Left to the daemon's job controller (almanac serve --manifests)")
	})
	plan, err := apply.NewPlan(ac, ordering, seed)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("apply: %w", err)}
	}
	if ordering == apply.OrderRandom {
		log.Log(apply.Notice, "", fmt.Sprintf("Ordering unrelated resources randomly with seed %d (repeat with --seed %d)", seed, seed))
	}
	report, runErr := apply.Run(ctx, plan, apply.Options{
		Noop: *noop, Clock: clk, Providers: builtin.Providers(), Gates: scheds.Gate,
		State: state, Log: log, GraphDir: *graphDir,
	})
	cycle := errors.Is(runErr, apply.ErrCycles)
	if state != nil && !cycle {
		if err := state.Save(*statePath, clk.Now(), ttl); err != nil {
			log.Log(apply.Err, "", "Could not save state file: "+err.Error())
			return &exitError{code: exitFailure}
		}
	}
	if runErr != nil {
		return &exitError{code: exitFailure}
	}
	log.Log(apply.Notice, "", fmt.Sprintf("Applied catalog in %.2f seconds", report.End.Sub(report.Start).Seconds()))
	verb := "changed"
	if *noop {
		verb = "would change"
	}
	changed := report.Changed
	if *noop {
		changed = report.OutOfSync
	}
	log.Log(apply.Notice, "", fmt.Sprintf("Summary: %d %s, %d %s, %d failed, %d skipped, %d refreshed",
		report.Resources, plural(report.Resources, "resource", "resources"), changed, verb, report.Failed, report.Skipped, report.Refreshed))
	if code := report.ExitCode(*detailed); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// parseTTL reads --statettl: a Go duration, a number of days ("32d"), or 0
// / "unlimited" for no pruning.
func parseTTL(s string) (time.Duration, error) {
	switch s {
	case "0", "unlimited":
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q (e.g. 32d, 12h, 0)", s)
	}
	return d, nil
}

// consoleLog prints log lines as Puppet's console does: Notice and Info on
// stdout, Warning and Error on stderr, each as "Level: source: message".
type consoleLog struct {
	out, err       io.Writer
	verbose, debug bool
}

func (c *consoleLog) Log(level apply.Level, src, msg string) {
	switch {
	case level == apply.Debug && !c.debug, level == apply.Info && !c.verbose:
		return
	}
	w := c.out
	if level >= apply.Warning {
		w = c.err
	}
	if src != "" {
		src += ": "
	}
	fmt.Fprintf(w, "%s: %s%s\n", level, src, msg)
}
