package manifestjob

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/puppetsched"
	"github.com/almanac-sh/almanac/internal/store"
)

// Set is what a catalog declares for the job controller.
type Set struct {
	// Jobs are the job specs, validated and normalised, sorted by name.
	Jobs []store.JobSpec
	// Gates are the catalog's schedules that can gate a job (those without
	// a period), and the named windows its jobs and reboot groups name, by
	// name.
	Gates map[string]job.Gate
	// Unusable are the catalog's schedules that cannot gate a job, each
	// with why (a period limits how often, which a job's cron decides).
	Unusable map[string]string
	// SuspendSet names the jobs whose resource sets `suspend` itself;
	// for the others an operator's suspend or resume may stand.
	SuspendSet map[string]bool
	// RebootGroups are the reboot_group resources.
	RebootGroups []RebootGroup
	// Files names, by job, the manifest file that declares it: the
	// actor ("manifest:FILE") of the job's events.
	Files map[string]string
}

// FromCatalog converts the catalog's (non-virtual) job resources. parse is
// the controller's cron parser (nil: job.ParseCron, the one the daemon
// uses), so an expression the controller would refuse is refused here, at
// its position. The error is a
// manifest.ErrorList with every problem, sorted by position. opts apply to
// every schedule a job names; the daemon passes the zone that schedules
// without time_zone read wall-clock time in, the same zone agent mode uses.
func FromCatalog(cat *catalog.Catalog, parse job.ParseFunc, opts ...puppetsched.Option) (*Set, error) {
	return FromCatalogWindows(cat, parse, nil, opts...)
}

// Windows resolves the named windows a job's schedule gate may name
// besides the manifests' own schedules; nil means there are none.
type Windows = job.GateFunc

// FromCatalogWindows is [FromCatalog] for a daemon that also has named
// windows (--windows): windows resolves the gate names the catalog does
// not declare as schedules, before Puppet's built-in schedules. A schedule
// resource with the name of a named window is an error at its position:
// a name gates one thing only. windows may be nil.
func FromCatalogWindows(cat *catalog.Catalog, parse job.ParseFunc, windows job.GateFunc, opts ...puppetsched.Option) (*Set, error) {
	c := newConversion(cat, parse, windows, opts, true)
	c.run()
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	set := c.set
	slices.SortFunc(set.Jobs, func(a, b store.JobSpec) int { return cmp.Compare(a.Name, b.Name) })
	set.detach()
	return set, nil
}

// detach gives the parts of set that a daemon keeps for as long as the
// manifests are in force (Gates, Unusable, RebootGroups) strings of their
// own, so that they keep none of the manifest text in memory. Jobs are
// left pointing into it: they are stored, and the store keeps copies.
func (set *Set) detach() {
	gates := make(map[string]job.Gate, len(set.Gates))
	for name, g := range set.Gates {
		gates[strings.Clone(name)] = g
	}
	unusable := make(map[string]string, len(set.Unusable))
	for name, why := range set.Unusable {
		unusable[strings.Clone(name)] = strings.Clone(why)
	}
	set.Gates, set.Unusable = gates, unusable
	for i := range set.RebootGroups {
		g := &set.RebootGroups[i]
		g.Name, g.Window, g.Secret = strings.Clone(g.Name), strings.Clone(g.Window), strings.Clone(g.Secret)
		g.Pos.File = strings.Clone(g.Pos.File)
	}
}

// Check converts and checks the catalog's jobs exactly as
// [FromCatalogWindows] does, without keeping them: a job is checked and
// dropped as soon as it is converted (one ordered against other jobs once
// its relationships are known), so checking a manifest of 300,000 jobs
// holds memory for the catalog, not for 300,000 specs. It returns the
// warnings validate prints: the jobs whose run_as this host cannot run as
// (see [Set.HostRunAsWarnings]) and the reboot groups whose window is
// unknown (see [Set.UnknownWindows], known as there), at most
// manifest.MaxErrors of them and a count of the rest. The error is a
// manifest.ErrorList, as FromCatalogWindows returns.
func Check(cat *catalog.Catalog, parse job.ParseFunc, windows job.GateFunc, known func(name string) bool, opts ...puppetsched.Option) ([]string, error) {
	c := newConversion(cat, parse, windows, opts, false)
	c.run()
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	for _, j := range c.set.Jobs {
		c.runAsWarning(&j)
	}
	warnings := append(c.set.UnknownWindows(known), c.warnings...)
	if c.moreWarnings > 0 {
		warnings = append(warnings, fmt.Sprintf("... and %d more run_as warnings", c.moreWarnings))
	}
	return warnings, nil
}

