package manifestjob

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/manifest"
)

// TestDialectAttributes: on_calendar (a string or an array), cron_dialect
// and randomized_delay reach the spec; bad values are positioned.
func TestDialectAttributes(t *testing.T) {
	set, err := FromCatalog(compile(t, `
job { 'report': on_calendar => 'Mon..Fri *-*-* 09:00', time_zone => 'Europe/Berlin', command => 'x', randomized_delay => 30 }
job { 'twice': on_calendar => ['*-*~01', 'Sat 12:00'], command => 'x' }
job { 'kube': cron => '0 0 */2 * 1', cron_dialect => 'kubernetes', command => 'x' }
job { 'by-hand': manual => true, suspend => true, command => 'x' }`), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(set.Jobs)
	for _, want := range []string{
		`{"name":"kube","cron":"0 0 */2 * 1","cron_dialect":"kubernetes","shell":"x"`,
		`{"name":"report","on_calendar":["Mon..Fri *-*-* 09:00"],"time_zone":"Europe/Berlin","randomized_delay_seconds":30,"shell":"x"`,
		`{"name":"twice","on_calendar":["*-*~01","Sat 12:00"],"shell":"x"`,
		`{"name":"by-hand","manual":true,"shell":"x","concurrency_policy":"Allow","suspend":true`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("jobs %s\ndo not contain %s", got, want)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"job { 'a': on_calendar => 'Fri..Mon', command => 'x' }", "site.pp:1:7: Job[a]: on_calendar[0]: at column 6: weekday range ends before it starts"},
		{"job { 'a': cron => '* * * * *', on_calendar => 'daily', command => 'x' }", "exactly one of 'cron', 'on_calendar' or 'at'"},
		{"job { 'a': cron => '0 0 L * *', cron_dialect => 'kubernetes', command => 'x' }", "Kubernetes"},
		{"job { 'a': cron => '* * * * *', cron_dialect => 'quartz', command => 'x' }", "cron_dialect"},
		{"job { 'a': cron => '* * * * *', manual => true, command => 'x' }", "or 'manual => true'"},
		{"job { 'a': manual => false, command => 'x' }", "exactly one of 'cron', 'on_calendar' or 'at'"},
		{"job { 'a': cron => '* * * * *', randomized_delay => 1.5, command => 'x' }", "Parameter randomized_delay failed on Job[a]: 1.5: expected a whole number of seconds"},
	} {
		_, err := fromCatalogErr(t, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}

// fromCatalogErr compiles src and converts it, returning the first error
// of compiling or converting.
func fromCatalogErr(t *testing.T, src string) (*Set, error) {
	t.Helper()
	f, err := manifest.ParseFile("site.pp", []byte(src))
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Compile(f)
	if err != nil {
		return nil, err
	}
	set, err := FromCatalog(cat, nil)
	var el manifest.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		return set, el
	}
	return set, err
}
