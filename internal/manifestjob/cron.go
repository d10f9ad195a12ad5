package manifestjob

import (
	"fmt"
	"strings"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

// This file compiles Puppet's cron entries to jobs. The mapping:
//
//	minute hour monthday month weekday  the five fields of the job's cron
//	                                    ('*' or absent or unset: '*'; arrays
//	                                    joined with ','; names as numbers)
//	special                             its macro: yearly/annually, monthly,
//	                                    weekly, daily/midnight, hourly;
//	                                    reboot cannot be mapped (an error)
//	command                             the job's shell command
//	user                                run_as
//	environment MAILTO=addr             notify mailto:addr ("" sends nothing)
//	environment other KEY=value         env
//	time_zone (almanac's own)           time_zone (default UTC)
//	ensure => absent                    no job
//
// The resource keeps its reference (Cron[title]) in every message.

// specialCron maps a cron entry's special schedule to a cron expression.
var specialCron = map[string]string{
	"yearly": "0 0 1 1 *", "annually": "0 0 1 1 *", "monthly": "0 0 1 * *",
	"weekly": "0 0 * * 0", "daily": "0 0 * * *", "midnight": "0 0 * * *", "hourly": "0 * * * *",
}

// cronFieldOrder is the order of a cron expression's fields.
var cronFieldOrder = []string{"minute", "hour", "monthday", "month", "weekday"}

// cronAsJob returns a copy of the cron resource r whose parameters are a
// job's, or nil when it makes no job (ensure => absent, or an error, which
// is added to errs).
func cronAsJob(r *catalog.Resource, errs *manifest.ErrorList) *catalog.Resource {
	p := r.Params
	if p["ensure"] == "absent" {
		return nil
	}
	fail := func(attr, format string, a ...any) *catalog.Resource {
		errs.Add(r.Pos, "Parameter %s failed on %s: %s", attr, r.Ref(), fmt.Sprintf(format, a...))
		return nil
	}
	cmd, _ := p["command"].(string)
	if cmd == "" {
		errs.Add(r.Pos, "%s: the 'command' attribute is required (a cron entry becomes a job running it)", r.Ref())
		return nil
	}
	job := map[string]any{"name": r.Title, "command": cmd}
	if n, ok := p["name"].(string); ok {
		job["name"] = n
	}
	special, _ := p["special"].(string)
	switch {
	case special == "reboot":
		return fail("special", "'reboot' cannot be mapped to an almanac job: jobs run on a schedule, not when the host boots (use a systemd unit)")
	case special != "" && special != "absent":
		job["cron"] = specialCron[special]
	default:
		fields := make([]string, len(cronFieldOrder))
		for i, f := range cronFieldOrder {
			fields[i] = "*"
			var vals []string
			for _, v := range listOf(p[f]) {
				if v != "absent" {
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				fields[i] = strings.Join(vals, ",")
			}
		}
		job["cron"] = strings.Join(fields, " ")
	}
	if u, ok := p["user"].(string); ok {
		job["run_as"] = u
	}
	if tz, ok := p["time_zone"].(string); ok {
		job["time_zone"] = tz
	}
	env := map[string]any{}
	for _, e := range listOf(p["environment"]) {
		if e == "absent" {
			continue
		}
		k, v, _ := strings.Cut(e, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		v = strings.Trim(v, `"'`)
		if k == "MAILTO" {
			for _, addr := range strings.Split(v, ",") {
				if addr = strings.TrimSpace(addr); addr != "" {
					job["notify"] = append(anyList(job["notify"]), "mailto:"+addr)
				}
			}
			continue
		}
		env[k] = v
	}
	if len(env) > 0 {
		job["env"] = env
	}
	if s, ok := p["schedule"]; ok {
		job["schedule"] = s
	}
	out := *r
	out.Params = job
	return &out
}

func listOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}
