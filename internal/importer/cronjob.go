package importer

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
	jobspec "github.com/almanac-sh/almanac/internal/job"
	"go.yaml.in/yaml/v3"
)

// cronJob is the part of a Kubernetes CronJob (batch/v1, batch/v1beta1) or
// ScheduledJob (batch/v2alpha1) that maps to a job; Extra collects the
// rest of each level to report it.
type cronJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
	Spec struct {
		Schedule                   string  `yaml:"schedule"`
		TimeZone                   *string `yaml:"timeZone"`
		StartingDeadlineSeconds    *int64  `yaml:"startingDeadlineSeconds"`
		ConcurrencyPolicy          string  `yaml:"concurrencyPolicy"`
		Suspend                    *bool   `yaml:"suspend"`
		SuccessfulJobsHistoryLimit *int64  `yaml:"successfulJobsHistoryLimit"`
		FailedJobsHistoryLimit     *int64  `yaml:"failedJobsHistoryLimit"`
		JobTemplate                struct {
			Spec struct {
				BackoffLimit          *int64 `yaml:"backoffLimit"`
				ActiveDeadlineSeconds *int64 `yaml:"activeDeadlineSeconds"`
				Template              struct {
					Spec struct {
						Containers []container    `yaml:"containers"`
						Extra      map[string]any `yaml:",inline"`
					} `yaml:"spec"`
				} `yaml:"template"`
				Extra map[string]any `yaml:",inline"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
		Extra map[string]any `yaml:",inline"`
	} `yaml:"spec"`
}

type container struct {
	Name       string   `yaml:"name"`
	Image      string   `yaml:"image"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	WorkingDir string   `yaml:"workingDir"`
	Env        []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom any     `yaml:"valueFrom"`
	} `yaml:"env"`
	Extra map[string]any `yaml:",inline"`
}

// CronJobOptions say how to map CronJobs.
type CronJobOptions struct {
	// NoNamespacePrefix names jobs after metadata.name alone; by default
	// a CronJob with a namespace becomes NAMESPACE-NAME, so the same name
	// in two namespaces does not collide.
	NoNamespacePrefix bool
	// ContainerRuntime, "podman" or "docker", runs every container as
	// `RUNTIME run --rm` with its image instead of running its command on
	// the host.
	ContainerRuntime string
	// Executor is ExecutorHost ("" means it too) or ExecutorKubernetes.
	Executor string
	// MaxOutput bounds the expanded YAML (aliases counted each time they
	// are used) and so the manifest; 0 means DefaultMaxOutput.
	MaxOutput int
}

// CronJob converts Kubernetes CronJob and ScheduledJob documents (one or
// several, separated by ---) to a manifest of jobs, in the kubernetes cron
// dialect. The schedule, time zone, starting deadline, concurrency policy,
// suspend, history limits, backoff limit, activeDeadlineSeconds (as
// timeout) and the first container's command and args ($(VAR) expanded
// from its env, as Kubernetes does), environment and working directory map
// to the job; with a container runtime the job runs the image. What only
// means something inside a cluster becomes comments and warnings.
// Documents of other kinds are skipped with a warning; a document that is
// not valid YAML, or whose aliases expand past the bound, is reported in
// Result.Errors and the others are still imported.
func CronJob(file string, src []byte, opts CronJobOptions) (Result, error) {
	if r := opts.ContainerRuntime; r != "" && r != "podman" && r != "docker" {
		return Result{}, fmt.Errorf("container runtime %q: want podman or docker", r)
	}
	switch opts.Executor {
	case "", ExecutorHost:
	case ExecutorKubernetes:
		if opts.ContainerRuntime != "" {
			return Result{}, errors.New("a container runtime applies to the host executor only")
		}
	default:
		return Result{}, fmt.Errorf("executor %q: want host or kubernetes", opts.Executor)
	}
	if !utf8.Valid(src) {
		return Result{}, fmt.Errorf("%s: not UTF-8 text", file)
	}
	limit := opts.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	var b strings.Builder
	var res Result
	fmt.Fprintf(&b, "# Imported from %s by `almanac import cronjob`.\n", file)
	taken := &names{}
	budget := limit
	for doc, d := range yamlDocuments(src) {
		docNo := doc + 1
		var root yaml.Node
		used, err := decodeBounded(d.text, budget, &root)
		if err == nil {
			budget -= used // what a refused document would have used is not spent
		}
		if err != nil {
			reportBadDocument(&b, &res, file, d.line, d.line, fmt.Sprintf("document %d", docNo), err)
			continue
		}
		for _, it := range documentItems(&root, d.line, docNo) {
			var cj cronJob
			if err := it.node.Decode(&cj); err != nil {
				reportBadDocument(&b, &res, file, d.line, it.line, it.what, err)
				continue
			}
			convertCronJob(&b, &res, file, it, &cj, taken, opts)
		}
	}
	res.Manifest = b.String()
	return res, nil
}

// docItem is one object of a YAML stream: a document, or an item of a
// document of kind List (what `kubectl get cronjobs -A -o yaml` prints).
type docItem struct {
	node *yaml.Node
	line int    // where it starts in the file
	what string // "document 3", "document 1 item 2"
}

// documentItems returns the objects of a decoded document: its items when
// it is a List (kind List, or CronJobList and the like), else itself.
func documentItems(root *yaml.Node, line, docNo int) []docItem {
	if root.Kind == 0 {
		return nil // an empty document
	}
	var head struct {
		Kind  string      `yaml:"kind"`
		Items []yaml.Node `yaml:"items"`
	}
	if err := root.Decode(&head); err != nil || !strings.HasSuffix(head.Kind, "List") {
		return []docItem{{node: root, line: line, what: fmt.Sprintf("document %d", docNo)}}
	}
	out := make([]docItem, len(head.Items))
	for i := range head.Items {
		out[i] = docItem{node: &head.Items[i], line: line + head.Items[i].Line - 1, what: fmt.Sprintf("document %d item %d", docNo, i+1)}
	}
	return out
}

// reportBadDocument records a document or item that could not be read:
// an error at the line the parser names (counted from docLine, where the
// document starts), else at line, and a comment.
func reportBadDocument(b *strings.Builder, res *Result, file string, docLine, line int, what string, err error) {
	msg := err.Error()
	if l, rest, ok := yamlErrorLine(msg); ok {
		line, msg = docLine+l-1, rest
	}
	res.Errors = append(res.Errors, fmt.Sprintf("%s:%d: %s: %s", file, line, what, msg))
	fmt.Fprintf(b, "\n# %s:%d: %s: not imported: %s\n", file, line, what, oneLine(msg))
}

// convertCronJob converts one decoded object, writing its job or a
// comment saying why there is none.
func convertCronJob(b *strings.Builder, res *Result, file string, it docItem, cj *cronJob, taken *names, opts CronJobOptions) {
	warn := func(format string, a ...any) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: %s (%s): %s", file, it.line, it.what, cj.Metadata.Name, fmt.Sprintf(format, a...)))
	}
	switch {
	case cj.Kind == "" && cj.APIVersion == "":
		return // an empty document
	case cj.Kind != "CronJob" && cj.Kind != "ScheduledJob":
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: %s: a %s, not a CronJob; skipped", file, it.line, it.what, cj.Kind))
		return
	}
	var (
		j  *job
		ok bool
	)
	if opts.Executor == ExecutorKubernetes {
		j, ok = cronJobToKubernetesJob(file, it.what, it.node, cj, taken, opts, warn)
	} else {
		j, ok = cronJobToJob(file, it.what, cj, taken, opts, warn)
	}
	if !ok {
		fmt.Fprintf(b, "\n# %s:%d: %s (%s %s): not imported\n", file, it.line, it.what, cj.Kind, oneLine(cj.Metadata.Name))
		return
	}
	res.add(b, j)
}

