package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/fleet"
)

func init() {
	register("tags", "validate a managed resource's schedule tags offline", runTags)
}

// tagsJSON is the --json output of `almanac tags`. Errors and warnings are the
// messages as strings; each message already names the key and value.
type tagsJSON struct {
	Scheduled bool       `json:"scheduled"`
	Errors    []string   `json:"errors"`
	Warnings  []string   `json:"warnings"`
	NextStart *time.Time `json:"next_start"`
	NextStop  *time.Time `json:"next_stop"`
}

func runTags(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("tags")
	at := fs.String("at", "", "validate as of this RFC 3339 instant (default now)")
	hib := fs.Bool("hibernation-supported", false, "the resource supports hibernation")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("tags: no tags given (want KEY=VALUE...)")
	}
	tags := make(map[string]string, len(pos))
	for _, kv := range pos {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("tags: %q is not KEY=VALUE", kv)
		}
		if k == "" {
			return usagef("tags: %q has an empty key", kv)
		}
		if _, dup := tags[k]; dup {
			return usagef("tags: key %q given twice", k)
		}
		tags[k] = v
	}
	now := e.now()
	if *at != "" {
		now, err = time.Parse(time.RFC3339, *at)
		if err != nil {
			return usagef("tags: --at %q is not an RFC 3339 time (like 2024-06-01T09:00:00Z)", *at)
		}
	}

	v := fleet.Validate(tags, *hib)
	out := tagsJSON{Scheduled: v.Scheduled, Errors: []string{}, Warnings: []string{}}
	for _, f := range v.Errors {
		out.Errors = append(out.Errors, f.Message)
	}
	for _, f := range v.Warnings {
		out.Warnings = append(out.Warnings, f.Message)
	}
	if t, ok := v.NextStart(now); ok {
		t = t.In(v.Zone)
		out.NextStart = &t
	}
	if t, ok := v.NextStop(now); ok {
		t = t.In(v.Zone)
		out.NextStop = &t
	}

	if *asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	line := func(label, format string, a ...any) {
		fmt.Fprintf(e.stdout, "%-11s %s\n", label+":", fmt.Sprintf(format, a...))
	}
	switch {
	case len(v.Errors) > 0:
		line("scheduled", "no: the errors below prevent scheduling")
	case !v.Scheduled:
		line("scheduled", "no")
	default:
		line("scheduled", "yes")
	}
	if v.Zone != nil {
		line("time zone", "%s", v.Zone)
	}
	if v.Start != nil {
		line("start", "%s", v.Start)
	}
	if v.Stop != nil {
		if v.Hibernate {
			line("stop", "%s (hibernate)", v.Stop)
		} else {
			line("stop", "%s", v.Stop)
		}
	}
	if v.Notify != "" {
		line("notify", "%s", v.Notify)
	}
	for _, m := range out.Errors {
		line("error", "%s", m)
	}
	for _, m := range out.Warnings {
		line("warning", "%s", m)
	}
	for _, m := range ignoredKeys(tags) {
		line("ignored", "%s", m)
	}
	if out.NextStart != nil {
		line("next start", "%s", out.NextStart.Format(time.RFC3339))
	}
	if out.NextStop != nil {
		line("next stop", "%s", out.NextStop.Format(time.RFC3339))
	}
	return nil
}

// ignoredKeys explains the keys that look like schedule tags but are not
// one, so are ignored (fleet.md): a misspelt suffix or a key not in lower
// case. Only the text output shows them; the JSON stays as documented.
func ignoredKeys(tags map[string]string) []string {
	var out []string
	for k := range tags {
		lower := strings.ToLower(k)
		var prefix string
		for _, p := range []string{fleet.PrefixAlmanac, fleet.PrefixProsperOps} {
			if strings.HasPrefix(lower, p) {
				prefix = p
			}
		}
		if prefix == "" || fleet.IsScheduleKey(k) {
			continue
		}
		switch {
		case fleet.IsScheduleKey(lower):
			out = append(out, fmt.Sprintf("%s is not a schedule key: keys are lower case (%s)", k, lower))
		case nearestScheduleKey(prefix, lower[len(prefix):]) != "":
			out = append(out, fmt.Sprintf("%s is not a schedule key (did you mean %s?)", k, nearestScheduleKey(prefix, lower[len(prefix):])))
		default:
			out = append(out, fmt.Sprintf("%s is not a schedule key", k))
		}
	}
	sort.Strings(out)
	return out
}

// scheduleSuffixes are the key suffixes fleet.ParseKey accepts.
var scheduleSuffixes = []string{"start", "power-on", "stop", "power-off", "timezone", "notify", "stop-hibernate", "power-off-hibernate"}

// nearestScheduleKey returns prefix plus the accepted suffix within two
// edits of suffix, or "" when there is none.
func nearestScheduleKey(prefix, suffix string) string {
	best, bestD := "", 3
	for _, s := range scheduleSuffixes {
		if d := editDistance(suffix, s); d < bestD {
			best, bestD = prefix+s, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
