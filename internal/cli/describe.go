package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/shellwords"
)

func init() {
	register("describe", "show a job, a run, a managed resource or an apply report: describe job NAME | run ID | resource ID | apply ID", escaped(runDescribe))
}

// describeJSON is describe's -o json output.
type describeJSON struct {
	Job  apitype.Job   `json:"job"`
	Next []time.Time   `json:"next_fires"`
	Runs []apitype.Run `json:"recent_runs"`
}

// describeFires is how many upcoming fires describe shows.
const describeFires = 5

func runDescribe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("describe")
	nRuns := fs.Int("runs", 10, "how many recent runs (of a job) or events (of a resource) to show")
	cf := addOutputFlags(fs)
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 2 && pos[0] == "apply" {
		c, err := cf.client()
		if err != nil {
			return err
		}
		return describeApply(ctx, e, c, pos[1], jsonOut)
	}
	if len(pos) == 2 && pos[0] == "run" {
		c, err := cf.client()
		if err != nil {
			return err
		}
		return describeRun(ctx, e, c, pos[1], jsonOut)
	}
	if len(pos) != 2 || (pos[0] != "job" && pos[0] != "resource") {
		return usagef("describe: usage: almanac describe job NAME | describe run ID | describe resource ID | describe apply ID")
	}
	if *nRuns < 0 || *nRuns > 1000 {
		return usagef("describe: --runs %d: want 0 to 1000", *nRuns)
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	if pos[0] == "resource" {
		return describeResource(ctx, e, c, pos[1], *nRuns, jsonOut)
	}
	if err := checkJobName("describe job", pos[1]); err != nil {
		return err
	}
	j, err := c.JobGet(ctx, pos[1])
	if err != nil {
		return apiErr(err)
	}
	next, err := c.JobNext(ctx, j.Name, describeFires)
	if err != nil {
		return apiErr(err)
	}
	var runs []apitype.Run
	if *nRuns > 0 {
		p, err := c.RunList(ctx, apiclient.RunFilter{Job: j.Name, Limit: *nRuns})
		if err != nil {
			return apiErr(err)
		}
		runs = p.Items
	}
	if jsonOut {
		if runs == nil {
			runs = []apitype.Run{}
		}
		return writeJSONOut(e.stdout, describeJSON{Job: j, Next: next.Next, Runs: runs})
	}

	w := e.stdout
	s := j.Spec
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-28s %s\n", k+":", v)
		}
	}
	kv("Name", j.Name)
	kv("Source", j.Source)
	if s.At != nil {
		kv("At", fmtTime(s.At))
	} else {
		kv("Schedule", schedule(s))
	}
	if s.RandomizedDelaySeconds > 0 {
		kv("Randomized delay", (time.Duration(s.RandomizedDelaySeconds) * time.Second).String())
	}
	kv("Time zone", zoneOf(s))
	if s.Kubernetes != nil {
		kv("Kubernetes", kubernetesTarget(s.Kubernetes))
	} else if s.Command.Shell != "" {
		kv("Command", "/bin/sh -c "+strconv.Quote(s.Command.Shell))
	} else {
		quoted := make([]string, len(s.Command.Argv))
		for i, a := range s.Command.Argv {
			quoted[i] = shellwords.Quote(a)
		}
		kv("Command", strings.Join(quoted, " "))
	}
	if len(s.Env) > 0 {
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + s.Env[k]
		}
		kv("Environment", strings.Join(keys, " "))
	}
	kv("Working directory", s.Cwd)
	kv("Concurrency policy", s.ConcurrencyPolicy)
	kv("Suspended", strconv.FormatBool(s.Suspend))
	if s.StartingDeadlineSeconds != nil {
		kv("Starting deadline", (time.Duration(*s.StartingDeadlineSeconds) * time.Second).String())
	}
	kv("Backoff limit", strconv.Itoa(s.BackoffLimit))
	if s.Timeout != 0 {
		kv("Timeout", time.Duration(s.Timeout).String())
	}
	keepOK, keepFailed := 3, 1
	if s.SuccessfulJobsHistoryLimit != nil {
		keepOK = *s.SuccessfulJobsHistoryLimit
	}
	if s.FailedJobsHistoryLimit != nil {
		keepFailed = *s.FailedJobsHistoryLimit
	}
	kv("History kept", fmt.Sprintf("%d succeeded, %d failed", keepOK, keepFailed))
	kv("Schedule gate", s.Gate)
	kv("Requires", strings.Join(s.Require, ", "))
	if len(s.Notify) > 0 {
		kv("Notify", strings.Join(s.Notify, ", "))
		on := s.NotifyOn
		if len(on) == 0 {
			on = []string{"failure", "missed"}
		}
		kv("Notify on", strings.Join(on, ", "))
	}
	kv("Run as", s.RunAs)
	kv("Nodes", s.Nodes)
	kv("Window", windowText(s.Window))
	kv("Max parallel", s.MaxParallel)
	if s.MaxFailures > 0 {
		kv("Max failures", strconv.Itoa(s.MaxFailures))
	}
	kv("Wave order", s.WaveOrder)
	kv("Catch-up", s.CatchUp)
	kv("Reboot group", s.RebootGroup)
	if s.WavePaused {
		kv("Wave paused", "true (waiting runs are held: almanac wave resume "+j.Name+")")
	}
	if s.AlertAfter != 0 {
		kv("Alert after", time.Duration(s.AlertAfter).String())
	}
	fmt.Fprintln(w, "Status:")
	st := j.Status
	active := make([]string, len(st.Active))
	for i, id := range st.Active {
		active[i] = "#" + strconv.FormatInt(id, 10)
	}
	if len(active) > 0 {
		// A count, then the ids marked as ids: "81" alone reads as a count.
		kv("  Active runs", fmt.Sprintf("%d (run ids %s)", len(active), strings.Join(active, ", ")))
	} else {
		kv("  Active runs", "0")
	}
	kv("  Succeeded", strconv.FormatInt(st.Succeeded, 10))
	kv("  Failed", strconv.FormatInt(st.Failed, 10))
	kv("  Last schedule time", fmtTime(st.LastScheduleTime))
	kv("  Last successful time", fmtTime(st.LastSuccessfulTime))
	nextTime := fmtTime(st.NextScheduleTime)
	if nextTime == "" {
		nextTime = "none"
		if s.Suspend {
			nextTime = "none (suspended)"
		}
	}
	kv("  Next schedule time", nextTime)
	if len(next.Next) > 0 {
		fmt.Fprintf(w, "Next %d fires (%s):\n", len(next.Next), next.TimeZone)
		for i, t := range next.Next {
			fmt.Fprintf(w, "  %s%s\n", t.Format(time.RFC3339), outlookNote(next.Fires, i))
		}
	}
	if *nRuns > 0 {
		fmt.Fprintln(w, "Recent runs:")
		if len(runs) == 0 {
			fmt.Fprintln(w, "  (none)")
			return nil
		}
		return printRuns(e, runs)
	}
	return nil
}

