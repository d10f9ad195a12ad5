package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/inputfile"
	"github.com/almanac-sh/almanac/internal/posixid"
	"github.com/almanac-sh/almanac/internal/termtext"
	"github.com/almanac-sh/almanac/internal/zincati"
)

func init() {
	register("import", "print a manifest of jobs converted from a crontab, a Kubernetes CronJob or systemd timers: import crontab|cronjob|timer …", runImport)
}

// importUsage is the synopsis a bad invocation repeats.
const importUsage = "import: usage: almanac import crontab [--user U] [--system] [--tz ZONE] [--prefix P] FILE|-   or   almanac import cronjob [--container-runtime podman|docker] [--no-namespace-prefix] FILE.yaml|-   or   almanac import timer [--tz ZONE] [--prefix P] [--root DIR] UNIT.timer [UNIT.service] | DIR"

// importFlags are every kind's flags; flagKinds says which kinds take each.
type importFlags struct {
	user, tz, prefix, runtime, root string
	executor                        string
	system                          boolFlag
	ignoreCronTZ, noNSPrefix        bool
}

// boolFlag is a boolean flag that knows whether it was given.
type boolFlag struct{ value, given bool }

func (b *boolFlag) String() string   { return fmt.Sprint(b.value) }
func (b *boolFlag) IsBoolFlag() bool { return true }
func (b *boolFlag) Set(s string) error {
	v, err := parseBool(s)
	b.value, b.given = v, true
	return err
}

func parseBool(s string) (bool, error) {
	switch s {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, not %q", s)
}

var flagKinds = map[string][]string{
	"user": {"crontab"}, "system": {"crontab"}, "ignore-cron-tz": {"crontab"}, "tz": {"crontab", "timer"},
	"prefix": {"crontab", "timer"}, "root": {"timer"}, "container-runtime": {"cronjob"}, "no-namespace-prefix": {"cronjob"},
	"executor": {"cronjob"},
}

// runImport converts a crontab, CronJob YAML or timer units to a manifest
// on stdout; what could not be converted is reported on stderr as
// FILE:LINE: warnings, documents or units that could not be read at all
// as errors (exit 1, the rest still printed).
func runImport(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("import")
	var f importFlags
	fs.StringVar(&f.user, "user", "", "crontab: the crontab's owner, the `USER` of crontab -l -u USER: the jobs' run_as")
	fs.Var(&f.system, "system", "crontab: the system format of /etc/crontab and /etc/cron.d, with a user column (default: by the file's path; a file that looks like one is refused); --system=false reads a user crontab")
	fs.StringVar(&f.tz, "tz", "", "crontab, timer: read schedules that name no zone in `ZONE` (default: the host's zone, as cron and systemd read them)")
	fs.BoolVar(&f.ignoreCronTZ, "ignore-cron-tz", false, "crontab: ignore CRON_TZ as Debian's cron does (default: follow it, as cronie does)")
	fs.StringVar(&f.prefix, "prefix", "", "crontab, timer: start every job name with `PREFIX`-")
	fs.StringVar(&f.root, "root", "", "timer: look units up in the search path under `DIR` (a mounted image of the old host) instead of /")
	fs.StringVar(&f.runtime, "container-runtime", "", "cronjob: run each container's image with `RUNTIME` run --rm, RUNTIME podman or docker (default: run the container's command on the host)")
	fs.StringVar(&f.executor, "executor", "host", "cronjob: `EXECUTOR` host runs the first container's command on almanac's host; kubernetes keeps the jobTemplate and runs each run as a Kubernetes Job (docs/kubernetes.md)")
	fs.BoolVar(&f.noNSPrefix, "no-namespace-prefix", false, "cronjob: name jobs after metadata.name alone, not NAMESPACE-NAME")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef(importUsage)
	}
	kind := pos[0]
	if kind != "crontab" && kind != "cronjob" && kind != "timer" {
		return usagef(importUsage)
	}
	if kind != "timer" && len(pos) != 2 || kind == "timer" && len(pos) > 3 {
		return usagef(importUsage)
	}
	var misuse error
	fs.Visit(func(fl *flag.Flag) {
		for _, k := range flagKinds[fl.Name] {
			if k == kind {
				return
			}
		}
		misuse = usagef("import %s: --%s applies to %s only", kind, fl.Name, strings.Join(flagKinds[fl.Name], " and "))
	})
	if misuse != nil {
		return misuse
	}
	if f.user != "" {
		if err := posixid.CheckName("user", f.user); err != nil {
			return usagef("import crontab: --user: %v", err)
		}
	}
	res, err := convertImport(e, kind, pos[1:], &f)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(e.stdout, res.Manifest); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(e.stderr, "almanac: import: note: "+termtext.Escape(n))
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(e.stderr, "almanac: import: warning: "+termtext.Escape(w))
	}
	for _, x := range res.Errors {
		fmt.Fprintln(e.stderr, "almanac: import: error: "+termtext.Escape(x))
	}
	switch {
	case len(res.Errors) > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("import %s: %d of the inputs could not be read; the others were imported", kind, len(res.Errors))}
	case res.Jobs == 0:
		return fmt.Errorf("import %s: %s has no entry that could be imported", kind, pos[1])
	}
	return nil
}

