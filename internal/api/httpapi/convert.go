package httpapi

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/jobname"
	"github.com/almanac-sh/almanac/internal/store"
)

// checkName validates a job name taken from field (a path parameter or a
// list element) with the job package's rule.
func checkName(field, name string) error {
	if !jobname.Valid(name) {
		return invalid(field, fmt.Sprintf("job name %q must be %s", name, jobname.Rule))
	}
	return nil
}

// specToStore converts a wire spec for the job called name to the store's
// form and checks it with job.Validate, the one rule set every entry point
// shares (the cron expression itself is compiled by the controller).
// Errors are *apitype.Error naming the field of the first problem.
func specToStore(name string, in apitype.JobSpec) (store.JobSpec, error) {
	out := store.JobSpec{
		Name:                       name,
		Cron:                       strings.TrimSpace(in.Cron),
		At:                         in.At,
		Manual:                     in.Manual,
		CronDialect:                strings.TrimSpace(in.CronDialect),
		OnCalendar:                 trimAll(in.OnCalendar),
		TimeZone:                   in.TimeZone,
		RandomizedDelaySeconds:     in.RandomizedDelaySeconds,
		Env:                        in.Env,
		StartingDeadlineSeconds:    in.StartingDeadlineSeconds,
		ConcurrencyPolicy:          concurrencyPolicy(in.ConcurrencyPolicy),
		Suspend:                    in.Suspend,
		BackoffLimit:               in.BackoffLimit,
		SuccessfulJobsHistoryLimit: in.SuccessfulJobsHistoryLimit,
		FailedJobsHistoryLimit:     in.FailedJobsHistoryLimit,
		Gate:                       strings.TrimSpace(in.Gate),
		Requires:                   in.Require,
		Before:                     in.Before,
		Notify:                     in.Notify,
		NotifyOn:                   in.NotifyOn,
		RunAs:                      in.RunAs,
		Nodes:                      strings.TrimSpace(in.Nodes),
		Window:                     in.Window,
		MaxParallel:                strings.TrimSpace(in.MaxParallel),
		MaxFailures:                in.MaxFailures,
		WaveOrder:                  strings.TrimSpace(in.WaveOrder),
		RebootGroup:                strings.TrimSpace(in.RebootGroup),
		CatchUp:                    strings.TrimSpace(in.CatchUp),
	}
	var err error
	if out.AlertAfterSeconds, err = wholeSeconds("alert_after", time.Duration(in.AlertAfter)); err != nil {
		return out, err
	}
	if out.TimeoutSeconds, err = wholeSeconds("timeout", time.Duration(in.Timeout)); err != nil {
		return out, err
	}
	if in.Cron != "" && out.Cron == "" && in.At == nil {
		return out, invalid("cron", "cron expression is blank")
	}
	out.Shell, out.Command = commandToStore(in.Command)
	out.Kubernetes = kubernetesToStore(in.Kubernetes)
	out.Cwd = in.Cwd
	if filepath.IsAbs(in.Cwd) {
		out.Cwd = filepath.Clean(in.Cwd)
	}
	return out, validate(&out)
}

// trimAll returns list with each element's surrounding space removed (nil
// stays nil).
func trimAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

// wholeSeconds converts a duration of the wire to the store's seconds: 0
// stays 0 (unset), and anything else must be a positive whole number of
// seconds.
func wholeSeconds(field string, d time.Duration) (int64, error) {
	if d < 0 || d%time.Second != 0 {
		return 0, invalid(field, fmt.Sprintf("must be a positive whole number of seconds, not %s", d))
	}
	return int64(d / time.Second), nil
}

// commandToStore splits the wire's command into the store's shell line or
// argument vector (a copy).
func commandToStore(c apitype.Command) (shell string, argv []string) {
	if c.Shell != "" {
		return c.Shell, nil
	}
	if len(c.Argv) > 0 {
		return "", append([]string(nil), c.Argv...)
	}
	return "", nil
}

// validate applies the job rules, answering the first broken one as the
// API's invalid-field error.
func validate(spec *store.JobSpec) error {
	err := job.Validate(spec, nil)
	var ve *job.ValidationError
	if errors.As(err, &ve) && len(ve.Fields) > 0 {
		return invalid(ve.Fields[0].Field, ve.Fields[0].Message)
	}
	return err
}

// concurrencyPolicy maps the wire's policy, in any case, to the store's;
// an unknown value is kept as written for the validator to report.
func concurrencyPolicy(p string) store.ConcurrencyPolicy {
	switch strings.ToLower(p) {
	case "allow":
		return store.Allow
	case "forbid":
		return store.Forbid
	case "replace":
		return store.Replace
	}
	return store.ConcurrencyPolicy(p)
}

// specFromStore converts a stored spec to its wire form.
func specFromStore(in store.JobSpec) apitype.JobSpec {
	out := apitype.JobSpec{
		Cron:                       in.Cron,
		At:                         in.At,
		Manual:                     in.Manual,
		CronDialect:                in.CronDialect,
		OnCalendar:                 in.OnCalendar,
		TimeZone:                   in.TimeZone,
		RandomizedDelaySeconds:     in.RandomizedDelaySeconds,
		Env:                        in.Env,
		Cwd:                        in.Cwd,
		StartingDeadlineSeconds:    in.StartingDeadlineSeconds,
		ConcurrencyPolicy:          string(in.ConcurrencyPolicy),
		Suspend:                    in.Suspend,
		BackoffLimit:               in.BackoffLimit,
		Timeout:                    apitype.Duration(time.Duration(in.TimeoutSeconds) * time.Second),
		SuccessfulJobsHistoryLimit: in.SuccessfulJobsHistoryLimit,
		FailedJobsHistoryLimit:     in.FailedJobsHistoryLimit,
		Gate:                       in.Gate,
		Require:                    in.Requires,
		Before:                     in.Before,
		Notify:                     in.Notify,
		NotifyOn:                   in.NotifyOn,
		AlertAfter:                 apitype.Duration(time.Duration(in.AlertAfterSeconds) * time.Second),
		RunAs:                      in.RunAs,
		Nodes:                      in.Nodes,
		Window:                     in.Window,
		MaxParallel:                in.MaxParallel,
		MaxFailures:                in.MaxFailures,
		WaveOrder:                  in.WaveOrder,
		WavePaused:                 in.WavePaused,
		RebootGroup:                in.RebootGroup,
		CatchUp:                    in.CatchUp,
	}
	out.Kubernetes = kubernetesFromStore(in.Kubernetes)
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
func jobFromStore(j store.Job, st job.Status) apitype.Job {
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
		Target:        r.Target,
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
		Actor:    e.Actor,
		Via:      e.Via,
		Remote:   e.Remote,
	}
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