// oneLine keeps a message that goes into a comment on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// cronJobToJob maps one CronJob; false when it cannot be run as a job.
func cronJobToJob(file, what string, cj *cronJob, taken *names, opts CronJobOptions, warn func(string, ...any)) (*job, bool) {
	spec := &cj.Spec
	if strings.TrimSpace(spec.Schedule) == "" {
		warn("no schedule; not imported")
		return nil, false
	}
	pod := &spec.JobTemplate.Spec.Template.Spec
	if len(pod.Containers) == 0 {
		warn("no container; not imported")
		return nil, false
	}
	c := pod.Containers[0]
	if len(c.Command) == 0 && opts.ContainerRuntime == "" {
		warn("container %s has no command: it runs the image's entrypoint, which only exists inside the image; not imported (--container-runtime podman|docker runs the image)", c.Name)
		return nil, false
	}
	base := cj.Metadata.Name
	if cj.Metadata.Namespace != "" && !opts.NoNamespacePrefix {
		base = cj.Metadata.Namespace + "-" + base
	}
	j := &job{name: taken.make(base)}
	j.comments = append(j.comments, fmt.Sprintf("%s: %s: %s %s (%s)", file, what, cj.Kind, cj.Metadata.Name, cj.APIVersion))
	if cj.Metadata.Namespace != "" {
		j.comments = append(j.comments, "namespace: "+cj.Metadata.Namespace)
	}
	left := func(what string) {
		j.comments = append(j.comments, "not imported: "+what)
		warn("%s is not imported", what)
	}
	if c.Image != "" && opts.ContainerRuntime == "" {
		left("image " + c.Image + " (the command runs on the host, not in the image)")
	}
	if opts.ContainerRuntime == "" {
		for i, other := range pod.Containers[1:] {
			j.comments = append(j.comments, fmt.Sprintf("not imported: container %d (%s): without --container-runtime only the first container runs, on the host", i+2, other.Name))
			warn("container %d (%s) is not imported: without --container-runtime only the first container runs, on the host", i+2, other.Name)
		}
	}
	for i := range pod.Containers {
		if i > 0 && opts.ContainerRuntime == "" {
			break
		}
		for _, k := range sortedKeys(notDefault(pod.Containers[i].Extra, containerDefaults)) {
			if len(pod.Containers) > 1 {
				left(fmt.Sprintf("container %s field %s", pod.Containers[i].Name, k))
			} else {
				left("container field " + k)
			}
		}
	}
	for _, k := range sortedKeys(notDefault(pod.Extra, podDefaults)) {
		left("pod field " + k)
	}
	for _, k := range sortedKeys(spec.JobTemplate.Spec.Extra) {
		left("job field " + k)
	}
	for _, k := range sortedKeys(spec.Extra) {
		left("CronJob field " + k)
	}
	if !cronJobSchedule(j, spec.Schedule, spec.TimeZone, warn) {
		return nil, false
	}
	env, envNames := containerEnv(&c, left, warn)
	expand := func(what string, ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			var missing []string
			out[i], missing = expandK8s(s, env)
			for _, m := range missing {
				warn("%s: $(%s) is not a variable of the container's env with a value; left as written, as Kubernetes leaves it", what, m)
			}
		}
		return out
	}
	if opts.ContainerRuntime != "" && len(pod.Containers) > 1 {
		script, all := podScript(opts.ContainerRuntime, pod.Containers, left, warn)
		j.set("command", quote(script))
		if len(all) > 0 {
			j.set("env", quoteHash(all))
		}
		cronJobPolicy(j, cj, warn)
		return j, true
	}
	command, args := expand("command", c.Command), expand("args", c.Args)
	if what := withNUL(command, args, env); what != "" {
		// A process's arguments and environment end at a NUL: no
		// command can be given one, so the job could never run as written.
		warn("%s holds a NUL character, which no command's arguments or environment can; not imported", what)
		return nil, false
	}
	if opts.ContainerRuntime != "" {
		j.set("command", quoteList(runtimeArgv(opts.ContainerRuntime, &c, envNames, nil, command, args)))
	} else {
		j.set("command", quoteList(append(command, args...)))
	}
	if len(env) > 0 {
		j.set("env", quoteHash(env))
	}
	if c.WorkingDir != "" && opts.ContainerRuntime == "" {
		if path.IsAbs(c.WorkingDir) {
			j.set("cwd", quote(c.WorkingDir))
		} else {
			left("workingDir " + c.WorkingDir + " (not an absolute path)")
		}
	}
	cronJobPolicy(j, cj, warn)
	return j, true
}