// convertImport reads the input and runs the importer for kind.
func convertImport(e *env, kind string, files []string, f *importFlags) (importer.Result, error) {
	zone := f.tz
	if kind != "cronjob" {
		var err error
		if zone, err = importZone(f.tz); err != nil {
			return importer.Result{}, usagef("import %s: %v", kind, err)
		}
	}
	if kind == "timer" {
		timers, load, err := timerInputs(files, f.root)
		if err != nil {
			return importer.Result{}, usagef("import timer: %v", unwrapPath(err))
		}
		return importer.Timers(timers, load, importer.TimerOptions{Zone: zone, Prefix: f.prefix})
	}
	src, name, err := readInput(e, files[0])
	if err != nil {
		return importer.Result{}, usagef("import %s: %v", kind, unwrapPath(err))
	}
	var res importer.Result
	if kind == "crontab" {
		system := importer.SystemAuto
		if f.system.given {
			system = importer.SystemNo
			if f.system.value {
				system = importer.SystemYes
			}
		}
		if abs, err := filepath.Abs(name); err == nil && !f.system.given && name != "<stdin>" &&
			(abs == "/etc/crontab" || strings.HasPrefix(abs, "/etc/cron.d/")) {
			system = importer.SystemYes
		}
		res, err = importer.Crontab(name, src, importer.CrontabOptions{User: f.user, System: system, Zone: zone,
			IgnoreCronTZ: f.ignoreCronTZ, Prefix: f.prefix, IsUser: hostAccount})
	} else {
		res, err = importer.CronJob(name, src, importer.CronJobOptions{NoNamespacePrefix: f.noNSPrefix, ContainerRuntime: f.runtime, Executor: f.executor})
	}
	if err != nil {
		return res, usagef("import %s: %v", kind, err)
	}
	return res, nil
}

// hostAccount reports whether name is an account in this host's user
// database, which a system crontab's user column names.
func hostAccount(name string) bool {
	_, err := user.Lookup(name)
	return err == nil
}

// importZone is --tz, or the host's zone: TZ, else /etc/localtime.
func importZone(tz string) (string, error) {
	if tz == "" {
		tz = strings.TrimPrefix(os.Getenv("TZ"), ":")
	}
	if tz == "" {
		local, err := zincati.LocalZone()
		if err != nil {
			return "", fmt.Errorf("the host's zone: %w (pass --tz ZONE)", err)
		}
		tz = local
	}
	if _, err := calendar.LoadZone(tz); err != nil {
		return "", fmt.Errorf("--tz %s: %w", tz, err)
	}
	return tz, nil
}

// readInput reads a user file through inputfile, or standard input for
// "-" (bounded the same way), and returns the name to report it by.
func readInput(e *env, file string) ([]byte, string, error) {
	if file != "-" {
		b, err := inputfile.Read(file)
		return b, file, err
	}
	if e.stdin == nil {
		return nil, "", fmt.Errorf("no standard input")
	}
	limit := inputfile.MaxSize()
	b, err := io.ReadAll(io.LimitReader(e.stdin, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("read standard input: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, "", fmt.Errorf("standard input: %w: over the %d-byte limit", inputfile.ErrTooLarge, limit)
	}
	return b, "<stdin>", nil
}
