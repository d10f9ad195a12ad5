package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/durationtext"
)

func init() {
	register("get", "list jobs, runs, resources, events, apply reports, named windows or cluster nodes from the daemon: get jobs|runs|resources|events|applies|windows|nodes", escaped(runGet))
}

func runGet(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("get")
	job := fs.String("job", "", "runs, events: only this job's")
	node := fs.String("node", "", "runs: only those targeted at this cluster node or started by it")
	state := fs.String("state", "", "runs: only these states (comma-separated: pending,running,succeeded,failed,killed,missed,lost)")
	kind := fs.String("kind", "", "events: only these kinds (comma-separated, e.g. run.failed or run)")
	resource := fs.String("resource", "", "events: only this managed resource's")
	since := fs.String("since", "", "runs: only those scheduled at or after this time (RFC 3339, or a duration ago such as 24h)")
	until := fs.String("until", "", "runs: only those scheduled before this time (RFC 3339, or a duration ago)")
	actor := fs.String("actor", "", "events: only those caused by this actor (a token's name, manifest:FILE or fleetlock:ID)")
	limit := fs.Int("limit", 0, "runs, events: at most this many (default 100)")
	page := fs.String("page", "", "continue from a previous JSON answer's next_page")
	cf := addOutputFlags(fs)
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("get: unexpected argument %q after %s (filters are flags: --job, --node, --state, --kind, --resource)", pos[1], pos[0])
	}
	if len(pos) != 1 {
		return usagef("get: want one of jobs, runs, resources, events, applies, windows, nodes")
	}
	limitSet := false
	fs.Visit(func(f *flag.Flag) { limitSet = limitSet || f.Name == "limit" })
	if *limit < 0 || *limit > 1000 || (limitSet && *limit == 0) {
		return usagef("get: --limit %d: want 1 to 1000", *limit)
	}
	what := pos[0]
	for _, f := range []struct{ name, val string }{{"node", *node}, {"since", *since}, {"until", *until}} {
		if f.val != "" && what != "runs" && what != "run" {
			return usagef("get %s: --%s applies to runs only", what, f.name)
		}
	}
	if what != "runs" && what != "events" {
		for _, f := range []struct{ name, val string }{{"job", *job}, {"state", *state}, {"kind", *kind}, {"resource", *resource}, {"actor", *actor}} {
			if f.val != "" {
				return usagef("get %s: --%s applies to runs or events only", what, f.name)
			}
		}
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	switch what {
	case "jobs", "job":
		return getJobs(ctx, e, c, *page, jsonOut)
	case "runs", "run":
		if *kind != "" || *resource != "" || *actor != "" {
			return usagef("get runs: --kind, --resource and --actor apply to events")
		}
		f := apiclient.RunFilter{Job: *job, Node: *node, States: splitList(*state), Page: *page, Limit: *limit}
		if f.Since, err = timeOrAgo("since", *since, e.now()); err != nil {
			return err
		}
		if f.Until, err = timeOrAgo("until", *until, e.now()); err != nil {
			return err
		}
		p, err := c.RunList(ctx, f)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, p)
		}
		if err := printRuns(e, p.Items); err != nil {
			return err
		}
		if p.NextPage != "" {
			fmt.Fprintf(e.stdout, "(more: --page %s)\n", p.NextPage)
		}
		return nil
	case "events", "event":
		if *state != "" {
			return usagef("get events: --state applies to runs")
		}
		p, err := c.EventList(ctx, apiclient.EventFilter{Job: *job, Kinds: splitList(*kind), Page: *page, Limit: *limit, Resource: *resource, Actor: *actor})
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, p)
		}
		t := newTable(e.stdout, "TIME", "KIND", "JOB", "RUN", "BY", "MESSAGE")
		for _, ev := range p.Items {
			run := ""
			if ev.RunID != 0 {
				run = strconv.FormatInt(ev.RunID, 10)
			}
			subject := ev.Job
			if subject == "" {
				subject = ev.Resource
			}
			by := ev.Actor
			if by != "" && ev.Via != "" {
				by += "/" + ev.Via
			}
			t.row(fmtTime(&ev.Time), ev.Kind, subject, run, by, ev.Message)
		}
		return t.flush()
	case "applies", "apply":
		return getApplies(ctx, e, c, *page, *limit, jsonOut)
	case "resources", "resource":
		return getResources(ctx, e, c, jsonOut)
	case "windows", "window":
		return getWindows(ctx, e, c, jsonOut)
	case "nodes", "node":
		return getNodes(ctx, e, c, jsonOut)
	}
	return usagef("get: unknown kind %q (want jobs, runs, resources, events, applies, windows or nodes)", what)
}

