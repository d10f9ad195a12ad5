package job

import (
	"fmt"
	"maps"
	"net/mail"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/fleetlock/groupname"
	"github.com/almanac-sh/almanac/internal/jobname"
	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/posixid"
	"github.com/almanac-sh/almanac/internal/store"
)

// The bounds of a job spec's fields. Every entry point (the API, manifests,
// `almanac run`) checks a spec with Validate, so these are the only limits.
const (
	// MaxNameLen is the longest job name, in bytes.
	MaxNameLen = 128
	// MaxDurationSeconds bounds starting_deadline_seconds and timeout:
	// 366 days. Larger values would overflow time arithmetic and mean
	// nothing for a scheduler.
	MaxDurationSeconds = 366 * 24 * 3600
	// MaxBackoffLimit bounds backoff_limit (retries of one instant).
	MaxBackoffLimit = 100
	// MaxHistoryLimit bounds the two history limits.
	MaxHistoryLimit = 1000
	// MaxArgs and MaxCommandBytes bound the command.
	MaxArgs         = 1024
	MaxCommandBytes = 64 << 10
	// MaxEnv bounds the number of environment variables.
	MaxEnv = 1024
	// MaxRefs bounds the require and before lists.
	MaxRefs = 256
	// MaxCalendarEvents bounds the on_calendar list.
	MaxCalendarEvents = 64
	// MaxWindowEntries bounds the window map, and MaxGateNameLen each
	// gate name it gives.
	MaxWindowEntries = 64
	MaxGateNameLen   = 256
	// MaxWaveFailures bounds max_failures.
	MaxWaveFailures = 1 << 20
)

// The orders a job's wave_order may name.
const (
	// WaveOrderName starts a wave's nodes in the order of their names
	// (the default).
	WaveOrderName = "name"
	// WaveOrderRandom shuffles them, seeded by the job and the instant.
	WaveOrderRandom = "random"
)

// WindowDefault is the window key for the nodes no other key matches.
const WindowDefault = "default"

// The cron dialects a job's cron_dialect may name.
const (
	// DialectVixie is almanac's cron (docs/cron.md), the default.
	DialectVixie = "vixie"
	// DialectKubernetes reads cron as a Kubernetes CronJob does.
	DialectKubernetes = "kubernetes"
)

// MinInstant and MaxInstant bound an `at` instant: the Unix epoch, and the
// first instant of year 9999, so every fire has a four-digit year in any
// zone.
var (
	MinInstant = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxInstant = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
)

// FieldError is one problem with one field of a spec. Field uses the API's
// JSON names, with an index or key where one element is to blame
// (command[0], env.PATH, require[2]).
type FieldError struct {
	Field   string
	Message string
}

func (e FieldError) String() string { return e.Field + ": " + e.Message }

// ValidationError lists everything wrong with a job spec.
type ValidationError struct {
	Job    string
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.String()
	}
	return fmt.Sprintf("job %q: %s", e.Job, strings.Join(parts, "; "))
}

// validator collects the problems of one spec.
type validator struct{ errs []FieldError }

func (v *validator) add(field, format string, a ...any) {
	v.errs = append(v.errs, FieldError{Field: field, Message: fmt.Sprintf(format, a...)})
}

// between checks 0 <= n <= max for an integer field.
func (v *validator) between(field string, n, max int64) {
	if n < 0 || n > max {
		v.add(field, "must be between 0 and %d, not %d", max, n)
	}
}