// conversion is one pass of a catalog's jobs into a Set.
type conversion struct {
	cat     *catalog.Catalog
	parse   job.ParseFunc
	windows job.GateFunc
	opts    []puppetsched.Option
	// keep tells to keep every job in set.Jobs, as long as no error was
	// found: once one is, the set is never used and only the jobs still
	// to be ordered are kept, as for a Check.
	keep bool
	set  *Set
	errs manifest.ErrorList
	// ordered are the references of the jobs on an edge between jobs:
	// only they wait in set.Jobs for their Requires and Before.
	ordered map[string]bool
	// origins are where the jobs of set.Jobs were declared, in its order.
	origins []origin
	// names are the jobs converted so far, by name, at their position.
	names map[string]manifest.Pos
	// warnings are a Check's run_as warnings, moreWarnings those past
	// manifest.MaxErrors.
	warnings     []string
	moreWarnings int
}

func newConversion(cat *catalog.Catalog, parse job.ParseFunc, windows job.GateFunc, opts []puppetsched.Option, keep bool) *conversion {
	if parse == nil {
		parse = job.ParseCron
	}
	c := &conversion{cat: cat, parse: parse, windows: windows, opts: opts, keep: keep,
		set:   &Set{Gates: map[string]job.Gate{}, Unusable: map[string]string{}, SuspendSet: map[string]bool{}, Files: map[string]string{}},
		names: make(map[string]manifest.Pos, cat.NumAppliedOf("job", "cron")),
	}
	for _, e := range cat.RelationshipsWith("job", "cron") {
		if e.Kind == catalog.Before || e.Kind == catalog.Notify {
			if c.ordered == nil {
				c.ordered = map[string]bool{}
			}
			c.ordered[e.From], c.ordered[e.To] = true, true
		}
	}
	return c
}

// run converts the catalog's jobs. A job keeps its spec, its reference
// and its position, never its Resource: the catalog builds each resource
// for the loop alone.
func (c *conversion) run() {
	set := c.set
	for r := range c.cat.EachApplied("job", "cron") {
		switch r.Type {
		case "job":
		case "cron":
			if r = cronAsJob(r, &c.errs); r == nil {
				continue
			}
		default:
			continue
		}
		spec, ok := convert(r, &c.errs)
		if !ok {
			continue
		}
		if prev, dup := c.names[spec.Name]; dup {
			c.errs.Add(r.Pos, "%s: a job named %q is already declared at %s", r.Ref(), spec.Name, prev)
			continue
		}
		c.names[spec.Name] = r.Pos
		keep := c.keep && len(c.errs) == 0
		if keep {
			set.Files[spec.Name] = r.Pos.File
			if _, ok := r.Params["suspend"]; ok {
				set.SuspendSet[spec.Name] = true
			}
		}
		if spec.Gate != "" {
			if _, done := set.Gates[spec.Gate]; !done {
				g, err := gate(c.cat, spec.Gate, c.windows, c.opts)
				if err != nil {
					c.errs.Add(r.Pos, "%s: %v", r.Ref(), err)
				} else {
					set.Gates[spec.Gate] = g
				}
			}
		}
		windowGates(c.cat, r, spec, set, &c.errs, c.windows, c.opts)
		o := origin{ref: r.Ref(), pos: r.Pos}
		if !c.ordered[o.ref] {
			// Nothing adds to the spec any more: check it now.
			c.validate(&spec, o)
			if !keep || len(c.errs) > 0 {
				if !c.keep {
					c.runAsWarning(&spec)
				}
				continue
			}
		}
		c.origins = append(c.origins, o)
		set.Jobs = append(set.Jobs, spec)
	}
	edges(c.cat, set, c.origins, &c.errs)
	rebootGroups(c.cat, set, &c.errs, c.windows, c.opts)
	scheduleGates(c.cat, set, &c.errs, c.windows, c.opts)
	for i := range set.Jobs {
		if c.ordered[c.origins[i].ref] {
			c.validate(&set.Jobs[i], c.origins[i])
		}
	}
}

// validate checks a converted spec as the job controller does, reporting
// its problems at the job's position.
func (c *conversion) validate(spec *store.JobSpec, o origin) {
	err := job.Validate(spec, c.parse)
	if err == nil {
		return
	}
	var ve *job.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			c.errs.Add(o.pos, "%s: %s", o.ref, f)
		}
		return
	}
	c.errs.Add(o.pos, "%s: %v", o.ref, err)
}

// runAsWarning records a Check's warning for a job whose run_as this host
// cannot run as.
func (c *conversion) runAsWarning(spec *store.JobSpec) {
	w, bad := hostRunAsWarning(spec)
	switch {
	case !bad:
	case len(c.warnings) < manifest.MaxErrors:
		c.warnings = append(c.warnings, w)
	default:
		c.moreWarnings++
	}
}

