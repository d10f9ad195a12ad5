package puppetsched

import (
	"fmt"
	"sort"
	"time"
)

// Window is what a schedule needs from a weekly calendar of maintenance
// windows (almanac's windows extension): whether an instant is inside a
// window, and when the calendar next opens.
type Window interface {
	// Contains reports whether t is inside a window.
	Contains(t time.Time) bool
	// NextOpen returns the first instant >= t that is inside a window, or
	// false if there is none (an empty calendar).
	NextOpen(t time.Time) (time.Time, bool)
}

// WindowSpec is one entry of the windows attribute, as the manifest gives it.
// Day names and the time are checked by the [WindowFunc].
type WindowSpec struct {
	Days          []string // day names, e.g. "Mon" or "saturday"
	StartTime     string   // "HH:MM", 24-hour
	LengthMinutes int64
}

// WindowFunc builds the weekly calendar for a schedule's windows, reading
// wall-clock times in loc. Its error message is reported as the windows
// attribute's failure.
type WindowFunc func(specs []WindowSpec, loc *time.Location) (Window, error)

// parseWindows checks the shape of the windows attribute: an Array of Hashes
// (a single Hash is taken as a list of one) with exactly the keys days,
// start_time and length_minutes.
func parseWindows(v any) ([]WindowSpec, string) {
	var list []any
	switch x := v.(type) {
	case map[string]any:
		list = []any{x}
	case []any:
		list = x
	default:
		return nil, fmt.Sprintf("expected an Array of Hashes, got %s", rubyInspect(v))
	}
	specs := make([]WindowSpec, 0, len(list))
	for i, e := range list {
		h, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("window %d: expected a Hash, got %s", i+1, rubyInspect(e))
		}
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "days", "start_time", "length_minutes":
			default:
				return nil, fmt.Sprintf("window %d: unknown key '%s' (expected days, start_time, length_minutes)", i+1, k)
			}
		}
		var spec WindowSpec
		switch d := h["days"].(type) {
		case nil:
			return nil, fmt.Sprintf("window %d: missing days", i+1)
		case string:
			spec.Days = []string{d}
		case []any:
			if len(d) == 0 {
				return nil, fmt.Sprintf("window %d: days is empty", i+1)
			}
			for _, x := range d {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Sprintf("window %d: days: expected day names, got %s", i+1, rubyInspect(x))
				}
				spec.Days = append(spec.Days, s)
			}
		default:
			return nil, fmt.Sprintf("window %d: days: expected day names, got %s", i+1, rubyInspect(d))
		}
		switch st := h["start_time"].(type) {
		case nil:
			return nil, fmt.Sprintf("window %d: missing start_time", i+1)
		case string:
			spec.StartTime = st
		default:
			return nil, fmt.Sprintf("window %d: start_time: expected a String 'HH:MM', got %s", i+1, rubyInspect(st))
		}
		lm, ok := h["length_minutes"]
		if !ok || lm == nil {
			return nil, fmt.Sprintf("window %d: missing length_minutes", i+1)
		}
		n, ok := asInt(lm)
		if !ok {
			return nil, fmt.Sprintf("window %d: length_minutes: expected an Integer, got %s", i+1, rubyInspect(lm))
		}
		if n < 1 {
			return nil, fmt.Sprintf("window %d: length_minutes: must be at least 1, got %d", i+1, n)
		}
		spec.LengthMinutes = n
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		return nil, "no windows: the schedule could never match"
	}
	return specs, ""
}
