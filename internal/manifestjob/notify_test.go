package manifestjob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// TestNotifyTargets: a job's notify may mix notification targets and job
// references; the targets become the spec's Notify, the references edges.
func TestNotifyTargets(t *testing.T) {
	cat := compile(t, `
job { 'dump': cron => '0 1 * * *', command => 'dump' }
job { 'backup': cron => '0 2 * * *', command => 'backup',
  notify    => ['mailto:ops@example.com', 'slack+https://hooks.slack.com/services/T/B/X'],
  notify_on => ['failure', 'recovered'],
  require   => Job['dump'] }
job { 'first': cron => '0 0 * * *', command => 'first', notify => Job['dump'] }
`)
	set, err := FromCatalog(cat, parseCron)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string][]string{}
	for _, s := range set.Jobs {
		specs[s.Name] = append(append([]string{}, s.Notify...), s.NotifyOn...)
		if s.Name == "first" && !slices.Equal(s.Before, []string{"dump"}) {
			t.Errorf("first: before %v, want the notify edge to dump", s.Before)
		}
	}
	want := []string{"mailto:ops@example.com", "slack+https://hooks.slack.com/services/T/B/X", "failure", "recovered"}
	if !slices.Equal(specs["backup"], want) {
		t.Errorf("backup notify %v, want %v", specs["backup"], want)
	}
	if len(specs["first"]) != 0 {
		t.Errorf("first got notify targets %v", specs["first"])
	}

	_, err = FromCatalog(compile(t, "job { 'x': cron => '0 2 * * *', command => 'x', notify => 'mailto:not an address', notify_on => 'sometimes' }\n"), parseCron)
	var el manifest.ErrorList
	if !errors.As(err, &el) || !strings.Contains(el.Error(), "site.pp:1:7: Job[x]: notify[0]") || !strings.Contains(el.Error(), "notify_on[0]") {
		t.Errorf("bad targets: %v", err)
	}
}
