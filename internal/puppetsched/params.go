package puppetsched

import (
	"fmt"
	"sort"
)

// Params holds a schedule's attributes exactly as a manifest gives them: each
// field is the raw value the manifest compiler produced (string, int64,
// float64, bool, []any or map[string]any), or nil when the attribute is not
// set. [New] validates and interprets them with Puppet's rules, so a value
// Puppet rejects is rejected here with Puppet's words.
type Params struct {
	Range       any // String or Array of Strings, e.g. "2 - 4" or ["22:00 - 02:00"]
	PeriodMatch any // "number" or "distance" (default "distance")
	Period      any // "hourly", "daily", "weekly", "monthly" or "never"
	Repeat      any // Integer or digit string (default 1)
	Weekday     any // String, Integer or an Array of them

	// Windows is almanac's extension: an Array of Hashes with keys "days"
	// (String or Array of day names), "start_time" ("HH:MM") and
	// "length_minutes" (Integer >= 1). The schedule matches only inside one
	// of the windows.
	Windows any
	// TimeZone is almanac's extension: the IANA name (or its tag form) of the
	// zone in which range, weekday and the period's calendar fields are read.
	// Unset means the default location given to [New].
	TimeZone any
}

// metaparams are the attributes every Puppet resource accepts. A schedule
// resource carries them through the catalog, but they do not affect matching.
var metaparams = map[string]bool{
	"name": true, "alias": true, "audit": true, "before": true, "loglevel": true,
	"noop": true, "notify": true, "require": true, "schedule": true,
	"stage": true, "subscribe": true, "tag": true,
}

// AttrError is an invalid schedule attribute. Its Error method reads as
// Puppet's message does, e.g.
//
//	Parameter range failed on Schedule[maint]: Invalid range value 'foo'
//
// A manifest compiler adds the position (file:line:col) in front.
type AttrError struct {
	Schedule string // the schedule's name (its title)
	Attr     string // the attribute, e.g. "range"
	Msg      string // Puppet's message, e.g. "Invalid range value 'foo'"
	// Unknown is set when Attr is not an attribute of the schedule type at
	// all; the message is then Puppet's "no parameter named 'x'".
	Unknown bool
}

func (e *AttrError) Error() string {
	if e.Unknown {
		if e.Schedule == "" {
			return e.Msg
		}
		return fmt.Sprintf("%s on Schedule[%s]", e.Msg, e.Schedule)
	}
	return fmt.Sprintf("Parameter %s failed on Schedule[%s]: %s", e.Attr, e.Schedule, e.Msg)
}

// FromAttrs builds Params from a resource's attribute map as the manifest
// compiler holds it (attribute name to value). Metaparameters such as tag or
// noop are ignored; a nil value means "not set", as undef does in Puppet. An
// attribute the schedule type does not have is an *AttrError with Unknown
// set (its Schedule field is the "name" attribute if present, else empty for
// the caller to fill in); when there are several, the alphabetically first
// is reported.
func FromAttrs(attrs map[string]any) (Params, error) {
	var p Params
	var unknown []string
	for k, v := range attrs {
		switch k {
		case "range":
			p.Range = v
		case "periodmatch":
			p.PeriodMatch = v
		case "period":
			p.Period = v
		case "repeat":
			p.Repeat = v
		case "weekday":
			p.Weekday = v
		case "windows":
			p.Windows = v
		case "time_zone":
			p.TimeZone = v
		default:
			if !metaparams[k] {
				unknown = append(unknown, k)
			}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		name, _ := attrs["name"].(string)
		return Params{}, &AttrError{Schedule: name, Attr: unknown[0], Msg: fmt.Sprintf("no parameter named '%s'", unknown[0]), Unknown: true}
	}
	return p, nil
}
