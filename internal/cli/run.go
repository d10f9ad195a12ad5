package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/calendar"
)

func init() {
	register("run", "create or update a job on the daemon: run NAME --schedule CRON | --on-calendar EVENT | --at TIME -- COMMAND...", escaped(runRun))
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// atLayouts are the accepted --at forms without an offset; they are read in
// --tz (default UTC).
var atLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}

// runRun creates or replaces a job. A single COMMAND argument is a shell
// command line (run by /bin/sh -c); several are an argument vector.
func runRun(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("run")
	schedule := fs.String("schedule", "", "cron expression of a repeating job")
	dialect := fs.String("dialect", "", "how --schedule is read: vixie (default) or kubernetes (a Kubernetes CronJob's rules)")
	var onCalendar stringsFlag
	fs.Var(&onCalendar, "on-calendar", "systemd calendar event of a repeating job, like 'Mon..Fri *-*-* 09:00' (repeatable: the union)")
	delay := fs.Duration("randomized-delay", 0, "delay every run by a fixed per-job offset below this (whole seconds, like 30s)")
	at := fs.String("at", "", "instant of a one-shot job (RFC 3339, or YYYY-MM-DDTHH:MM in --tz)")
	tz := fs.String("tz", "", "time zone of the schedule (IANA name or tag form; default UTC)")
	var notify stringsFlag
	fs.Var(&notify, "notify", "where to report the job's outcomes: mailto:ADDRESS, an http(s):// webhook or slack+https://URL (repeatable)")
	notifyOn := fs.String("notify-on", "", "outcomes to report, comma-separated: failure, missed, recovered, success (default failure,missed)")
	alertAfter := fs.Duration("alert-after", 0, "send one overdue notification when the job has not succeeded for this long (like 26h)")
	runAs := fs.String("run-as", "", "run the command as this USER or USER:GROUP (the daemon must run as root)")
	nodes := fs.String("nodes", "", "cluster nodes to run on: any (default), all, a node name or a label selector like role=db,zone!=eu")
	maxParallel := fs.String("max-parallel", "", "with --nodes: how many nodes run an instant at once, a count or a percentage like 25% (default all at once)")
	maxFailures := fs.Int("max-failures", 0, "with --nodes: stop an instant's wave after this many failed nodes (default 0: never stop)")
	waveOrder := fs.String("wave-order", "", "with --nodes: the order nodes take their turn: name (default) or random")
	rebootGroup := fs.String("reboot-group", "", "with --nodes: the FleetLock reboot group whose slot each node's run takes while it runs")
	catchUp := fs.String("catch-up", "", "instants a run could not start at (daemon down, gate closed, node away): latest (default: only the latest waits), all, or none")
	gate := fs.String("gate", "", "the schedule gate (a named window or manifest schedule) every run waits for; the job's `schedule` field")
	deadline := fs.Duration("deadline", 0, "starting deadline: a run that cannot start within this of its instant is missed (whole seconds, like 10m)")
	concurrency := fs.String("concurrency", "", "what a fire does while a run is active: allow (default), forbid (skip it) or replace (kill the active run)")
	retries := fs.Int("retries", 0, "retry a failed run up to this many times, with backoff")
	timeout := fs.Duration("timeout", 0, "kill a run that takes longer than this (default: no limit)")
	keepSucceeded := fs.Int("keep-succeeded", 0, "succeeded runs kept in the history (default 3)")
	keepFailed := fs.Int("keep-failed", 0, "failed, killed and missed runs kept in the history (default 1)")
	kubeNS := fs.String("kubernetes-namespace", "", "run each run as a Kubernetes Job in this namespace (with --kubernetes-template, instead of a COMMAND)")
	kubeTpl := fs.String("kubernetes-template", "", "`FILE` holding the batch/v1 JobTemplateSpec (YAML or JSON) of a Kubernetes job's Jobs")
	kubeCtx := fs.String("kubernetes-context", "", "the daemon's kubeconfig context of a Kubernetes job (default: its current one)")
	var window stringsFlag
	fs.Var(&window, "window", "with --nodes: SELECTOR=NAME, the window (schedule gate) the matching nodes' runs wait for; default=NAME for the other nodes (repeatable)")
	cf := addOutputFlags(fs)
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("run: missing job NAME (usage: almanac run NAME --schedule CRON | --at TIME [--tz ZONE] -- COMMAND...)")
	}
	name, command := pos[0], pos[1:]
	if err := checkJobName("run", name); err != nil {
		return err
	}
	kube, err := kubernetesFlags(*kubeNS, *kubeTpl, *kubeCtx, len(command) > 0)
	if err != nil {
		return err
	}
	if len(command) == 0 && kube == nil {
		return usagef("run: missing COMMAND after -- (usage: almanac run NAME --schedule CRON -- COMMAND...)")
	}
	spec := apitype.JobSpec{TimeZone: *tz, Notify: notify, AlertAfter: apitype.Duration(*alertAfter), RunAs: *runAs, Nodes: *nodes,
		MaxParallel: *maxParallel, MaxFailures: *maxFailures, WaveOrder: *waveOrder, RebootGroup: *rebootGroup, CatchUp: *catchUp}
	if spec.Window, err = parseWindows(window); err != nil {
		return err
	}
	if err := runPolicyFlags(fs, &spec, runPolicy{*gate, *deadline, *concurrency, *retries, *timeout, *keepSucceeded, *keepFailed}); err != nil {
		return err
	}
	if *notifyOn != "" {
		for _, o := range strings.Split(*notifyOn, ",") {
			spec.NotifyOn = append(spec.NotifyOn, strings.TrimSpace(o))
		}
	}
	if *delay < 0 || *delay%time.Second != 0 {
		return usagef("run: --randomized-delay %s is not a whole number of seconds", *delay)
	}
	spec.RandomizedDelaySeconds = int64(*delay / time.Second)
	if *dialect != "" && *schedule == "" {
		return usagef("run: --dialect applies to --schedule")
	}
	given := 0
	for _, g := range []bool{*schedule != "", len(onCalendar) > 0, *at != ""} {
		if g {
			given++
		}
	}
	switch {
	case given > 1:
		return usagef("run: give one of --schedule, --on-calendar and --at, not both")
	case *schedule != "":
		spec.Cron, spec.CronDialect = *schedule, *dialect
	case len(onCalendar) > 0:
		spec.OnCalendar = onCalendar
	case *at != "":
		t, err := parseAt(*at, *tz)
		if err != nil {
			return err
		}
		spec.At = &t
	default:
		return usagef("run: give --schedule CRON or --on-calendar EVENT (repeating) or --at TIME (once)")
	}
	switch {
	case kube != nil:
		spec.Kubernetes = kube
	case len(command) == 1:
		spec.Command = apitype.Command{Shell: command[0]}
	default:
		spec.Command = apitype.Command{Argv: command}
	}

	c, err := cf.client()
	if err != nil {
		return err
	}
	j, created, err := c.JobPut(ctx, name, spec)
	if err != nil {
		return apiErr(runInputErr(name, runInput{*schedule, onCalendar, *at, *tz, window, *maxParallel, *waveOrder, *catchUp, *gate, *concurrency}, err))
	}
	if jsonOut {
		return writeJSONOut(e.stdout, j)
	}
	verb := "updated"
	if created {
		verb = "created"
	}
	next := "no further runs scheduled"
	if j.Status.NextScheduleTime != nil {
		next = "next run " + fmtTime(j.Status.NextScheduleTime)
	}
	fmt.Fprintf(e.stdout, "job %s %s (%s)\n", j.Name, verb, next)
	if spec.At != nil && spec.At.Before(e.now()) {
		fmt.Fprintf(e.stderr, "run %s: note: --at %s is in the past: the daemon runs it now if that is within its starting deadline, else records it as missed\n",
			j.Name, spec.At.UTC().Format(time.RFC3339))
	}
	return nil
}