func getJobs(ctx context.Context, e *env, c *apiclient.Client, page string, jsonOut bool) error {
	var jobs []apitype.Job
	next := ""
	if page != "" || jsonOut {
		p, err := c.JobList(ctx, page)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, p)
		}
		jobs, next = p.Items, p.NextPage
	} else {
		all, err := c.JobListAll(ctx)
		if err != nil {
			return apiErr(err)
		}
		jobs = all
	}
	t := newTable(e.stdout, "NAME", "SCHEDULE", "ZONE", "SUSPENDED", "ACTIVE", "SUCCEEDED", "FAILED", "LAST SCHEDULE", "NEXT")
	for _, j := range jobs {
		t.row(j.Name, schedule(j.Spec), zoneOf(j.Spec), strconv.FormatBool(j.Spec.Suspend),
			strconv.Itoa(len(j.Status.Active)), strconv.FormatInt(j.Status.Succeeded, 10),
			strconv.FormatInt(j.Status.Failed, 10), fmtTime(j.Status.LastScheduleTime), fmtTime(j.Status.NextScheduleTime))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if next != "" {
		fmt.Fprintf(e.stdout, "(more: --page %s)\n", next)
	}
	return nil
}

// printRuns prints runs as a table. NODE is where the run ran, else the
// node it is for (a fanned-out run not started yet), else "any" (a run
// that any node may take, not taken yet); "(down)" or "(suspect)" follows
// an active run's node that is not alive.
//
// A WAITING column says why each pending run waits when the daemon tells
// (the run's waiting field) for some run of the list; a KUBERNETES JOB
// column names the Job of each run of a Kubernetes job, when there is one.
func printRuns(e *env, runs []apitype.Run) error {
	header := []string{"ID", "JOB", "NODE", "STATE", "REASON", "ATTEMPT", "SCHEDULED", "STARTED", "DURATION", "EXIT"}
	waiting := slices.ContainsFunc(runs, func(r apitype.Run) bool { return r.Waiting != nil })
	if waiting {
		header = append(header, "WAITING")
	}
	kube := slices.ContainsFunc(runs, func(r apitype.Run) bool { return r.Kubernetes != nil })
	if kube {
		header = append(header, "KUBERNETES JOB")
	}
	t := newTable(e.stdout, header...)
	for _, r := range runs {
		exit := ""
		if r.ExitCode != nil {
			exit = strconv.Itoa(*r.ExitCode)
		}
		row := []string{strconv.FormatInt(r.ID, 10), r.Job, runNode(r), r.State, r.Reason, strconv.Itoa(r.Attempt),
			fmtTime(&r.ScheduledTime), fmtTime(r.StartedAt), duration(r), exit}
		if waiting {
			row = append(row, waitingText(r.Waiting))
		}
		if kube {
			row = append(row, runKubernetesJob(r.Kubernetes))
		}
		t.row(row...)
	}
	return t.flush()
}

// waitingText says why a run waits: "gate: schedule gate "x" is closed
// (until T)"; "" when the daemon does not say.
func waitingText(w *apitype.Waiting) string {
	if w == nil {
		return ""
	}
	s := w.Kind
	if w.Detail != "" {
		s += ": " + w.Detail
	}
	if w.Until != nil {
		s += " (until " + fmtTime(w.Until) + ")"
	}
	return s
}

// runNode is a run's NODE column.
func runNode(r apitype.Run) string {
	n := cmp.Or(r.Node, r.Target)
	if n == "" {
		if r.Finished() {
			return ""
		}
		return "any"
	}
	if r.NodeLiveness != "" {
		n += " (" + r.NodeLiveness + ")"
	}
	return n
}

// timeOrAgo reads a --since or --until value: an RFC 3339 time, or a
// duration before now ("24h"); "" is the zero time (no bound).
func timeOrAgo(flagName, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return time.Time{}, usagef("get runs: --%s %.40q: want an RFC 3339 time or a duration ago such as 24h", flagName, v)
	}
	return now.Add(-d), nil
}

func duration(r apitype.Run) string {
	if r.StartedAt == nil || r.FinishedAt == nil {
		return ""
	}
	return durationtext.Format(r.FinishedAt.Sub(*r.StartedAt))
}

// schedule renders when a job runs: its cron expression (with its dialect
// when not the default), its calendar events, "at T", or "manual" for a
// job that runs only when triggered.
func schedule(s apitype.JobSpec) string {
	switch {
	case s.Manual:
		return "manual"
	case s.At != nil:
		return "at " + fmtTime(s.At)
	case len(s.OnCalendar) > 0:
		return "on-calendar " + strings.Join(s.OnCalendar, "; ")
	case s.CronDialect != "" && s.CronDialect != "vixie":
		return s.Cron + " (" + s.CronDialect + ")"
	}
	return s.Cron
}

func zoneOf(s apitype.JobSpec) string {
	if s.TimeZone == "" {
		return "UTC"
	}
	return s.TimeZone
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