// origin is where a converted job was declared: its resource's reference
// (Job[...] or Cron[...]) and position.
type origin struct {
	ref string
	pos manifest.Pos
}

// convert maps one job resource's parameters onto a spec.
func convert(r *catalog.Resource, errs *manifest.ErrorList) (store.JobSpec, bool) {
	ok := true
	fail := func(attr, format string, a ...any) {
		errs.Add(r.Pos, "Parameter %s failed on %s: %s", attr, r.Ref(), fmt.Sprintf(format, a...))
		ok = false
	}
	p := r.Params
	str := func(k string) string { s, _ := p[k].(string); return s }
	spec := store.JobSpec{
		Name:        str("name"),
		Cron:        str("cron"),
		CronDialect: str("cron_dialect"),
		TimeZone:    str("time_zone"),
		Cwd:         str("cwd"),
		Gate:        str("schedule"),
	}
	if spec.Name == "" {
		spec.Name = r.Title
	}
	if s, has := p["at"].(string); has {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			fail("at", "Invalid value '%s': expected an RFC 3339 time like 2025-01-31T02:00:00Z", s)
		} else {
			t = t.UTC()
			spec.At = &t
		}
	}
	switch c := p["command"].(type) {
	case string:
		spec.Shell = c
	case []any:
		if len(c) == 0 {
			fail("command", "the argv array is empty")
		}
		for _, a := range c {
			s, _ := a.(string)
			spec.Command = append(spec.Command, s)
		}
	}
	for _, list := range []struct {
		name string
		to   *[]string
	}{{"notify", &spec.Notify}, {"notify_on", &spec.NotifyOn}, {"on_calendar", &spec.OnCalendar}} {
		switch v := p[list.name].(type) {
		case string:
			*list.to = []string{v}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					*list.to = append(*list.to, s)
				}
			}
		}
	}
	if env, has := p["env"].(map[string]any); has {
		spec.Env = make(map[string]string, len(env))
		for _, k := range slices.Sorted(mapKeys(env)) {
			switch v := env[k].(type) {
			case string:
				spec.Env[k] = v
			case int64:
				spec.Env[k] = strconv.FormatInt(v, 10)
			case float64:
				spec.Env[k] = strconv.FormatFloat(v, 'g', -1, 64)
			case bool:
				spec.Env[k] = strconv.FormatBool(v)
			default:
				fail("env", "the value of %q must be a String, a number or a Boolean, not %s", k, kindOf(v))
			}
		}
	}
	if n, has := p["starting_deadline_seconds"].(int64); has {
		spec.StartingDeadlineSeconds = &n
	}
	if s := str("concurrency_policy"); s != "" {
		spec.ConcurrencyPolicy = store.ConcurrencyPolicy(s)
	}
	if b, has := p["suspend"].(bool); has {
		spec.Suspend = b
	}
	if v, ok := p["catch_up"].(string); ok {
		spec.CatchUp = v
	}
	if b, has := p["manual"].(bool); has {
		spec.Manual = b
	}
	if n, has := p["backoff_limit"].(int64); has {
		if n > math.MaxInt32 {
			fail("backoff_limit", "%d is too large", n)
		}
		spec.BackoffLimit = int(n)
	}
	if v, ok := p["run_as"].(string); ok {
		spec.RunAs = v
	}
	if v, ok := p["nodes"].(string); ok {
		spec.Nodes = v
	}
	waveParams(p, &spec, fail)
	kubernetesParam(p, &spec, fail)
	if v, ok := p["alert_after"].(string); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d%time.Second != 0 {
			fail("alert_after", "%q: expected a duration such as '26h'", v)
		}
		spec.AlertAfterSeconds = int64(d / time.Second)
	}
	for _, secs := range []struct {
		attr string
		dst  *int64
	}{{"timeout", &spec.TimeoutSeconds}, {"randomized_delay", &spec.RandomizedDelaySeconds}} {
		switch v := p[secs.attr].(type) {
		case int64:
			*secs.dst = v
		case float64:
			if v != math.Trunc(v) || v > math.MaxInt32 {
				fail(secs.attr, "%v: expected a whole number of seconds", v)
			}
			*secs.dst = int64(v)
		}
	}
	for _, lim := range []struct {
		attr string
		dst  **int
	}{{"successful_jobs_history_limit", &spec.SuccessfulJobsHistoryLimit}, {"failed_jobs_history_limit", &spec.FailedJobsHistoryLimit}} {
		if n, has := p[lim.attr].(int64); has {
			if n > math.MaxInt32 {
				fail(lim.attr, "%d is too large", n)
				continue
			}
			v := int(n)
			*lim.dst = &v
		}
	}
	return spec, ok
}