// runInput is what the user typed for the fields the daemon may refuse.
type runInput struct {
	schedule               string
	onCalendar             []string
	at, tz                 string
	window                 []string
	maxParallel, waveOrder string
	catchUp                string
	gate, concurrency      string
}

// runInputErr rewrites an error the daemon gave for one field of the job
// into the flag the user typed ("--schedule \"bogus\": cron: ..."), so the
// message says where the bad input is.
func runInputErr(name string, in runInput, err error) error {
	var ae *apiclient.Error
	if !errors.As(err, &ae) {
		return err
	}
	where := map[string]string{
		"cron":                          "--schedule " + strconv.Quote(in.schedule),
		"at":                            "--at " + strconv.Quote(in.at),
		"time_zone":                     "--tz " + strconv.Quote(in.tz),
		"command":                       "COMMAND",
		"kubernetes.namespace":          "--kubernetes-namespace",
		"kubernetes.job_template":       "--kubernetes-template",
		"kubernetes.context":            "--kubernetes-context",
		"max_parallel":                  "--max-parallel " + strconv.Quote(in.maxParallel),
		"max_failures":                  "--max-failures",
		"wave_order":                    "--wave-order " + strconv.Quote(in.waveOrder),
		"catch_up":                      "--catch-up " + strconv.Quote(in.catchUp),
		"window":                        "--window",
		"reboot_group":                  "--reboot-group",
		"schedule":                      "--gate " + strconv.Quote(in.gate),
		"starting_deadline_seconds":     "--deadline",
		"concurrency_policy":            "--concurrency " + strconv.Quote(in.concurrency),
		"backoff_limit":                 "--retries",
		"timeout":                       "--timeout",
		"successful_jobs_history_limit": "--keep-succeeded",
		"failed_jobs_history_limit":     "--keep-failed",
	}[ae.API.Field]
	var i int
	if _, err := fmt.Sscanf(ae.API.Field, "on_calendar[%d]", &i); err == nil && i >= 0 && i < len(in.onCalendar) {
		where = "--on-calendar " + strconv.Quote(in.onCalendar[i])
	}
	if key, ok := strings.CutPrefix(ae.API.Field, "window["); ok {
		key = strings.TrimSuffix(key, "]")
		for _, w := range in.window {
			if k, _ := splitWindow(w); strings.TrimSpace(k) == key {
				where = "--window " + strconv.Quote(w)
			}
		}
	}
	if where == "" {
		return fmt.Errorf("run %s: %w", name, err)
	}
	named := *ae
	named.API.Field = where
	return fmt.Errorf("run %s: %w", name, &named)
}

