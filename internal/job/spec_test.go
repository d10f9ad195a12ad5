package job

import (
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestValidate(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		spec store.JobSpec
		want string // substring of the error; empty = valid
	}{
		{"cron", store.JobSpec{Name: "a", Cron: "1m", Command: []string{"true"}}, ""},
		{"at and shell", store.JobSpec{Name: "a.b_c-1", At: &at, Shell: "true", TimeZone: "europe-berlin"}, ""},
		{"bad name", store.JobSpec{Name: "a/b", Cron: "1m", Shell: "x"}, "name"},
		{"empty name", store.JobSpec{Cron: "1m", Shell: "x"}, "name"},
		{"no schedule", store.JobSpec{Name: "a", Shell: "x"}, "needs cron (a cron schedule), on_calendar"},
		{"both schedules", store.JobSpec{Name: "a", Cron: "1m", At: &at, Shell: "x"}, "not both"},
		{"bad cron", store.JobSpec{Name: "a", Cron: "soon", Shell: "x"}, "cron:"},
		{"no command", store.JobSpec{Name: "a", Cron: "1m"}, "needs a command"},
		{"both commands", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Command: []string{"y"}}, "not both"},
		{"bad zone", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", TimeZone: "Mars/Base"}, "time_zone"},
		{"negative deadline", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", StartingDeadlineSeconds: ptr(int64(-1))}, "starting_deadline_seconds"},
		{"bad policy", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", ConcurrencyPolicy: "Sometimes"}, "concurrency_policy"},
		{"negative backoff", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", BackoffLimit: -1}, "backoff_limit"},
		{"self require", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Requires: []string{"a"}}, "itself"},
		{"bad env", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Env: map[string]string{"A=B": "c"}}, "env"},
		{"negative history", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", FailedJobsHistoryLimit: ptr(-1)}, "failed_jobs_history_limit"},
		{"long name", store.JobSpec{Name: strings.Repeat("a", 129), Cron: "1m", Shell: "x"}, "name: job name"},
		{"longest name", store.JobSpec{Name: strings.Repeat("a", 128), Cron: "1m", Shell: "x"}, ""},
		{"huge backoff", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", BackoffLimit: 1000000}, "backoff_limit: must be between 0 and 100, not 1000000"},
		{"overflowing deadline", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", StartingDeadlineSeconds: ptr(int64(10000000000))}, "starting_deadline_seconds: must be between 0 and 31622400"},
		{"year-long deadline", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", StartingDeadlineSeconds: ptr(int64(MaxDurationSeconds))}, ""},
		{"huge timeout", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", TimeoutSeconds: 1 << 40}, "timeout"},
		{"huge history", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", SuccessfulJobsHistoryLimit: ptr(1001)}, "successful_jobs_history_limit"},
		{"at year 9999", store.JobSpec{Name: "a", At: ptr(time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", -14*3600))), Shell: "x"}, "at: must be between"},
		{"at before 1970", store.JobSpec{Name: "a", At: ptr(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)), Shell: "x"}, "at: must be between"},
		{"nul in command", store.JobSpec{Name: "a", Cron: "1m", Command: []string{"echo", "a\x00b"}}, "command[1]: argument contains a NUL byte"},
		{"relative cwd", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Cwd: "tmp"}, "cwd"},
		{"duplicate require", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Requires: []string{"b", "b"}}, "require[1]: job \"b\" is listed twice"},
		{"require and before", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Requires: []string{"b"}, Before: []string{"b"}}, "before[0]"},
		{"run as user and group", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "backup:disk"}, ""},
		{"run as bad", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "a b"}, "run_as"},
		{"manual", store.JobSpec{Name: "a", Manual: true, Shell: "x"}, ""},
		{"manual and cron", store.JobSpec{Name: "a", Manual: true, Cron: "1m", Shell: "x"}, "manual"},
		{"no schedule names manual", store.JobSpec{Name: "a", Shell: "x"}, "manual (no schedule"},
		{"run as uid 2^32", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "4294967296"}, "run_as: \"4294967296\" is not USER or USER:GROUP: user id 4294967296 is out of range"},
		{"run as uid 2^32+1", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "4294967297"}, "user id 4294967297 is out of range"},
		{"run as uid -1", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "-1"}, "run_as"},
		{"run as uid 2^63", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "9223372036854775808"}, "user id 9223372036854775808 is out of range"},
		{"run as gid 2^32", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "65534:4294967296"}, "group id 4294967296 is out of range"},
		{"run as gid 2^32+1", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "65534:4294967297"}, "group id 4294967297 is out of range"},
		{"run as gid -1", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "65534:-1"}, "run_as"},
		{"run as gid 2^63", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "65534:9223372036854775808"}, "group id 9223372036854775808 is out of range"},
		{"run as uid 4294967294", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", RunAs: "4294967294:0"}, ""},
		{"nodes all", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: "all"}, ""},
		{"nodes selector", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: "role=db,zone in (eu,us)"}, ""},
		{"nodes bad", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Nodes: "role=db zone=eu"}, "nodes: col 9: want ',' between terms"},
		{"alert after a second", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", AlertAfterSeconds: 1}, "alert_after"},
		{"alert after a day", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", AlertAfterSeconds: 86400}, ""},
		{"bad notify target", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", Notify: []string{"ftp://x"}}, "notify[0]"},
		{"bad notify outcome", store.JobSpec{Name: "a", Cron: "1m", Shell: "x", NotifyOn: []string{"always"}}, "notify_on[0]"},
		{"too many args", store.JobSpec{Name: "a", Cron: "1m", Command: make([]string, MaxArgs+1)}, "command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			err := Validate(&s, parseEvery)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate = %v, want ok", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			case tc.want == "" && s.ConcurrencyPolicy != store.Allow:
				t.Errorf("default concurrency policy = %q, want Allow", s.ConcurrencyPolicy)
			}
		})
	}
	s := store.JobSpec{Name: "z", At: &at, Shell: "x", TimeZone: "america-new_york"}
	if err := Validate(&s, nil); err != nil || s.TimeZone != "America/New_York" {
		t.Errorf("zone normalised to %q (%v), want America/New_York", s.TimeZone, err)
	}
}

func TestDueBetween(t *testing.T) {
	from := t0
	tests := []struct {
		name   string
		to     time.Duration
		period time.Duration
		want   due
	}{
		{"none", 59 * time.Second, time.Minute, due{}},
		{"one", time.Minute, time.Minute, due{n: 1, first: t0.Add(time.Minute), last: t0.Add(time.Minute)}},
		{"three", 3*time.Minute + time.Second, time.Minute, due{n: 3, first: t0.Add(time.Minute), last: t0.Add(3 * time.Minute), penult: t0.Add(2 * time.Minute)}},
	}
	for _, tc := range tests {
		for _, s := range []Schedule{every(tc.period), enumOnly{every(tc.period)}} {
			if got := dueBetween(s, from, from.Add(tc.to)); got != tc.want {
				t.Errorf("%s (%T): dueBetween = %+v, want %+v", tc.name, s, got, tc.want)
			}
		}
	}
	// A decade of seconds: exact, via Count, without enumeration.
	to := from.Add(10 * 365 * 24 * time.Hour)
	d := dueBetween(every(time.Second), from, to)
	if d.n != 10*365*24*3600 || !d.last.Equal(to) || !d.penult.Equal(to.Add(-time.Second)) {
		t.Errorf("decade: %+v", d)
	}
}
