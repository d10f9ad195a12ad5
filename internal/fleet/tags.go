package fleet

import (
	"cmp"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// Tag key prefixes. Both spell the same tags; the second makes almanac a
// drop-in for resources already tagged for ProsperOps Scheduler.
const (
	PrefixAlmanac    = "almanac-schedule-"
	PrefixProsperOps = "prosperops-schedule-"
)

// Field is one schedule setting carried by a tag.
type Field string

// The schedule fields and their tag suffixes (the part after the prefix).
const (
	FieldStart     Field = "start"
	FieldStop      Field = "stop"
	FieldTimezone  Field = "timezone"
	FieldNotify    Field = "notify"
	FieldHibernate Field = "stop-hibernate"
)

// fieldSuffixes maps each accepted key suffix to its field, canonical names
// and aliases alike.
var fieldSuffixes = map[string]Field{
	"start":               FieldStart,
	"power-on":            FieldStart,
	"stop":                FieldStop,
	"power-off":           FieldStop,
	"timezone":            FieldTimezone,
	"notify":              FieldNotify,
	"stop-hibernate":      FieldHibernate,
	"power-off-hibernate": FieldHibernate,
}

// ParseKey reports which schedule field a tag key sets. Keys are matched
// exactly (lower case), with either prefix and any alias.
func ParseKey(key string) (Field, bool) {
	var rest string
	switch {
	case strings.HasPrefix(key, PrefixAlmanac):
		rest = key[len(PrefixAlmanac):]
	case strings.HasPrefix(key, PrefixProsperOps):
		rest = key[len(PrefixProsperOps):]
	default:
		return "", false
	}
	f, ok := fieldSuffixes[rest]
	return f, ok
}

// IsScheduleKey reports whether key is one of the schedule tags.
func IsScheduleKey(key string) bool {
	_, ok := ParseKey(key)
	return ok
}

// Finding is one validation error or warning, naming the tag it concerns.
type Finding struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Message string `json:"message"`
}

// Validation is the outcome of validating one resource's tags.
type Validation struct {
	// Scheduled is true when the resource has a valid start and/or stop
	// schedule, a valid time zone and no validation error. Unscheduled
	// resources are left alone.
	Scheduled bool
	// Errors prevent any action; Warnings do not.
	Errors   []Finding
	Warnings []Finding
	// Start and Stop are the parsed schedules (nil when absent or invalid),
	// read in Zone.
	Start, Stop *weekly.Events
	Zone        *time.Location
	// Notify is the notification address when it is valid.
	Notify string
	// Hibernate is true when stops should hibernate: the tag is true and the
	// resource supports hibernation.
	Hibernate bool
}

// Actionable reports whether the scheduler may act on the resource: it is
// scheduled, which no validation error allows.
func (v *Validation) Actionable() bool { return v.Scheduled && len(v.Errors) == 0 }

// NextStart returns the first start instant strictly after t, or false when the
// resource will not be started (not actionable, or no start schedule).
func (v *Validation) NextStart(t time.Time) (time.Time, bool) {
	if !v.Actionable() || v.Start == nil {
		return time.Time{}, false
	}
	return v.Start.Next(t), true
}

// NextStop is NextStart for the stop schedule.
func (v *Validation) NextStop(t time.Time) (time.Time, bool) {
	if !v.Actionable() || v.Stop == nil {
		return time.Time{}, false
	}
	return v.Stop.Next(t), true
}

// tagValue is the winning key and value for one field.
type tagValue struct {
	key, value string
	present    bool
}

