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
)

func init() {
	register("get", "list jobs, runs, resources, events, apply reports, named windows or cluster nodes from the daemon: get jobs|runs|resources|events|applies|windows|nodes", escaped(runGet))
}

func runGet(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("get")
	job := fs.String("job", "", "runs, events: only this job's")
	node := fs.String("node", "", "runs: only those targeted at this cluster node or started by it")
	state := fs.String("state", "", "runs: only these states (comma-separated: pending,running,succeeded,failed,killed,missed)")
	kind := fs.String("kind", "", "events: only these kinds (comma-separated, e.g. run.failed or run)")
	resource := fs.String("resource", "", "events: only this managed resource's")
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
	if *node != "" && what != "runs" && what != "run" {
		return usagef("get %s: --node applies to runs only", what)
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
		p, err := c.RunList(ctx, apiclient.RunFilter{Job: *job, Node: *node, States: splitList(*state), Page: *page, Limit: *limit})
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, p)
		}
		return printRunsOn(e, p.Items, *node != "")
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

// printRuns prints runs as a table, with a NODE column when some of them
// were fanned out to nodes.
func printRuns(e *env, runs []apitype.Run) error { return printRunsOn(e, runs, false) }

// printRunsOn prints runs as a table. The NODE column (the node a
// fanned-out run is for, else the node that started it) is shown when
// withNode is set or some run has a target node, so the runs of a single
// daemon read as before.
func printRunsOn(e *env, runs []apitype.Run, withNode bool) error {
	for _, r := range runs {
		withNode = withNode || r.Target != ""
	}
	header := []string{"ID", "JOB", "STATE", "REASON", "ATTEMPT", "SCHEDULED", "STARTED", "DURATION", "EXIT"}
	if withNode {
		header = slices.Insert(header, 2, "NODE")
	}
	t := newTable(e.stdout, header...)
	for _, r := range runs {
		exit := ""
		if r.ExitCode != nil {
			exit = strconv.Itoa(*r.ExitCode)
		}
		row := []string{strconv.FormatInt(r.ID, 10), r.Job, r.State, r.Reason, strconv.Itoa(r.Attempt),
			fmtTime(&r.ScheduledTime), fmtTime(r.StartedAt), duration(r), exit}
		if withNode {
			row = slices.Insert(row, 2, cmp.Or(r.Target, r.Node))
		}
		t.row(row...)
	}
	return t.flush()
}

func duration(r apitype.Run) string {
	if r.StartedAt == nil || r.FinishedAt == nil {
		return ""
	}
	return r.FinishedAt.Sub(*r.StartedAt).Round(time.Millisecond).String()
}

// schedule renders when a job runs: its cron expression (with its dialect
// when not the default), its calendar events, or "at T".
func schedule(s apitype.JobSpec) string {
	switch {
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