// Validate checks a spec against every rule a job must follow and
// normalises it in place (default concurrency policy, canonical zone name,
// `at` in UTC). parse compiles the cron expression; it may be nil to skip
// checking the expression itself. The error, if any, is a
// *ValidationError listing every problem.
func Validate(spec *store.JobSpec, parse ParseFunc) error {
	var v validator
	if !jobname.Valid(spec.Name) {
		v.add("name", "job name %q must be %s", spec.Name, jobname.Rule)
	}
	loc := v.zone(spec)
	v.schedule(spec, parse, loc)
	if spec.Kubernetes != nil {
		v.kubernetes(spec)
	} else {
		v.command(spec)
	}
	v.env(spec)
	if spec.Cwd != "" && !filepath.IsAbs(spec.Cwd) {
		v.add("cwd", "working directory %q must be an absolute path", spec.Cwd)
	}
	if d := spec.StartingDeadlineSeconds; d != nil {
		v.between("starting_deadline_seconds", *d, MaxDurationSeconds)
	}
	switch spec.ConcurrencyPolicy {
	case "":
		spec.ConcurrencyPolicy = store.Allow
	case store.Allow, store.Forbid, store.Replace:
	default:
		v.add("concurrency_policy", "%q is not one of Allow, Forbid, Replace", spec.ConcurrencyPolicy)
	}
	v.between("backoff_limit", int64(spec.BackoffLimit), MaxBackoffLimit)
	if spec.TimeoutSeconds < 0 || spec.TimeoutSeconds > MaxDurationSeconds {
		v.add("timeout", "must be between 0 and %d seconds (366 days), not %d", MaxDurationSeconds, spec.TimeoutSeconds)
	}
	if l := spec.SuccessfulJobsHistoryLimit; l != nil {
		v.between("successful_jobs_history_limit", int64(*l), MaxHistoryLimit)
	}
	if l := spec.FailedJobsHistoryLimit; l != nil {
		v.between("failed_jobs_history_limit", int64(*l), MaxHistoryLimit)
	}
	v.notify(spec)
	if spec.RunAs != "" {
		if err := posixid.CheckRunAs(spec.RunAs); err != nil {
			v.add("run_as", "%q is not USER or USER:GROUP: %v", spec.RunAs, err)
		}
	}
	v.fleet(spec)
	if a := spec.AlertAfterSeconds; a != 0 && (a < 60 || a > MaxDurationSeconds) {
		v.add("alert_after", "must be between 1 minute and 366 days, not %s", time.Duration(a)*time.Second)
	}
	v.refs(spec.Name, "require", spec.Requires)
	v.refs(spec.Name, "before", spec.Before)
	for i, b := range spec.Before {
		for _, r := range spec.Requires {
			if b == r {
				v.add(fmt.Sprintf("before[%d]", i), "job %q is in both require and before, a cycle", b)
			}
		}
	}
	if len(v.errs) > 0 {
		return &ValidationError{Job: spec.Name, Fields: v.errs}
	}
	return nil
}

// fleet checks the nodes selector and the fields of fan-out and rolling
// waves, which mean something only for a job whose nodes are not any.
func (v *validator) fleet(spec *store.JobSpec) {
	sel, err := nodeselect.Parse(spec.Nodes)
	if err != nil {
		v.add("nodes", "%v", err)
	}
	v.window(spec)
	if len(spec.MaxParallel) > maxParallelLen {
		v.add("max_parallel", "%d bytes long; want a count or a percentage such as 25%%", len(spec.MaxParallel))
	} else if _, _, err := ParseMaxParallel(spec.MaxParallel); err != nil {
		v.add("max_parallel", "%s", strings.TrimPrefix(err.Error(), "max_parallel: "))
	}
	if spec.MaxFailures < 0 || spec.MaxFailures > MaxWaveFailures {
		v.add("max_failures", "must be between 0 (never stop) and %d, not %d", MaxWaveFailures, spec.MaxFailures)
	}
	switch spec.CatchUp {
	case "", CatchUpLatest, CatchUpAll, CatchUpNone:
	default:
		v.add("catch_up", "%.40q is not one of %s, %s, %s", spec.CatchUp, CatchUpLatest, CatchUpAll, CatchUpNone)
	}
	switch spec.WaveOrder {
	case "", WaveOrderName, WaveOrderRandom:
	default:
		v.add("wave_order", "%q is not one of %s, %s", spec.WaveOrder, WaveOrderName, WaveOrderRandom)
	}
	if spec.RebootGroup != "" && !groupname.Valid(spec.RebootGroup) {
		v.add("reboot_group", "%.140q is not a reboot group name: letters, digits, '.' and '-', at most 128 characters, as FleetLock clients send it", spec.RebootGroup)
	}
	if err != nil || sel.Mode != nodeselect.ModeAny {
		return
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"window", len(spec.Window) > 0}, {"max_parallel", spec.MaxParallel != ""},
		{"max_failures", spec.MaxFailures != 0}, {"wave_order", spec.WaveOrder != ""},
		{"reboot_group", spec.RebootGroup != ""},
	} {
		if f.set {
			v.add(f.name, "applies only to a job that fans out: set nodes to all, a node name or a label selector (nodes is any)")
		}
	}
}

// maxParallelLen bounds max_parallel's text, so its error stays short.
const maxParallelLen = 32

