package calendar

import (
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the zone database travels inside the binary
)

// UnknownZoneError reports a zone name that is neither an IANA name nor the tag
// form of one. Suggestion is the closest valid name, in the style of the input.
type UnknownZoneError struct {
	Name       string
	Suggestion string
}

func (e *UnknownZoneError) Error() string {
	if e.Suggestion != "" {
		return fmt.Sprintf("unknown time zone %q (did you mean %q?)", e.Name, e.Suggestion)
	}
	return fmt.Sprintf("unknown time zone %q", e.Name)
}

var (
	tagIndexOnce sync.Once
	tagIndex     map[string]string // tag form -> IANA name
	zoneCache    sync.Map          // IANA or tag form name -> *time.Location
)

// TagForm returns the tag spelling of an IANA zone name: lower case, with '/'
// replaced by '-' ("America/Argentina/San_Juan" -> "america-argentina-san_juan").
func TagForm(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "/", "-")
}

func buildTagIndex() {
	tagIndex = make(map[string]string, len(zoneNames))
	for _, n := range zoneNames {
		tagIndex[TagForm(n)] = n
	}
}

// ZoneNames returns every zone name of the embedded tz database, sorted.
func ZoneNames() []string {
	out := make([]string, len(zoneNames))
	copy(out, zoneNames[:])
	return out
}

// CanonicalZone returns the IANA name for name, which may be an IANA name, its
// tag form, or "" (meaning UTC).
func CanonicalZone(name string) (string, error) {
	switch name {
	case "", "UTC":
		return "UTC", nil
	case "Local":
		return "", &UnknownZoneError{Name: name, Suggestion: "UTC"}
	}
	tagIndexOnce.Do(buildTagIndex)
	if canon, ok := tagIndex[TagForm(name)]; ok {
		return canon, nil
	}
	return "", &UnknownZoneError{Name: name, Suggestion: suggestZone(name)}
}

// LoadZone returns the location for name (IANA or tag form; "" means UTC).
// Locations are cached: the tz database is read once per zone per process.
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil // most jobs name no zone
	}
	if v, ok := zoneCache.Load(name); ok {
		return v.(*time.Location), nil
	}
	canon, err := CanonicalZone(name)
	if err != nil {
		return nil, err
	}
	var loc *time.Location
	if v, ok := zoneCache.Load(canon); ok {
		loc = v.(*time.Location)
	} else {
		loc, err = time.LoadLocation(canon)
		if err != nil {
			return nil, fmt.Errorf("load time zone %q: %w", canon, err)
		}
		zoneCache.Store(canon, loc)
	}
	// The tag form is cached too, as a copy: name may be a substring of a
	// manifest or a request that the cache would keep alive. Other
	// spellings (any mix of case is accepted) are not, so the cache holds
	// at most two entries per zone whatever names callers pass.
	if name != canon && name == TagForm(canon) {
		zoneCache.Store(strings.Clone(name), loc)
	}
	return loc, nil
}

// suggestZone returns the valid zone name closest to name by edit distance,
// written in tag form when the input looks like a tag, else in IANA form.
func suggestZone(name string) string {
	tagIndexOnce.Do(buildTagIndex)
	in := TagForm(name)
	best, bestD := "", 1<<30
	for tag, canon := range tagIndex {
		d := editDistance(in, tag, bestD)
		if d < bestD || (d == bestD && canon < best) {
			best, bestD = canon, d
		}
	}
	if bestD > len(in)/2+2 {
		return ""
	}
	if name == strings.ToLower(name) {
		return TagForm(best)
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, giving up early
// (returning a value > limit) once it cannot beat limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