// cronJobSchedule sets the job's cron, dialect and zone; false (after a
// warning) when the schedule or zone cannot be read.
func cronJobSchedule(j *job, schedule string, timeZone *string, warn func(string, ...any)) bool {
	schedule, zone := strings.TrimSpace(schedule), ""
	for _, prefix := range []string{"CRON_TZ=", "TZ="} {
		if rest, ok := strings.CutPrefix(schedule, prefix); ok {
			zone, schedule, _ = strings.Cut(rest, " ")
			schedule = strings.TrimSpace(schedule)
			warn("the %s prefix in spec.schedule is refused by current Kubernetes versions; imported as the job's time_zone", strings.TrimSuffix(prefix, "="))
		}
	}
	if timeZone != nil {
		zone = *timeZone
	}
	loc, err := calendar.LoadZone(zone)
	if zone == "" {
		loc, err = calendar.LoadZone("UTC")
	}
	if err != nil {
		warn("time zone %s: %v; not imported", zone, err)
		return false
	}
	if _, err := cron.Parse(schedule, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes)); err != nil {
		var pe *cron.ParseError
		if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "never fires") {
			// A schedule that never fires (0 0 31 2 *), usually with
			// suspend: true, keeps a CronJob only to be run by hand
			// (kubectl create job --from=cronjob/NAME): a manual job.
			why := strings.TrimPrefix(pe.Msg, "never fires: ")
			j.comments = append(j.comments, fmt.Sprintf("spec.schedule %q never fires (%s): the CronJob is run only by hand, so this is a manual job: almanac trigger %s", schedule, why, j.name))
			warn("schedule %q never fires (%s); imported as a manual job with no schedule, run by `almanac trigger %s`", schedule, why, j.name)
			j.set("manual", "true")
			return true
		}
		warn("schedule %q: %v; not imported", schedule, err)
		return false
	}
	j.set("cron", quote(schedule))
	j.set("cron_dialect", quote("kubernetes"))
	if zone == "" {
		// The controller manager's zone: UTC on every managed cluster.
		zone = "UTC"
	}
	j.set("time_zone", quote(zone))
	return true
}