// window checks the window map: each key "default" or a label selector
// (or node name) that picks particular nodes, each value a gate name. It
// trims spaces around keys and values.
func (v *validator) window(spec *store.JobSpec) {
	if len(spec.Window) == 0 {
		spec.Window = nil
		return
	}
	if len(spec.Window) > MaxWindowEntries {
		v.add("window", "%d entries; the limit is %d", len(spec.Window), MaxWindowEntries)
		return
	}
	out := make(map[string]string, len(spec.Window))
	from := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(spec.Window)) {
		key, val := strings.TrimSpace(k), strings.TrimSpace(spec.Window[k])
		f := "window[" + key + "]"
		switch {
		case key == "":
			v.add("window", "a key is empty: want %q or a label selector such as role=db", WindowDefault)
			continue
		case len(key) > nodeselect.MaxLen:
			v.add("window", "a key is %d bytes long; the limit is %d", len(key), nodeselect.MaxLen)
			continue
		case key != WindowDefault:
			sel, err := nodeselect.Parse(key)
			switch {
			case err != nil:
				v.add(f, "%v", err)
				continue
			case sel.Mode != nodeselect.ModeMatch:
				v.add(f, "%q would be every node: use the key %q for the nodes no other key matches", key, WindowDefault)
				continue
			}
		}
		switch {
		case val == "":
			v.add(f, "the window name is empty")
		case len(val) > MaxGateNameLen:
			v.add(f, "the window name is %d bytes long; the limit is %d", len(val), MaxGateNameLen)
		case strings.ContainsFunc(val, unicode.IsControl):
			v.add(f, "the window name %q contains a control character", val)
		}
		if prev, dup := from[key]; dup {
			v.add(f, "keys %q and %q are the same once trimmed", prev, k)
		}
		from[key] = k
		out[key] = val
	}
	spec.Window = out
}

// zone checks and canonicalises the time zone and returns it.
func (v *validator) zone(spec *store.JobSpec) *time.Location {
	if spec.TimeZone == "" {
		return time.UTC
	}
	l, err := calendar.LoadZone(spec.TimeZone)
	if err != nil {
		v.add("time_zone", "%v", err)
		return time.UTC
	}
	spec.TimeZone = l.String()
	return l
}

// schedule checks that exactly one of cron, on_calendar, at and manual is
// set, and that it is usable.
func (v *validator) schedule(spec *store.JobSpec, parse ParseFunc, loc *time.Location) {
	v.between("randomized_delay_seconds", spec.RandomizedDelaySeconds, MaxDurationSeconds)
	switch spec.CronDialect {
	case "", DialectVixie, DialectKubernetes:
		if spec.CronDialect != "" && spec.Cron == "" {
			v.add("cron_dialect", "applies only to a cron expression")
		}
	default:
		v.add("cron_dialect", "%q is not one of %s, %s", spec.CronDialect, DialectVixie, DialectKubernetes)
	}
	set := 0
	for _, has := range []bool{spec.Cron != "", len(spec.OnCalendar) > 0, spec.At != nil} {
		if has {
			set++
		}
	}
	switch {
	case spec.Manual && set > 0:
		v.add("manual", "a manual job has no schedule: set manual, or one of cron, on_calendar and at, not both")
	case spec.Manual:
		// Runs only when triggered.
	case set == 0:
		v.add("cron", "a job needs cron (a cron schedule), on_calendar (systemd calendar events), at (one instant) or manual (no schedule: runs only when triggered)")
	case set > 1:
		v.add("cron", "set only one of cron, on_calendar and at, not both or all three")
	case len(spec.OnCalendar) > 0:
		v.onCalendar(spec, loc)
	case spec.At != nil:
		if spec.At.Before(MinInstant) || !spec.At.Before(MaxInstant) {
			v.add("at", "must be between %s and %s, not %s", MinInstant.Format(time.RFC3339), MaxInstant.Format(time.RFC3339), spec.At.Format(time.RFC3339))
		} else {
			at := spec.At.UTC()
			spec.At = &at
		}
	case len(spec.Cron) > 1024:
		v.add("cron", "expression is %d bytes long; the limit is 1024", len(spec.Cron))
	case spec.CronDialect == DialectKubernetes:
		if err := checkKubernetesZone(spec); err != nil {
			v.add("cron", "%v", err)
		} else if _, err := parseKubernetes(spec.Cron, loc); err != nil {
			v.add("cron", "%s", strings.TrimPrefix(err.Error(), "cron: "))
		}
	case parse != nil:
		if _, err := parse(spec.Name, spec.Cron, loc); err != nil {
			v.add("cron", "%s", strings.TrimPrefix(err.Error(), "cron: "))
		}
	}
}

// onCalendar checks the systemd calendar events of spec.
func (v *validator) onCalendar(spec *store.JobSpec, loc *time.Location) {
	if len(spec.OnCalendar) > MaxCalendarEvents {
		v.add("on_calendar", "%d calendar events; the limit is %d", len(spec.OnCalendar), MaxCalendarEvents)
		return
	}
	for i, e := range spec.OnCalendar {
		f := fmt.Sprintf("on_calendar[%d]", i)
		if len(e) > 1024 {
			v.add(f, "calendar event is %d bytes long; the limit is 1024", len(e))
		} else if _, err := parseCalendar(e, loc); err != nil {
			v.add(f, "%s", strings.TrimPrefix(err.Error(), "oncalendar: "))
		}
	}
}

