package importer

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	jobspec "github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/oncalendar"
)

// UnitSource is one unit file: the path it is reported by (whose base
// name is the unit's name, an instance's for a template) and its text,
// with the drop-ins that change it.
type UnitSource struct {
	Path string
	Data []byte
	// DropIns are the NAME.d/*.conf files that apply to the unit, in the
	// order systemd applies them (by file name, across the search path).
	// Their settings follow the unit's own: a later one overrides a
	// setting, an empty list setting (OnCalendar=, ExecStart=) resets it.
	DropIns []UnitSource
}

// ServiceLoader returns the unit a timer starts, by its unit name
// (backup.service, pg_dump@15-main.service), for the timer it was named
// by; an error when there is none.
type ServiceLoader func(timer UnitSource, name string) (UnitSource, error)

// TimerOptions say how to map timers.
type TimerOptions struct {
	// Zone is the zone OnCalendar= expressions without a zone of their
	// own are read in: the host's. Empty means UTC.
	Zone string
	// Prefix starts every job name (PREFIX-name).
	Prefix string
}

// defaultAccuracy is AccuracySec='s default.
const defaultAccuracy = time.Minute

// monotonicKeys are the [Timer] settings that count from an event rather
// than the calendar.
var monotonicKeys = map[string]bool{"OnActiveSec": true, "OnBootSec": true, "OnStartupSec": true,
	"OnUnitActiveSec": true, "OnUnitInactiveSec": true}

// timerUnit is what a timer's [Timer] section says.
type timerUnit struct {
	calendars  []string
	calLines   []int // where each calendar event is
	monotonic  []string
	monoLine   int // where the first monotonic setting is
	persistent bool
	delay      time.Duration
	fixedDelay bool
	accuracy   time.Duration
	unit       string
	unitLine   int
	comments   []string
}

// Timers converts systemd timer units and the services they start to a
// manifest of jobs: one job per timer with OnCalendar= (several = a union
// of on_calendar expressions), running the service's ExecStart= as its
// User= with its Environment=, WorkingDirectory= and timeout. A timer that
// only counts from boot or activation (OnBootSec=, OnUnitActiveSec= …) is
// reported as not importable; a unit file that cannot be read at all (a
// NUL byte, not UTF-8) is reported in Result.Errors and the others are
// still imported.
func Timers(timers []UnitSource, load ServiceLoader, opts TimerOptions) (Result, error) {
	var b strings.Builder
	var res Result
	zone := opts.Zone
	if zone == "" {
		zone = "UTC"
	}
	b.WriteString("# Imported by `almanac import timer`.\n")
	fmt.Fprintf(&b, "# OnCalendar= expressions without a zone are read in %s, the zone systemd reads them in.\n", zone)
	res.Notes = append(res.Notes, fmt.Sprintf("OnCalendar= expressions without a zone are read in %s (the host's zone unless --tz says otherwise)", zone))
	taken := &names{prefix: opts.Prefix}
	for _, src := range timers {
		j, err := timerToJob(src, load, zone, taken, &res)
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
			fmt.Fprintf(&b, "\n# %s: not imported: %s\n", src.Path, oneLine(err.Error()))
			continue
		}
		if j == nil {
			fmt.Fprintf(&b, "\n# %s: not imported (see the warnings)\n", src.Path)
			continue
		}
		res.add(&b, j)
	}
	res.Manifest = b.String()
	return res, nil
}

// timerToJob maps one timer and its service: nil (after warnings) when the
// timer cannot be a job, an error when a unit file cannot be read.
func timerToJob(src UnitSource, load ServiceLoader, zone string, taken *names, res *Result) (*job, error) {
	u, err := parseUnitSource(src)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, u.warnings...)
	warn := u.warner(res)
	name := path.Base(src.Path)
	stem := strings.TrimSuffix(name, ".timer")
	if strings.HasSuffix(stem, "@") {
		warn(1, "%s is a template: it needs an instance name (NAME@INSTANCE.timer); not imported", name)
		return nil, nil
	}
	t := readTimer(u, name, warn)
	loc, err := calendar.LoadZone(zone)
	if err != nil {
		return nil, err
	}
	t.calendars = validCalendars(t, loc, warn)
	if len(t.calendars) == 0 {
		if len(t.monotonic) > 0 {
			warn(t.monoLine, "a monotonic timer (%s) counts from boot or from the unit's activation, not the calendar; almanac has no such trigger, so it is not importable", strings.Join(t.monotonic, ", "))
		} else {
			warn(1, "no OnCalendar=; nothing to import")
		}
		return nil, nil
	}
	if len(t.monotonic) > 0 {
		warn(t.monoLine, "%s: the monotonic part of this timer is not importable; only its OnCalendar= is", strings.Join(t.monotonic, ", "))
	}
	service := t.unit
	if service == "" {
		service = stem + ".service"
	}
	if typ := path.Ext(service); typ != ".service" {
		warn(t.unitLine, "Unit=%s: a %s unit is not a command: systemd starts it (and, for a target, the units it wants) with no result to report, so almanac could not run it or tell whether it failed; import the timers or services it stands for instead; not imported", service, strings.TrimPrefix(typ, "."))
		return nil, nil
	}
	svcSrc, err := load(src, service)
	if err != nil {
		warn(1, "the service it starts: %v; not imported", err)
		return nil, nil
	}
	svcUnit, err := parseUnitSource(svcSrc)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, svcUnit.warnings...)
	svc, ok := readService(svcUnit, service, svcUnit.warner(res))
	if !ok {
		return nil, nil
	}
	j := &job{name: taken.make(stem)}
	j.comments = append(j.comments, fmt.Sprintf("%s, starting %s", src.Path, svcSrc.Path))
	for _, d := range append(append([]UnitSource{}, src.DropIns...), svcSrc.DropIns...) {
		j.comments = append(j.comments, "with the drop-in "+d.Path)
	}
	j.comments = append(j.comments, t.comments...)
	j.comments = append(j.comments, svc.comments...)
	if len(t.calendars) == 1 {
		j.set("on_calendar", quote(t.calendars[0]))
	} else {
		j.set("on_calendar", quoteList(t.calendars))
	}
	j.set("time_zone", quote(zone))
	svc.apply(j)
	if t.delay > 0 {
		if d := wholeSeconds(t.delay); d <= jobspec.MaxDurationSeconds {
			j.set("randomized_delay", itoa(d))
		} else {
			warn(1, "RandomizedDelaySec= is over a job's limit of %d seconds; not imported", jobspec.MaxDurationSeconds)
		}
	}
	if !t.persistent {
		// Without Persistent=, systemd does not start a run the machine
		// was off for: a run later than the timer's accuracy does not
		// happen.
		j.set("starting_deadline_seconds", itoa(min(max(1, wholeSeconds(t.accuracy)), jobspec.MaxDurationSeconds)))
	}
	// systemd does not start a service that is still running.
	j.set("concurrency_policy", quote("Forbid"))
	return j, nil
}