// Validate applies the tag rules to a resource's tags:
//
//   - A key with an empty value counts as absent.
//   - With neither a start nor a stop tag the resource is unscheduled and
//     nothing else is checked.
//   - Errors (no action is taken): a start or stop value not in the weekly
//     event syntax (either one blocks both), a missing or invalid time zone,
//     a start and a stop at the same day and time, and a stop-hibernate value
//     other than true or false on a resource that supports hibernation.
//   - Warnings (actions proceed): an invalid notify address, and hibernation
//     enabled on a resource that does not support it.
//
// Only a scheduled resource (valid start and/or stop, valid zone) has its
// notify and stop-hibernate tags checked. Messages name the key the user
// wrote. Two keys that set the same start, stop or timezone field (say
// "…-start" and "…-power-on") with different values make that field invalid;
// for notify and stop-hibernate the almanac prefix and then the canonical name
// win.
func Validate(tags map[string]string, hibernationSupported bool) Validation {
	var v Validation
	fields, conflicts := collectFields(tags)
	start, stop, zone := fields[FieldStart], fields[FieldStop], fields[FieldTimezone]
	if !start.present && !stop.present {
		return v
	}
	errorf := func(tv tagValue, format string, a ...any) {
		v.Errors = append(v.Errors, Finding{Key: tv.key, Value: tv.value, Message: fmt.Sprintf(format, a...)})
	}
	warnf := func(tv tagValue, format string, a ...any) {
		v.Warnings = append(v.Warnings, Finding{Key: tv.key, Value: tv.value, Message: fmt.Sprintf(format, a...)})
	}

	// Rule 2: the zone, needed to read either schedule.
	if other, ok := conflicts[FieldTimezone]; ok {
		errorf(zone, "%s is an invalid time zone: %s (%s is also set, to %s)", zone.key, zone.value, other.key, other.value)
	} else if zone.present {
		loc, err := calendar.LoadZone(zone.value)
		if err != nil {
			var uz *calendar.UnknownZoneError
			if errors.As(err, &uz) && uz.Suggestion != "" {
				errorf(zone, "%s is an invalid time zone: %s (did you mean %s?)", zone.key, zone.value, uz.Suggestion)
			} else {
				errorf(zone, "%s is an invalid time zone: %s", zone.key, zone.value)
			}
		} else {
			v.Zone = loc
		}
	} else {
		key := prefixOf(start, stop) + string(FieldTimezone)
		errorf(tagValue{key: key}, "%s is missing", key)
	}

	// Rule 1: both schedules must be in the syntax.
	parse := func(f Field, tv tagValue) *weekly.Events {
		if !tv.present {
			return nil
		}
		if other, ok := conflicts[f]; ok {
			errorf(tv, "%s is an invalid schedule: %s (%s is also set, to %s)", tv.key, tv.value, other.key, other.value)
			return nil
		}
		loc := v.Zone
		if loc == nil {
			loc = time.UTC // checked for syntax only; the zone error blocks actions
		}
		ev, err := weekly.ParseEvents(tv.value, loc)
		if err != nil {
			errorf(tv, "%s is an invalid schedule: %s (%s)", tv.key, tv.value, strings.TrimPrefix(err.Error(), "weekly: "))
			return nil
		}
		return ev
	}
	v.Start, v.Stop = parse(FieldStart, start), parse(FieldStop, stop)
	if v.Zone == nil {
		v.Start, v.Stop = nil, nil
	}
	if v.Zone == nil || (v.Start == nil && v.Stop == nil) {
		return v
	}
	// The resource has a schedule; the checks below may still find errors,
	// and any error prevents scheduling (the end of this function).

	// Rule 3: a start and a stop at the same day and time.
	if v.Start != nil && v.Stop != nil {
		if same := intersect(v.Start.Times(), v.Stop.Times()); len(same) > 0 {
			names := make([]string, len(same))
			for i, m := range same {
				names[i] = weekly.EventString(m)
			}
			errorf(stop, "%s and %s have the same time value: %s", start.key, stop.key, strings.Join(names, ", "))
		}
	}

	// Rule 4 and the hibernation warning.
	if hib := fields[FieldHibernate]; hib.present {
		switch strings.ToLower(hib.value) {
		case "true":
			if hibernationSupported {
				v.Hibernate = true
			} else {
				warnf(hib, "%s is enabled but instance does not support hibernation", hib.key)
			}
		case "false":
		default:
			if hibernationSupported {
				errorf(hib, "%s is an invalid value (want true or false): %s", hib.key, hib.value)
			}
		}
	}

	// The notify warning.
	if n := fields[FieldNotify]; n.present {
		if validEmail(n.value) {
			v.Notify = n.value
		} else {
			warnf(n, "%s is an invalid email address: %s", n.key, n.value)
		}
	}
	// Any validation error prevents scheduling: the resource is reported
	// with its errors and the valid parts, and no action is taken.
	v.Scheduled = len(v.Errors) == 0
	return v
}

// collectFields picks, for each field, the tag that sets it. When several keys
// set one field, the almanac prefix wins over the ProsperOps one and the
// canonical name over an alias; a differing value is returned as a conflict.
func collectFields(tags map[string]string) (map[Field]tagValue, map[Field]tagValue) {
	keys := make([]string, 0, len(tags))
	for k, val := range tags {
		if val != "" && IsScheduleKey(k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(keyRank(a), keyRank(b)), cmp.Compare(a, b))
	})
	fields := make(map[Field]tagValue, len(keys))
	var conflicts map[Field]tagValue
	for _, k := range keys {
		f, _ := ParseKey(k)
		tv := tagValue{key: k, value: tags[k], present: true}
		prev, ok := fields[f]
		if !ok {
			fields[f] = tv
			continue
		}
		if prev.value != tv.value {
			if conflicts == nil {
				conflicts = make(map[Field]tagValue)
			}
			if _, seen := conflicts[f]; !seen {
				conflicts[f] = tv
			}
		}
	}
	return fields, conflicts
}

// keyRank orders keys for one field: almanac prefix first, canonical suffix
// before alias.
func keyRank(k string) int {
	r := 0
	if strings.HasPrefix(k, PrefixProsperOps) {
		r += 2
	}
	suffix := k[strings.Index(k, "-schedule-")+len("-schedule-"):]
	if fieldSuffixes[suffix] != Field(suffix) {
		r++
	}
	return r
}

// prefixOf returns the prefix the resource's schedule tags use, so a missing
// zone is reported under the spelling the user chose.
func prefixOf(tvs ...tagValue) string {
	for _, tv := range tvs {
		if tv.present && strings.HasPrefix(tv.key, PrefixProsperOps) {
			return PrefixProsperOps
		}
		if tv.present {
			return PrefixAlmanac
		}
	}
	return PrefixAlmanac
}

// intersect returns the values present in both sorted slices.
func intersect(a, b []int) []int {
	var out []int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// validEmail accepts a bare address "local@domain.tld": it must parse as an
// RFC 5322 address with no display name or angle brackets, and its domain
// must have at least two labels.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.Contains(domain, "..") || strings.HasPrefix(domain, "[") {
		return false
	}
	return true
}
