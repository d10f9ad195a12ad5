package job

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/store"
)

// parseKubernetes compiles a cron expression in the Kubernetes dialect (a
// CronJob's schedule, read by robfig/cron's rules). The dialect has no H,
// so no hash key is needed and the schedule depends only on the expression
// and the zone.
func parseKubernetes(expr string, loc *time.Location) (Schedule, error) {
	s, err := cron.Parse(expr, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// checkKubernetesZone applies Kubernetes' rule that a schedule may not name
// a zone with TZ= or CRON_TZ= when the time zone is given separately.
func checkKubernetesZone(spec *store.JobSpec) error {
	if spec.TimeZone != "" && (strings.HasPrefix(spec.Cron, "TZ=") || strings.HasPrefix(spec.Cron, "CRON_TZ=")) {
		return fmt.Errorf("cannot use both time_zone and TZ or CRON_TZ in a kubernetes-dialect cron expression (Kubernetes refuses it too)")
	}
	return nil
}

// compileSchedule compiles the schedule of a validated repeating spec by
// its dialect: on_calendar events, a Kubernetes cron expression, or an
// almanac cron expression through parse.
func compileSchedule(spec store.JobSpec, parse ParseFunc, loc *time.Location) (Schedule, error) {
	switch {
	case len(spec.OnCalendar) > 0:
		s, err := parseCalendars(spec.OnCalendar, loc)
		if err != nil {
			return nil, fmt.Errorf("job %q: on_calendar: %w", spec.Name, err)
		}
		return s, nil
	case spec.CronDialect == DialectKubernetes:
		s, err := parseKubernetes(spec.Cron, loc)
		if err != nil {
			return nil, fmt.Errorf("job %q: cron: %w", spec.Name, err)
		}
		return s, nil
	}
	if parse == nil {
		return nil, fmt.Errorf("no cron parser configured")
	}
	s, err := parse(spec.Name, spec.Cron, loc)
	if err != nil {
		return nil, fmt.Errorf("job %q: cron: %w", spec.Name, err)
	}
	return s, nil
}

// RandomizedDelay returns the fixed offset a job's fires are delayed by: a
// hash of the job's name mapped into [0, RandomizedDelaySeconds), in whole
// milliseconds, so it is the same on every host and every restart while
// jobs with different names spread across the window.
func RandomizedDelay(spec store.JobSpec) time.Duration {
	if spec.RandomizedDelaySeconds <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(spec.Name))
	ms := uint64(spec.RandomizedDelaySeconds) * 1000
	return time.Duration(h.Sum64()%ms) * time.Millisecond
}