// command checks the command: an argv array or a shell string.
func (v *validator) command(spec *store.JobSpec) {
	switch {
	case len(spec.Command) == 0 && spec.Shell == "":
		v.add("command", "a job needs a command (an array of arguments, or a string run by /bin/sh -c) or a kubernetes attribute")
		return
	case len(spec.Command) > 0 && spec.Shell != "":
		v.add("command", "command is either an argv array or a shell string, not both")
		return
	case spec.Shell != "":
		switch {
		case strings.TrimSpace(spec.Shell) == "":
			v.add("command", "command is blank")
		case strings.ContainsRune(spec.Shell, 0):
			v.add("command", "command contains a NUL byte")
		case len(spec.Shell) > MaxCommandBytes:
			v.add("command", "command is %d bytes long; the limit is %d", len(spec.Shell), MaxCommandBytes)
		}
		return
	}
	if spec.Command[0] == "" {
		v.add("command[0]", "the program name is empty")
	}
	if len(spec.Command) > MaxArgs {
		v.add("command", "%d arguments; the limit is %d", len(spec.Command), MaxArgs)
		return
	}
	total := 0
	for i, a := range spec.Command {
		total += len(a)
		if strings.ContainsRune(a, 0) {
			v.add(fmt.Sprintf("command[%d]", i), "argument contains a NUL byte")
		}
	}
	if total > MaxCommandBytes {
		v.add("command", "the arguments are %d bytes long; the limit is %d", total, MaxCommandBytes)
	}
}

// env checks environment variable names and values.
func (v *validator) env(spec *store.JobSpec) {
	if len(spec.Env) > MaxEnv {
		v.add("env", "%d variables; the limit is %d", len(spec.Env), MaxEnv)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.add("env", "environment variable name %q must be non-empty without '=' or NUL", k)
		} else if strings.ContainsRune(spec.Env[k], 0) {
			v.add("env."+k, "value contains a NUL byte")
		}
	}
}

// MaxNotify bounds the notify list.
const MaxNotify = 16

// NotifyOutcomes are the outcomes notify_on may name, and DefaultNotifyOn
// what is reported when it names none.
var (
	NotifyOutcomes  = []string{"failure", "missed", "recovered", "success"}
	DefaultNotifyOn = []string{"failure", "missed"}
)

// CheckNotifyTarget reports what is wrong with a notify target:
// mailto:ADDRESS, an http:// or https:// URL (a webhook receiving JSON), or
// slack+https://URL (a Slack-compatible incoming webhook receiving text).
func CheckNotifyTarget(t string) error {
	switch scheme, rest, _ := strings.Cut(t, ":"); scheme {
	case "mailto":
		a, err := mail.ParseAddress(rest)
		if err != nil || a.Name != "" || a.Address != rest {
			return fmt.Errorf("%q is not mailto: followed by one email address", t)
		}
		return nil
	case "http", "https", "slack+https":
		u, err := url.Parse(t)
		if err != nil || u.Host == "" || len(t) > 2048 {
			return fmt.Errorf("%q is not a valid URL", t)
		}
		return nil
	}
	return fmt.Errorf("%q: want mailto:ADDRESS, an http(s):// webhook URL or slack+https://URL", t)
}

// notify checks the notification targets and outcomes.
func (v *validator) notify(spec *store.JobSpec) {
	if len(spec.Notify) > MaxNotify {
		v.add("notify", "%d targets; the limit is %d", len(spec.Notify), MaxNotify)
		return
	}
	for i, t := range spec.Notify {
		if err := CheckNotifyTarget(t); err != nil {
			v.add(fmt.Sprintf("notify[%d]", i), "%v", err)
		}
	}
	for i, o := range spec.NotifyOn {
		if !slices.Contains(NotifyOutcomes, o) {
			v.add(fmt.Sprintf("notify_on[%d]", i), "%q is not one of %s", o, strings.Join(NotifyOutcomes, ", "))
		}
	}
}

// refs checks a list of job names (require, before).
func (v *validator) refs(self, field string, names []string) {
	if len(names) > MaxRefs {
		v.add(field, "%d jobs; the limit is %d", len(names), MaxRefs)
		return
	}
	seen := map[string]bool{}
	for i, r := range names {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !jobname.Valid(r):
			v.add(f, "job name %q must be %s", r, jobname.Rule)
		case r == self:
			v.add(f, "a job cannot list itself in %s", field)
		case seen[r]:
			v.add(f, "job %q is listed twice", r)
		}
		seen[r] = true
	}
}
