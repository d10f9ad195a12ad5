package apitype

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// Concurrency policies of a job: what happens when a run is due while an
// earlier run of the same job is still active.
const (
	ConcurrencyAllow   = "Allow"   // start the new run alongside the old one
	ConcurrencyForbid  = "Forbid"  // skip the new run
	ConcurrencyReplace = "Replace" // kill the old run's process group, start the new one
)

// Job is a named job as the API shows it: what the user asked for (Spec) and
// what the controller observed (Status).
type Job struct {
	Name string `json:"name"`
	// Source says where the job was defined: "api", "manifest" or "demo".
	// Jobs from manifests are changed by editing the manifest.
	Source    string    `json:"source"`
	Spec      JobSpec   `json:"spec"`
	Status    JobStatus `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// JobSpec is the desired behaviour of a job: when it runs and what it runs.
// It is the body of PUT /api/v1/jobs/{name}. Exactly one of Cron, OnCalendar,
// At and Manual is set.
// Pointer fields distinguish "not given" (the server's default applies) from
// an explicit zero.
type JobSpec struct {
	// Cron is a cron expression (docs/cron.md), evaluated in TimeZone.
	Cron string `json:"cron,omitempty"`
	// At is the single instant of a one-shot job.
	At *time.Time `json:"at,omitempty"`
	// Manual is a job with no schedule: it runs only when triggered.
	Manual bool `json:"manual,omitempty"`
	// CronDialect says which rules read Cron: "vixie" (the default,
	// docs/cron.md) or "kubernetes" (a Kubernetes CronJob's).
	CronDialect string `json:"cron_dialect,omitempty"`
	// OnCalendar holds systemd calendar events (docs/systemd.md); the job
	// fires at the union of their instants.
	OnCalendar []string `json:"on_calendar,omitempty"`
	// TimeZone is an IANA zone name or its tag form; empty means UTC.
	TimeZone string `json:"time_zone,omitempty"`
	// RandomizedDelaySeconds delays every fire by a fixed per-job offset
	// below it, in whole seconds (docs/jobs.md); zero means none.
	RandomizedDelaySeconds int64 `json:"randomized_delay_seconds,omitempty"`
	// Command is what a run executes; empty for a Kubernetes job.
	Command Command `json:"command"`
	// Kubernetes, exclusive with Command, runs each run as a Kubernetes
	// Job (docs/kubernetes.md).
	Kubernetes *KubernetesSpec `json:"kubernetes,omitempty"`
	// Env is added to the run's environment.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the run's working directory; empty means the daemon's.
	Cwd string `json:"cwd,omitempty"`
	// StartingDeadlineSeconds bounds how late a run may start; nil means no bound.
	StartingDeadlineSeconds *int64 `json:"starting_deadline_seconds,omitempty"`
	// ConcurrencyPolicy is one of the Concurrency* constants; empty means Allow.
	ConcurrencyPolicy string `json:"concurrency_policy,omitempty"`
	// Suspend stops future runs; active runs continue.
	Suspend bool `json:"suspend,omitempty"`
	// BackoffLimit is how many times a failed run is retried.
	BackoffLimit int `json:"backoff_limit,omitempty"`
	// Timeout kills a run that takes longer, in whole seconds; zero means
	// no timeout.
	Timeout Duration `json:"timeout,omitempty"`
	// SuccessfulJobsHistoryLimit is how many succeeded runs are kept (nil: 3).
	SuccessfulJobsHistoryLimit *int `json:"successful_jobs_history_limit,omitempty"`
	// FailedJobsHistoryLimit is how many failed runs are kept (nil: 1).
	FailedJobsHistoryLimit *int `json:"failed_jobs_history_limit,omitempty"`
	// Gate names a schedule gate: a run due outside it waits for it to open.
	Gate string `json:"schedule,omitempty"`
	// Require lists jobs whose run for the same scheduled instant must
	// succeed before a run of this job starts.
	Require []string `json:"require,omitempty"`
	// Before lists jobs whose run for the same scheduled instant waits for
	// this job's run to succeed (the reverse of Require).
	Before []string `json:"before,omitempty"`
	// Notify lists where the job's outcomes are reported: mailto:ADDRESS,
	// an http(s):// webhook URL, or slack+https://URL.
	Notify []string `json:"notify,omitempty"`
	// NotifyOn lists the outcomes reported: failure, missed, recovered,
	// success (default failure and missed).
	NotifyOn []string `json:"notify_on,omitempty"`
	// AlertAfter sends one "overdue" notification when the job's last
	// success is older than this (a Go duration such as "26h").
	AlertAfter Duration `json:"alert_after,omitempty"`
	// RunAs is the user, or "user:group", the command runs as (names or
	// numeric ids); empty means the daemon's user.
	RunAs string `json:"run_as,omitempty"`
	// Nodes selects the cluster nodes the job runs on: any (the default),
	// all, a node name or a label selector like "role=db,zone!=eu"
	// (docs/fleet-jobs.md).
	Nodes string `json:"nodes,omitempty"`
	// Window maps label selectors, or "default", to the window a node's
	// run waits for (docs/fleet-jobs.md).
	Window map[string]string `json:"window,omitempty"`
	// MaxParallel limits how many nodes run an instant at once: a count
	// or a percentage of the targeted nodes ("25%").
	MaxParallel string `json:"max_parallel,omitempty"`
	// MaxFailures stops a rolling wave after that many failed nodes.
	MaxFailures int `json:"max_failures,omitempty"`
	// WaveOrder is "name" (the default) or "random".
	WaveOrder string `json:"wave_order,omitempty"`
	// RebootGroup names a FleetLock reboot group whose slot each node's
	// run takes before it starts and gives back when it ends.
	RebootGroup string `json:"reboot_group,omitempty"`
	// WavePaused reports that an operator paused the job's waves (POST
	// .../wave/pause). It is operator state, not part of the spec: a PUT
	// neither sets nor clears it.
	WavePaused bool `json:"wave_paused,omitempty"`
	// CatchUp is what happens to the instants a run could not start at
	// (daemon down, gate or window closed, wave paused, node away):
	// "latest" (the default: only the latest waits, the others are
	// missed), "all" or "none".
	CatchUp string `json:"catch_up,omitempty"`
}

// JobStatus is what the controller has observed about a job.
type JobStatus struct {
	// Active holds the ids of the job's runs that are running now.
	Active             []int64    `json:"active"`
	Succeeded          int64      `json:"succeeded"`
	Failed             int64      `json:"failed"`
	LastScheduleTime   *time.Time `json:"last_schedule_time,omitempty"`
	LastSuccessfulTime *time.Time `json:"last_successful_time,omitempty"`
	NextScheduleTime   *time.Time `json:"next_schedule_time,omitempty"`
}

// Command is what a run executes: either an argument vector, run directly, or
// a shell string, run by /bin/sh -c. On the wire it is a JSON array of
// strings or a JSON string.
type Command struct {
	Argv  []string
	Shell string
}

// IsZero reports whether no command is set.
func (c Command) IsZero() bool { return len(c.Argv) == 0 && c.Shell == "" }

// String renders the command for people: the shell string, or the argv
// joined by spaces.
func (c Command) String() string {
	if c.Shell != "" {
		return c.Shell
	}
	var b bytes.Buffer
	for i, a := range c.Argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// MarshalJSON encodes a shell command as a string and an argv as an array.
func (c Command) MarshalJSON() ([]byte, error) {
	if c.Shell != "" {
		return json.Marshal(c.Shell)
	}
	if c.Argv == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(c.Argv)
}

// commandTypeError reports a command that is neither a string nor an array
// of strings; encoding/json adds the field name to it.
func commandTypeError(value string) error {
	return &json.UnmarshalTypeError{Value: value, Type: reflect.TypeFor[Command]()}
}

// UnmarshalJSON accepts a JSON string or an array of strings.
func (c *Command) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Command{Shell: s}
	case len(b) > 0 && b[0] == '[':
		var argv []string
		if err := json.Unmarshal(b, &argv); err != nil {
			return commandTypeError("array with a non-string element")
		}
		*c = Command{Argv: argv}
	case bytes.Equal(b, []byte("null")):
		*c = Command{}
	case len(b) > 0 && b[0] == '{':
		return commandTypeError("object")
	case len(b) > 0 && (b[0] == 't' || b[0] == 'f'):
		return commandTypeError("bool")
	default:
		return commandTypeError("number")
	}
	return nil
}

// Duration is a time.Duration that travels as a Go duration string ("90s",
// "1h30m"). The zero value is encoded as "0s" and omitted by omitempty.
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(time.Duration(d).String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (like \"90s\" or \"1h30m\")", b)
	}
	*d = Duration(v)
	return nil
}
