package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
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

// CronJob converts Kubernetes CronJob and ScheduledJob documents (one or
// several, separated by ---) to a manifest of jobs. The schedule, time
// zone, starting deadline, concurrency policy, suspend, history limits,
// backoff limit, activeDeadlineSeconds (as timeout) and the first
// container's command, args, environment and working directory map to the
// job; the image, volumes, resources and everything else that only means
// something inside a cluster become comments and warnings. Documents of
// other kinds are skipped with a warning.
func CronJob(file string, src []byte) (Result, error) {
	var b strings.Builder
	var res Result
	fmt.Fprintf(&b, "# Imported from %s by `almanac import cronjob`.\n", file)
	taken := names{}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for doc := 1; ; doc++ {
		var cj cronJob
		err := dec.Decode(&cj)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		warn := func(format string, a ...any) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: document %d (%s): %s", file, doc, cj.Metadata.Name, fmt.Sprintf(format, a...)))
		}
		switch {
		case cj.Kind == "" && cj.APIVersion == "":
			continue // an empty document
		case cj.Kind != "CronJob" && cj.Kind != "ScheduledJob":
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: document %d: a %s, not a CronJob; skipped", file, doc, cj.Kind))
			continue
		}
		j, ok := cronJobToJob(file, doc, &cj, taken, warn)
		if !ok {
			fmt.Fprintf(&b, "\n# %s: document %d (%s %s): not imported\n", file, doc, cj.Kind, cj.Metadata.Name)
			continue
		}
		b.WriteString("\n")
		j.write(&b)
		res.Jobs++
	}
	res.Manifest = b.String()
	return res, nil
}

// cronJobToJob maps one CronJob; false when it cannot be run as a job.
func cronJobToJob(file string, doc int, cj *cronJob, taken names, warn func(string, ...any)) (*job, bool) {
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
	argv := append(append([]string{}, c.Command...), c.Args...)
	if len(c.Command) == 0 {
		warn("container %s has no command: it runs the image's entrypoint, which only exists inside the image; not imported", c.Name)
		return nil, false
	}
	j := &job{name: taken.make(cj.Metadata.Name)}
	j.comments = append(j.comments, fmt.Sprintf("%s: document %d: %s %s (%s)", file, doc, cj.Kind, cj.Metadata.Name, cj.APIVersion))
	if cj.Metadata.Namespace != "" {
		j.comments = append(j.comments, "namespace: "+cj.Metadata.Namespace)
	}
	left := func(what string) {
		j.comments = append(j.comments, "not imported: "+what)
		warn("%s is not imported", what)
	}
	if c.Image != "" {
		left("image " + c.Image + " (the command runs on the host, not in the image)")
	}
	for i, other := range pod.Containers[1:] {
		left(fmt.Sprintf("container %d (%s)", i+2, other.Name))
	}
	for _, k := range sortedKeys(c.Extra) {
		left("container field " + k)
	}
	for _, k := range sortedKeys(pod.Extra) {
		left("pod field " + k)
	}
	for _, k := range sortedKeys(spec.JobTemplate.Spec.Extra) {
		left("job field " + k)
	}
	for _, k := range sortedKeys(spec.Extra) {
		left("CronJob field " + k)
	}

	schedule, zone := strings.TrimSpace(spec.Schedule), ""
	for _, prefix := range []string{"CRON_TZ=", "TZ="} {
		if rest, ok := strings.CutPrefix(schedule, prefix); ok {
			zone, schedule, _ = strings.Cut(rest, " ")
			schedule = strings.TrimSpace(schedule)
		}
	}
	if spec.TimeZone != nil {
		zone = *spec.TimeZone
	}
	loc := time.UTC
	if zone != "" {
		l, err := calendar.LoadZone(zone)
		if err != nil {
			warn("time zone %s: %v; not imported", zone, err)
			return nil, false
		}
		loc = l
	}
	if _, err := cron.Parse(schedule, cron.WithLocation(loc)); err != nil {
		warn("schedule %q: %v; not imported", schedule, err)
		return nil, false
	}
	j.set("cron", quote(schedule))
	if zone != "" {
		j.set("time_zone", quote(zone))
	}
	j.set("command", quoteList(argv))
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil:
			left("env " + e.Name + " (valueFrom: a secret, config map or field reference)")
		case e.Value != nil:
			env[e.Name] = *e.Value
		default:
			env[e.Name] = ""
		}
	}
	if len(env) > 0 {
		j.set("env", quoteHash(env))
	}
	if c.WorkingDir != "" {
		if path.IsAbs(c.WorkingDir) {
			j.set("cwd", quote(c.WorkingDir))
		} else {
			left("workingDir " + c.WorkingDir + " (not an absolute path)")
		}
	}
	if d := spec.StartingDeadlineSeconds; d != nil {
		j.set("starting_deadline_seconds", itoa(*d))
	}
	if p := spec.ConcurrencyPolicy; p != "" {
		j.set("concurrency_policy", quote(p))
	}
	if s := spec.Suspend; s != nil && *s {
		j.set("suspend", "true")
	}
	if l := spec.SuccessfulJobsHistoryLimit; l != nil {
		j.set("successful_jobs_history_limit", itoa(*l))
	}
	if l := spec.FailedJobsHistoryLimit; l != nil {
		j.set("failed_jobs_history_limit", itoa(*l))
	}
	if l := spec.JobTemplate.Spec.BackoffLimit; l != nil {
		j.set("backoff_limit", itoa(*l))
	} else {
		// A Kubernetes Job retries 6 times unless told otherwise.
		j.set("backoff_limit", "6")
	}
	if d := spec.JobTemplate.Spec.ActiveDeadlineSeconds; d != nil {
		j.set("timeout", itoa(*d))
	}
	return j, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