// cronJobPolicy sets what the CronJob and Job specs say about running;
// a number outside what a job accepts is reported and left out.
func cronJobPolicy(j *job, cj *cronJob, warn func(string, ...any)) {
	spec := &cj.Spec
	inRange := cronJobLimits(j, cj, warn)
	if l := spec.JobTemplate.Spec.BackoffLimit; inRange("backoffLimit", l, jobspec.MaxBackoffLimit) {
		j.set("backoff_limit", itoa(*l))
	} else if l == nil {
		// A Kubernetes Job retries 6 times unless told otherwise.
		j.set("backoff_limit", "6")
	}
	if d := spec.JobTemplate.Spec.ActiveDeadlineSeconds; inRange("activeDeadlineSeconds", d, jobspec.MaxDurationSeconds) {
		j.set("timeout", itoa(*d))
	}
}

// containerEnv returns the container's environment with values, each
// value's $(VAR) references to variables before it expanded, and the
// names in order.
func containerEnv(c *container, left func(string), warn func(string, ...any)) (map[string]string, []string) {
	env := map[string]string{}
	var order []string
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil:
			left("env " + e.Name + " (valueFrom: a secret, config map or field reference)")
			continue
		case e.Value != nil:
			v, missing := expandK8s(*e.Value, env)
			for _, m := range missing {
				warn("env %s: $(%s) is not a variable defined before it with a value; left as written, as Kubernetes leaves it", e.Name, m)
			}
			env[e.Name] = v
		default:
			env[e.Name] = ""
		}
		order = append(order, e.Name)
	}
	return env, order
}

// runtimeArgv runs the container's image as Kubernetes would: command
// replaces the image's entrypoint, args its default arguments. The
// environment's values stay out of the argv: `--env NAME` passes each from
// the job's env; inline are the NAME=value settings that cannot share the
// job's env with another container's. imagePullPolicy maps to --pull.
func runtimeArgv(runtime string, c *container, envNames, inline, command, args []string) []string {
	argv := []string{runtime, "run", "--rm"}
	if p, ok := c.Extra["imagePullPolicy"].(string); ok && pullPolicies[p] != "" {
		argv = append(argv, "--pull", pullPolicies[p])
	}
	seen := map[string]bool{}
	for _, n := range envNames {
		if !seen[n] {
			seen[n] = true
			argv = append(argv, "--env", n)
		}
	}
	for _, kv := range inline {
		argv = append(argv, "--env", kv)
	}
	if c.WorkingDir != "" {
		argv = append(argv, "--workdir", c.WorkingDir)
	}
	if len(command) > 0 {
		argv = append(argv, "--entrypoint", command[0])
	}
	argv = append(argv, "--", c.Image)
	if len(command) > 1 {
		argv = append(argv, command[1:]...)
	}
	return append(argv, args...)
}

// pullPolicies maps a container's imagePullPolicy to podman's and docker's
// --pull (IfNotPresent is their default, missing).
var pullPolicies = map[string]string{"Always": "always", "Never": "never"}

