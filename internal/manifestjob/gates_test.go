package manifestjob

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
)

// alwaysOpen is a named window for the tests: open at every instant.
type alwaysOpen struct{}

func (alwaysOpen) Contains(time.Time) bool                { return true }
func (alwaysOpen) NextOpen(t time.Time) (time.Time, bool) { return t, true }
func windowsNamed(names ...string) job.GateFunc {
	return func(name string) (job.Gate, bool) {
		for _, n := range names {
			if n == name {
				return alwaysOpen{}, true
			}
		}
		return nil, false
	}
}

// TestFromCatalogWindows: a job may name a named window as its gate; every
// schedule resource without a period is a gate whether a job names it or
// not, one with a period is listed as unusable with the reason, and a
// schedule resource may not take a window's name.
func TestFromCatalogWindows(t *testing.T) {
	f, err := manifest.ParseFile("site.pp", []byte(`
schedule { 'office': range => '09:00 - 17:00' }
schedule { 'daily-ish': period => daily }
job { 'backup': cron => '0 3 * * *', command => 'true', schedule => 'maintenance' }
`))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.CompileWith(catalog.Options{Schedules: func(name string) bool { return name == "maintenance" }}, f)
	if err != nil {
		t.Fatal(err)
	}
	set, err := FromCatalogWindows(cat, parseCron, windowsNamed("maintenance"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.Gates["maintenance"].(alwaysOpen); !ok {
		t.Errorf("the job's window is not among the gates: %v", set.Gates)
	}
	if _, ok := set.Gates["office"]; !ok {
		t.Errorf("the schedule no job names is not a gate: %v", set.Gates)
	}
	if why := set.Unusable["daily-ish"]; !strings.Contains(why, "period => daily") {
		t.Errorf("Unusable[daily-ish] = %q", why)
	}
	var g Gates
	g.StoreSet(set)
	if got := strings.Join(g.Names(), ","); got != "maintenance,office" {
		t.Errorf("Names = %s", got)
	}
	if _, ok := g.Unusable("daily-ish"); !ok {
		t.Error("Gates.Unusable misses the periodic schedule")
	}

	t.Run("without the window", func(t *testing.T) {
		_, err := FromCatalogWindows(cat, parseCron, windowsNamed("other"))
		var el manifest.ErrorList
		if !errors.As(err, &el) || !strings.Contains(err.Error(), `no schedule or named window is named "maintenance"`) ||
			!strings.Contains(err.Error(), "site.pp:4:") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a schedule takes a window's name", func(t *testing.T) {
		_, err := FromCatalogWindows(cat, parseCron, windowsNamed("maintenance", "office"))
		if err == nil || !strings.Contains(err.Error(), "site.pp:2:") || !strings.Contains(err.Error(), `named window (--windows) is already called "office"`) {
			t.Fatalf("err = %v", err)
		}
	})
}