// readTimer collects the [Timer] section, warning about what does not map.
func readTimer(u *unitFile, unitName string, warn func(int, string, ...any)) timerUnit {
	t := timerUnit{accuracy: defaultAccuracy}
	for _, e := range u.entries {
		if e.section == "Unit" {
			if e.key == "Description" {
				t.comments = append(t.comments, "Description: "+specifiersOrAsIs(e.value, unitName))
			}
			continue
		}
		if e.section == "Install" {
			continue
		}
		if e.section != "Timer" {
			warn(e.line, "[%s] is not a timer section; ignored", e.section)
			continue
		}
		span := func() (time.Duration, bool) {
			d, finite, err := parseTimespan(e.value)
			if err != nil {
				warn(e.line, "%s=%s: %v; ignored", e.key, e.value, err)
				return 0, false
			}
			return d, finite
		}
		switch {
		case e.key == "OnCalendar":
			if e.value == "" {
				t.calendars, t.calLines = nil, nil // an empty assignment resets the list
			} else {
				t.calendars, t.calLines = append(t.calendars, e.value), append(t.calLines, e.line)
			}
		case monotonicKeys[e.key]:
			if e.value == "" {
				t.monotonic = nil
			} else {
				if len(t.monotonic) == 0 {
					t.monoLine = e.line
				}
				t.monotonic = append(t.monotonic, e.key+"="+e.value)
			}
		case e.key == "Persistent":
			t.persistent = unitBool(e.value, warn, e)
		case e.key == "FixedRandomDelay":
			t.fixedDelay = unitBool(e.value, warn, e)
		case e.key == "RandomizedDelaySec":
			if d, ok := span(); ok {
				t.delay = d
			}
		case e.key == "AccuracySec":
			if d, ok := span(); ok {
				t.accuracy = d
				t.comments = append(t.comments, "AccuracySec="+e.value+": systemd may fire up to that late; almanac fires on time")
			}
		case e.key == "Unit":
			t.unit, t.unitLine = e.value, e.line
		case e.key == "RemainAfterElapse":
		default:
			warn(e.line, "%s= has no almanac equivalent; ignored", e.key)
			t.comments = append(t.comments, "not imported: "+e.key+"="+e.value)
		}
	}
	if t.delay > 0 && !t.fixedDelay {
		t.comments = append(t.comments, "RandomizedDelaySec: systemd draws a new delay each time (unless FixedRandomDelay=yes); almanac keeps one fixed delay per job")
	}
	if t.persistent {
		t.comments = append(t.comments, "Persistent=true: a run missed while the daemon was down runs when it starts (no starting deadline)")
	}
	return t
}

// unitBool reads a systemd boolean (1/yes/true/on, 0/no/false/off).
func unitBool(v string, warn func(int, string, ...any), e unitEntry) bool {
	switch strings.ToLower(v) {
	case "1", "yes", "y", "true", "t", "on":
		return true
	case "0", "no", "n", "false", "f", "off":
		return false
	}
	warn(e.line, "%s=%s is not a boolean; read as false", e.key, v)
	return false
}

// validCalendars returns the timer's OnCalendar= events that parse, at most
// as many as a job holds; systemd likewise ignores one it cannot parse.
func validCalendars(t timerUnit, loc *time.Location, warn func(int, string, ...any)) []string {
	var ok []string
	for i, e := range t.calendars {
		if len(ok) == jobspec.MaxCalendarEvents {
			warn(t.calLines[i], "more than %d OnCalendar= events; the rest are not imported", jobspec.MaxCalendarEvents)
			break
		}
		if len(e) > 1024 {
			warn(t.calLines[i], "OnCalendar= is %d bytes long; ignored", len(e))
			continue
		}
		if _, err := oncalendar.Parse(e, loc); err != nil {
			warn(t.calLines[i], "OnCalendar=%s: %v; ignored, as systemd ignores it", e, err)
			continue
		}
		ok = append(ok, e)
	}
	return ok
}
