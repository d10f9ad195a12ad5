package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	robfig "github.com/robfig/cron/v3"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/manifestjob"
)

// TestImportedCronJobsFireAsKubernetes imports CronJobs (fixed and random
// schedules, each in several spec.timeZone zones, one YAML stream),
// compiles the manifest `almanac import cronjob` prints as the daemon
// does, and checks that every job fires when robfig/cron v3, the library
// Kubernetes' CronJob controller uses, says the CronJob would.
func TestImportedCronJobsFireAsKubernetes(t *testing.T) {
	exprs := []string{"0 0 */2 * 1", "30 2 * * *", "0 1 * * *", "*/15 * * * *", "0 0 1,15 * 5", "@daily", "0 9 ? * MON-FRI"}
	r := rand.New(rand.NewPCG(27, 2))
	for range 150 {
		exprs = append(exprs, randomSpec(r, true))
	}
	var yaml strings.Builder
	want := map[string]robfig.Schedule{}
	for _, zone := range kubernetesZones {
		for i, e := range exprs {
			rs, err := robfig.ParseStandard("CRON_TZ=" + zone + " " + e)
			if err != nil {
				continue
			}
			if _, err := cron.Parse(e, cron.WithDialect(cron.Kubernetes)); err != nil {
				continue // never fires: almanac refuses what robfig gives up on after five years
			}
			name := fmt.Sprintf("j%d-%s", i, strings.ReplaceAll(strings.ToLower(zone), "/", "-"))
			want[name] = rs
			fmt.Fprintf(&yaml, "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: %s}\nspec:\n  schedule: %q\n  timeZone: %s\n"+
				"  jobTemplate: {spec: {template: {spec: {containers: [{name: c, command: [/bin/true]}]}}}}\n", name, e, zone)
		}
	}
	res, err := importer.CronJob("cronjobs.yaml", []byte(yaml.String()), importer.CronJobOptions{})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("import: %v %q", err, res.Errors)
	}
	f, err := manifest.ParseFile("imported.pp", []byte(res.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifestjob.FromCatalog(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Jobs) != len(want) || len(want) < 400 {
		t.Fatalf("%d jobs imported of %d", len(set.Jobs), len(want))
	}
	starts := []time.Time{time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC), time.Date(2026, 10, 24, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)}
	for _, spec := range set.Jobs {
		if spec.CronDialect != "kubernetes" {
			t.Fatalf("%s: dialect %q", spec.Name, spec.CronDialect)
		}
		loc, err := calendar.LoadZone(spec.TimeZone)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cron.Parse(spec.Cron, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes))
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		for _, at := range starts {
			for range 8 {
				w := want[spec.Name].Next(at)
				if w.IsZero() {
					break
				}
				if g := got.Next(at); !g.Equal(w) {
					t.Fatalf("%s (%q in %s) after %s: imported job %s, Kubernetes %s", spec.Name, spec.Cron, spec.TimeZone, at, g, w)
				}
				at = w
			}
		}
	}
}