// containerDefaults and podDefaults are the values the API server fills
// in, which `kubectl get -o yaml` prints: they say nothing a job must
// keep, so they are not reported. restartPolicy, which a Job's pod must
// set, is what backoff_limit carries; imagePullPolicy becomes --pull with a
// container runtime.
var (
	containerDefaults = map[string]string{"imagePullPolicy": "*", "resources": "map[]",
		"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
	podDefaults = map[string]string{"dnsPolicy": "ClusterFirst", "restartPolicy": "*",
		"schedulerName": "default-scheduler", "securityContext": "map[]", "terminationGracePeriodSeconds": "30"}
)

// notDefault returns the fields of extra whose values are not the
// defaults ("*": any value).
func notDefault(extra map[string]any, defaults map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range extra {
		if d, ok := defaults[k]; ok && (d == "*" || d == fmt.Sprint(v)) {
			continue
		}
		out[k] = v
	}
	return out
}

// podScript runs every container of a pod with the runtime, at once, as
// the pod runs them, and fails when any of them fails, as the pod does:
// a /bin/sh script that starts each in the background and waits for all.
// The containers' variables share the job's env (passed by name); one
// that another container sets to a different value is passed inline.
func podScript(runtime string, cs []container, left func(string), warn func(string, ...any)) (string, map[string]string) {
	all := map[string]string{}
	var lines []string
	for i := range cs {
		c := &cs[i]
		env, names := containerEnv(c, left, warn)
		var shared, inline []string
		for _, n := range names {
			if v, taken := all[n]; taken && v != env[n] {
				inline = append(inline, n+"="+env[n])
				continue
			}
			all[n] = env[n]
			shared = append(shared, n)
		}
		if len(inline) > 0 {
			names := make([]string, len(inline))
			for k, kv := range inline {
				names[k], _, _ = strings.Cut(kv, "=")
			}
			warn("container %s: %s differs from another container's value, so it is passed on the command line (--env NAME=value), where the process list shows it", c.Name, strings.Join(names, ", "))
		}
		expand := func(ss []string) []string {
			out := make([]string, len(ss))
			for k, s := range ss {
				out[k], _ = expandK8s(s, env)
			}
			return out
		}
		argv := runtimeArgv(runtime, c, shared, inline, expand(c.Command), expand(c.Args))
		q := make([]string, len(argv))
		for k, a := range argv {
			q[k] = shellQuote(a)
		}
		lines = append(lines, fmt.Sprintf("%s &\npid%d=$!", strings.Join(q, " "), i+1))
	}
	lines = append(lines, "status=0")
	for i := range cs {
		lines = append(lines, fmt.Sprintf("wait \"$pid%d\" || status=1", i+1))
	}
	lines = append(lines, "exit \"$status\"")
	return strings.Join(lines, "\n"), all
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// withNUL names the first of command, args and env that holds a NUL, or
// returns "".
func withNUL(command, args []string, env map[string]string) string {
	for i, a := range command {
		if strings.ContainsRune(a, 0) {
			return fmt.Sprintf("command[%d]", i)
		}
	}
	for i, a := range args {
		if strings.ContainsRune(a, 0) {
			return fmt.Sprintf("args[%d]", i)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(env[k], 0) {
			return "env " + strings.ReplaceAll(k, "\x00", `\0`)
		}
	}
	return ""
}

// cronJobLimits sets what the CronJob spec says about starting and
// history (deadline, concurrency, suspend, history limits), for jobs run on
// the host and as Kubernetes Jobs alike. It returns the range check it
// used, which reports a number outside what a job accepts and leaves it
// out.
func cronJobLimits(j *job, cj *cronJob, warn func(string, ...any)) (inRange func(field string, v *int64, limit int64) bool) {
	spec := &cj.Spec
	inRange = func(field string, v *int64, limit int64) bool {
		if v == nil {
			return false
		}
		if *v < 0 || *v > limit {
			warn("%s %d is outside 0 to %d; not imported", field, *v, limit)
			return false
		}
		return true
	}
	if d := spec.StartingDeadlineSeconds; inRange("startingDeadlineSeconds", d, jobspec.MaxDurationSeconds) {
		j.set("starting_deadline_seconds", itoa(*d))
	}
	if p := spec.ConcurrencyPolicy; p != "" {
		j.set("concurrency_policy", quote(p))
	}
	if s := spec.Suspend; s != nil && *s {
		j.set("suspend", "true")
	}
	if l := spec.SuccessfulJobsHistoryLimit; inRange("successfulJobsHistoryLimit", l, jobspec.MaxHistoryLimit) {
		j.set("successful_jobs_history_limit", itoa(*l))
	}
	if l := spec.FailedJobsHistoryLimit; inRange("failedJobsHistoryLimit", l, jobspec.MaxHistoryLimit) {
		j.set("failed_jobs_history_limit", itoa(*l))
	}
	return inRange
}
