package httpapi

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/store"
)

// nameRE is what a job name may look like: it appears in URLs, file names
// and manifests, so it stays within a conservative alphabet.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// checkName validates a job name taken from field.
func checkName(field, name string) error {
	if !nameRE.MatchString(name) {
		return invalid(field, fmt.Sprintf("job name %q must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", name))
	}
	return nil
}

// Limits on spec fields that have no natural bound.
const (
	maxBackoffLimit = 100
	maxHistoryLimit = 1000
)

// specToStore validates a wire spec for the job called name and converts it
// to the store's form. Errors are *apitype.Error naming the field.
func specToStore(name string, in apitype.JobSpec) (store.JobSpec, error) {
	out := store.JobSpec{Name: name}
	if err := checkName("name", name); err != nil {
		return out, err
	}
	cron := strings.TrimSpace(in.Cron)
	switch {
	case cron != "" && in.At != nil:
		return out, invalid("cron", "set either cron (a schedule) or at (one instant), not both")
	case cron == "" && in.At == nil:
		if in.Cron != "" {
			return out, invalid("cron", "cron expression is blank")
		}
		return out, invalid("cron", "a job needs cron (a schedule) or at (one instant)")
	}
	out.Cron = cron
	if in.At != nil {
		at := in.At.UTC()
		out.At = &at
	}
	if in.TimeZone != "" {
		zone, err := calendar.CanonicalZone(in.TimeZone)
		if err != nil {
			return out, invalid("time_zone", err.Error())
		}
		out.TimeZone = zone
	}

	switch {
	case in.Command.IsZero():
		return out, invalid("command", "a job needs a command (an array of arguments, or a string run by /bin/sh -c)")
	case in.Command.Shell != "":
		if strings.TrimSpace(in.Command.Shell) == "" {
			return out, invalid("command", "command is blank")
		}
		if strings.ContainsRune(in.Command.Shell, 0) {
			return out, invalid("command", "command contains a NUL byte")
		}
		out.Shell = in.Command.Shell
	default:
		if in.Command.Argv[0] == "" {
			return out, invalid("command[0]", "the program name is empty")
		}
		for i, a := range in.Command.Argv {
			if strings.ContainsRune(a, 0) {
				return out, invalid(fmt.Sprintf("command[%d]", i), "argument contains a NUL byte")
			}
		}
		out.Command = append([]string(nil), in.Command.Argv...)
	}

	if len(in.Env) > 0 {
		out.Env = make(map[string]string, len(in.Env))
		for k, v := range in.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return out, invalid("env", fmt.Sprintf("environment variable name %q must be non-empty without '=' or NUL", k))
			}
			if strings.ContainsRune(v, 0) {
				return out, invalid("env."+k, "value contains a NUL byte")
			}
			out.Env[k] = v
		}
	}
	if in.Cwd != "" {
		if !filepath.IsAbs(in.Cwd) {
			return out, invalid("cwd", fmt.Sprintf("working directory %q must be an absolute path", in.Cwd))
		}
		out.Cwd = filepath.Clean(in.Cwd)
	}
	if d := in.StartingDeadlineSeconds; d != nil {
		if *d < 0 {
			return out, invalid("starting_deadline_seconds", fmt.Sprintf("must be 0 or more, not %d", *d))
		}
		v := *d
		out.StartingDeadlineSeconds = &v
	}
	switch strings.ToLower(in.ConcurrencyPolicy) {
	case "":
	case "allow":
		out.ConcurrencyPolicy = store.Allow
	case "forbid":
		out.ConcurrencyPolicy = store.Forbid
	case "replace":
		out.ConcurrencyPolicy = store.Replace
	default:
		return out, invalid("concurrency_policy", fmt.Sprintf("%q is not one of Allow, Forbid, Replace", in.ConcurrencyPolicy))
	}
	out.Suspend = in.Suspend
	if in.BackoffLimit < 0 || in.BackoffLimit > maxBackoffLimit {
		return out, invalid("backoff_limit", fmt.Sprintf("must be between 0 and %d, not %d", maxBackoffLimit, in.BackoffLimit))
	}
	out.BackoffLimit = in.BackoffLimit
	if t := time.Duration(in.Timeout); t != 0 {
		if t < 0 || t%time.Second != 0 {
			return out, invalid("timeout", fmt.Sprintf("must be a positive whole number of seconds, not %s", t))
		}
		out.TimeoutSeconds = int64(t / time.Second)
	}
	for _, hl := range []struct {
		field string
		in    *int
		out   **int
	}{
		{"successful_jobs_history_limit", in.SuccessfulJobsHistoryLimit, &out.SuccessfulJobsHistoryLimit},
		{"failed_jobs_history_limit", in.FailedJobsHistoryLimit, &out.FailedJobsHistoryLimit},
	} {
		if hl.in == nil {
			continue
		}
		if *hl.in < 0 || *hl.in > maxHistoryLimit {
			return out, invalid(hl.field, fmt.Sprintf("must be between 0 and %d, not %d", maxHistoryLimit, *hl.in))
		}
		v := *hl.in
		*hl.out = &v
	}
	out.Schedule = strings.TrimSpace(in.Schedule)
	var err error
	if out.Requires, err = jobRefs(name, "require", in.Require); err != nil {
		return out, err
	}
	if out.Before, err = jobRefs(name, "before", in.Before); err != nil {
		return out, err
	}
	for i, b := range out.Before {
		for _, r := range out.Requires {
			if b == r {
				return out, invalid(fmt.Sprintf("before[%d]", i), fmt.Sprintf("job %q is in both require and before, a cycle", b))
			}
		}
	}
	return out, nil
}