// splitWindow splits a --window SELECTOR=NAME at its last '=', as a
// selector may hold '=' itself (role=db=db-weekend).
func splitWindow(s string) (selector, name string) {
	i := strings.LastIndexByte(s, '=')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// parseWindows reads the --window flags into a job's window map; the
// daemon checks the selectors and that each name is a gate.
func parseWindows(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(flags))
	for _, w := range flags {
		sel, name := splitWindow(w)
		sel, name = strings.TrimSpace(sel), strings.TrimSpace(name)
		if sel == "" || name == "" {
			return nil, usagef("run: --window %q: want SELECTOR=NAME, such as role=db=db-weekend or default=anytime", w)
		}
		if _, dup := out[sel]; dup {
			return nil, usagef("run: --window %q: %s is given a window twice", w, sel)
		}
		out[sel] = name
	}
	return out, nil
}

// parseAt reads --at: RFC 3339 with an offset, or a wall time in zone.
func parseAt(s, zone string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	loc := time.UTC
	if zone != "" {
		l, err := calendar.LoadZone(zone)
		if err != nil {
			return time.Time{}, usagef("run: --tz: %v", err)
		}
		loc = l
	}
	for _, layout := range atLayouts {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(s), loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("run: --at %q is not a time (want RFC 3339 like 2030-01-02T15:04:05Z, or 2030-01-02T15:04 read in --tz)", s)
}

// runPolicy is what `run` was given of a job's policies.
type runPolicy struct {
	gate                      string
	deadline                  time.Duration
	concurrency               string
	retries                   int
	timeout                   time.Duration
	keepSucceeded, keepFailed int
}

// runPolicyFlags sets the spec's gate, starting deadline, concurrency
// policy, retries, timeout and history limits from the flags the user gave
// (a flag not given leaves the daemon's default), refusing values no job
// may have. The daemon checks the rest (that the gate exists).
func runPolicyFlags(fs *flag.FlagSet, spec *apitype.JobSpec, p runPolicy) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	spec.Gate = p.gate
	if given["deadline"] {
		if p.deadline < 0 || p.deadline%time.Second != 0 {
			return usagef("run: --deadline %s: want a whole number of seconds, like 10m", p.deadline)
		}
		secs := int64(p.deadline / time.Second)
		spec.StartingDeadlineSeconds = &secs
	}
	if p.concurrency != "" {
		switch strings.ToLower(p.concurrency) {
		case "allow", "forbid", "replace":
			spec.ConcurrencyPolicy = strings.ToUpper(p.concurrency[:1]) + strings.ToLower(p.concurrency[1:])
		default:
			return usagef("run: --concurrency %q: want allow, forbid or replace", p.concurrency)
		}
	}
	if p.retries < 0 {
		return usagef("run: --retries %d: want 0 or more", p.retries)
	}
	spec.BackoffLimit = p.retries
	if given["timeout"] {
		if p.timeout <= 0 {
			return usagef("run: --timeout %s: want a positive duration, like 30m", p.timeout)
		}
		spec.Timeout = apitype.Duration(p.timeout)
	}
	for _, k := range []struct {
		name string
		n    int
		to   **int
	}{{"keep-succeeded", p.keepSucceeded, &spec.SuccessfulJobsHistoryLimit}, {"keep-failed", p.keepFailed, &spec.FailedJobsHistoryLimit}} {
		if !given[k.name] {
			continue
		}
		if k.n < 0 {
			return usagef("run: --%s %d: want 0 or more", k.name, k.n)
		}
		n := k.n
		*k.to = &n
	}
	return nil
}