// edges turns relationships between jobs into Requires and Before: an edge
// declared on its downstream end (require, subscribe, an arrow, the
// require function) lands in the downstream's Requires, one declared on
// its upstream end (before, notify) in the upstream's Before.
// origins are the jobs' origins, in the order of set.Jobs.
func edges(cat *catalog.Catalog, set *Set, origins []origin, errs *manifest.ErrorList) {
	var byRef map[string]int // job ref -> index in set.Jobs, when there are edges
	for _, e := range cat.RelationshipsWith("job", "cron") {
		if e.Kind != catalog.Before && e.Kind != catalog.Notify {
			continue
		}
		if byRef == nil {
			byRef = make(map[string]int, len(origins))
			for i, o := range origins {
				byRef[o.ref] = i
			}
		}
		from, fromJob := byRef[e.From]
		to, toJob := byRef[e.To]
		switch {
		case fromJob && toJob:
			switch e.Via {
			case "before", "notify":
				set.Jobs[from].Before = appendNew(set.Jobs[from].Before, set.Jobs[to].Name)
			default:
				set.Jobs[to].Requires = appendNew(set.Jobs[to].Requires, set.Jobs[from].Name)
			}
		case fromJob || toJob:
			jref, other := e.From, e.To
			if toJob {
				jref, other = e.To, e.From
			}
			if isJobRef(other) {
				continue // a job that failed to convert; already reported
			}
			errs.Add(e.Pos, "%s cannot be ordered against %s (%s): a job's run can wait only for other jobs", jref, other, e.Via)
		}
	}
}

func isJobRef(ref string) bool {
	return strings.HasPrefix(ref, "Job[") || strings.HasPrefix(ref, "Cron[")
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "undef"
	case []any:
		return "an Array"
	case map[string]any:
		return "a Hash"
	}
	return fmt.Sprintf("%T", v)
}

// gate builds the gate for a schedule name: the catalog's schedule
// resource of that title, else a built-in schedule.
func gate(cat *catalog.Catalog, name string, windows job.GateFunc, opts []puppetsched.Option) (job.Gate, error) {
	var s *puppetsched.Schedule
	r := cat.Lookup("Schedule[" + name + "]")
	if r != nil && r.Virtual {
		r = nil
	}
	if r == nil && windows != nil {
		if w, ok := windows(name); ok {
			return w, nil
		}
	}
	if r != nil {
		// The gate outlives the catalog: nothing of it may point into
		// the manifest text.
		r = r.Detach()
		p, err := puppetsched.FromAttrs(r.Params)
		if err == nil {
			s, err = puppetsched.New(r.Title, p, opts...)
		}
		if err != nil {
			return nil, fmt.Errorf("schedule %q (%s): %w", name, r.Pos, err)
		}
	} else if b, ok := puppetsched.Builtin(name); ok {
		s = b
	} else {
		if windows != nil {
			return nil, fmt.Errorf("no schedule or named window is named %q", name)
		}
		return nil, fmt.Errorf("no schedule named %q", name)
	}
	if per := s.Period(); per != puppetsched.PeriodNone && per != puppetsched.Never {
		return nil, fmt.Errorf("schedule %q has period => %s, which limits how often a resource is applied since it was last checked; "+
			"a job's cron decides how often it runs, so a job's gate may use only range, weekday, windows and time_zone", name, per)
	}
	return Gate{s}, nil
}

// Gate adapts a Puppet schedule without a period to job.Gate: open at t
// exactly when the schedule matches at t.
type Gate struct{ S *puppetsched.Schedule }

// Contains implements job.Gate.
func (g Gate) Contains(t time.Time) bool { return g.S.Match(time.Time{}, t) }

// NextOpen implements job.Gate.
func (g Gate) NextOpen(t time.Time) (time.Time, bool) { return g.S.NextMatch(time.Time{}, t) }

// HostRunAsWarnings names the jobs of the set whose run_as this machine
// cannot run a command as. They are warnings, not errors: the manifest may
// be meant for another host, and `serve --manifests` accepts such a job (a
// job.unrunnable event, runs that fail) rather than refusing to start.
func (s *Set) HostRunAsWarnings() []string {
	var out []string
	for i := range s.Jobs {
		if w, bad := hostRunAsWarning(&s.Jobs[i]); bad {
			out = append(out, w)
		}
	}
	return out
}

// hostRunAsWarning is the warning for a job whose run_as this host cannot
// run a command as, and whether there is one.
func hostRunAsWarning(j *store.JobSpec) (string, bool) {
	if j.RunAs == "" {
		return "", false
	}
	if err := job.CheckRunAs(j.RunAs); err != nil {
		return fmt.Sprintf("Job[%s]: run_as: %v; on this host serve accepts the job but its runs fail", j.Name, err), true
	}
	return "", false
}