// jobRefs validates a list of job names in field (require, before).
func jobRefs(self, field string, names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for i, r := range names {
		f := fmt.Sprintf("%s[%d]", field, i)
		if err := checkName(f, r); err != nil {
			return nil, err
		}
		if r == self {
			return nil, invalid(f, fmt.Sprintf("a job cannot list itself in %s", field))
		}
		if seen[r] {
			return nil, invalid(f, fmt.Sprintf("job %q is listed twice", r))
		}
		seen[r] = true
		out = append(out, r)
	}
	return out, nil
}

// specFromStore converts a stored spec to its wire form.
func specFromStore(in store.JobSpec) apitype.JobSpec {
	out := apitype.JobSpec{
		Cron:                       in.Cron,
		At:                         in.At,
		TimeZone:                   in.TimeZone,
		Env:                        in.Env,
		Cwd:                        in.Cwd,
		StartingDeadlineSeconds:    in.StartingDeadlineSeconds,
		ConcurrencyPolicy:          string(in.ConcurrencyPolicy),
		Suspend:                    in.Suspend,
		BackoffLimit:               in.BackoffLimit,
		Timeout:                    apitype.Duration(time.Duration(in.TimeoutSeconds) * time.Second),
		SuccessfulJobsHistoryLimit: in.SuccessfulJobsHistoryLimit,
		FailedJobsHistoryLimit:     in.FailedJobsHistoryLimit,
		Schedule:                   in.Schedule,
		Require:                    in.Requires,
		Before:                     in.Before,
	}
	if in.Shell != "" {
		out.Command = apitype.Command{Shell: in.Shell}
	} else {
		out.Command = apitype.Command{Argv: in.Command}
	}
	if out.ConcurrencyPolicy == "" {
		out.ConcurrencyPolicy = apitype.ConcurrencyAllow
	}
	return out
}

// jobFromStore converts a stored job and the controller's live status.
func jobFromStore(j store.Job, st JobStatus) apitype.Job {
	active, next := st.Active, st.NextScheduleTime
	if active == nil {
		active = []int64{}
	}
	return apitype.Job{
		Name:      j.Spec.Name,
		Source:    string(j.Source),
		Spec:      specFromStore(j.Spec),
		CreatedAt: j.CreatedAt,
		UpdatedAt: j.UpdatedAt,
		Status: apitype.JobStatus{
			Active:             active,
			Succeeded:          j.Status.Succeeded,
			Failed:             j.Status.Failed,
			LastScheduleTime:   timePtr(j.Status.LastScheduleTime),
			LastSuccessfulTime: timePtr(j.Status.LastSuccessfulTime),
			NextScheduleTime:   timePtr(next),
		},
	}
}

func runFromStore(r store.Run) apitype.Run {
	return apitype.Run{
		ID:            r.ID,
		Job:           r.Job,
		ScheduledTime: r.ScheduledTime,
		Reason:        string(r.Reason),
		State:         string(r.State),
		Attempt:       r.Attempt,
		Node:          r.Node,
		CreatedAt:     r.CreatedAt,
		StartedAt:     timePtr(r.StartedAt),
		FinishedAt:    timePtr(r.FinishedAt),
		ExitCode:      r.ExitCode,
		Error:         r.Error,
	}
}

func eventFromStore(e store.Event) apitype.Event {
	return apitype.Event{
		ID:       e.ID,
		Time:     e.Time,
		Kind:     string(e.Kind),
		Job:      e.Job,
		Resource: e.Resource,
		RunID:    e.RunID,
		Message:  e.Message,
		Data:     e.Data,
	}
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