// windowText renders a job's window map: "selector: window" pairs by
// selector, the default last.
func windowText(w map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if k != "default" {
			parts = append(parts, k+": "+w[k])
		}
	}
	if d, ok := w["default"]; ok {
		parts = append(parts, "default: "+d)
	}
	return strings.Join(parts, "; ")
}

// outlookNote says what the job's gate does to fire i, for describe's list
// of next fires; empty when the run starts at its time (or the daemon
// predates outlooks).
func outlookNote(fires []apitype.Fire, i int) string {
	if i >= len(fires) {
		return ""
	}
	f := fires[i]
	switch f.Outlook {
	case "waits":
		if f.Until != nil {
			return fmt.Sprintf("  waits until %s: %s", f.Until.Format(time.RFC3339), f.Reason)
		}
		return "  waits: " + f.Reason
	case "will-miss":
		return "  will be missed: " + f.Reason
	}
	return ""
}

// describeRun prints one run: what it is for, its state and, while it
// waits, why and until when.
func describeRun(ctx context.Context, e *env, c *apiclient.Client, idArg string, jsonOut bool) error {
	id, err := strconv.ParseInt(idArg, 10, 64)
	if err != nil || id <= 0 {
		return usagef("describe run: %q is not a run id (see 'almanac get runs')", idArg)
	}
	r, err := c.RunGet(ctx, id)
	if err != nil {
		return apiErr(err)
	}
	if jsonOut {
		return writeJSONOut(e.stdout, r)
	}
	w := e.stdout
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-12s %s\n", k+":", v)
		}
	}
	kv("ID", strconv.FormatInt(r.ID, 10))
	kv("Job", r.Job)
	kv("Scheduled", fmtTime(&r.ScheduledTime))
	kv("Reason", r.Reason)
	kv("Attempt", strconv.Itoa(r.Attempt))
	kv("State", r.State)
	kv("Waiting", waitingText(r.Waiting))
	kv("Target", r.Target)
	kv("Node", r.Node)
	kv("Kubernetes", runKubernetesJob(r.Kubernetes))
	kv("Pods", runKubernetesPods(r.Kubernetes))
	kv("Created", fmtTime(&r.CreatedAt))
	kv("Started", fmtTime(r.StartedAt))
	kv("Finished", fmtTime(r.FinishedAt))
	kv("Duration", duration(r))
	if r.ExitCode != nil {
		kv("Exit code", strconv.Itoa(*r.ExitCode))
	}
	kv("Error", r.Error)
	return nil
}
