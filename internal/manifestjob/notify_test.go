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

func TestRebootGroups(t *testing.T) {
	set, err := FromCatalog(compile(t, `
schedule { 'weekend': range => '00:00 - 23:59', weekday => ['Sat', 'Sun'] }
reboot_group { 'workers': max_holders => 3, window => 'weekend', secret => 'long-enough', max_hold => '90m' }
reboot_group { 'default': }
`), parseCron)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.RebootGroups) != 2 {
		t.Fatalf("groups %+v", set.RebootGroups)
	}
	w := set.RebootGroups[1]
	if set.RebootGroups[0].Name == "workers" {
		w = set.RebootGroups[0]
	}
	if w.Max != 3 || w.Window != "weekend" || w.Secret != "long-enough" || w.MaxHold.Minutes() != 90 {
		t.Errorf("workers = %+v", w)
	}
	if _, ok := set.Gates["weekend"]; !ok {
		t.Error("the group's window did not become a gate")
	}
	_, err = FromCatalog(compile(t, "reboot_group { 'a b': max_holders => 0, secret => 'short' }\n"), parseCron)
	if err == nil || !strings.Contains(err.Error(), "site.pp:1:16: Reboot_group[a b]: the group name") {
		t.Errorf("bad group: %v", err)
	}
}
