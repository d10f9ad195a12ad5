package bench

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	robfig "github.com/robfig/cron/v3"

	"github.com/almanac-sh/almanac/internal/cron"
)

// Zones whose transitions happen at midnight (America/Santiago) or shift
// by half an hour (Australia/Lord_Howe) are left out: robfig's day loop
// misplaces days around them (it can fire on a day the expression does
// not name), which the dialect does not copy (docs/cron.md).
var kubernetesZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata"}

// TestKubernetesDialectMatchesRobfig compares almanac's kubernetes dialect
// with robfig/cron v3 (what Kubernetes runs) on fixed and random
// expressions, in several zones, from instants around DST changes.
func TestKubernetesDialectMatchesRobfig(t *testing.T) {
	fixed := []string{"0 0 */2 * 1", "30 2 * * *", "0 1 * * *", "*/15 * * * *", "0 */2 * * *", "0 0 1,15 * 5",
		"@daily", "@hourly", "@weekly", "@monthly", "@yearly", "0 9 ? * MON-FRI", "0 0 */1 * 1", "5 4 * * sun"}
	r := rand.New(rand.NewPCG(3, 5))
	var exprs []string
	exprs = append(exprs, fixed...)
	for i := 0; i < 600; i++ {
		exprs = append(exprs, randomSpec(r, true))
	}
	compared := 0
	for _, zone := range kubernetesZones {
		loc := mustZone(zone)
		for _, e := range exprs {
			rs, rerr := robfig.ParseStandard("CRON_TZ=" + zone + " " + e)
			a, aerr := cron.Parse(e, cron.WithLocation(loc), cron.WithDialect(cron.Kubernetes))
			if rerr != nil {
				if aerr == nil {
					t.Fatalf("%q: robfig refuses (%v), almanac accepts", e, rerr)
				}
				continue
			}
			if aerr != nil {
				continue // almanac refuses specs that never fire; robfig gives up after five years
			}
			starts := []time.Time{
				time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC),
				time.Date(2026, 10, 24, 12, 0, 0, 0, time.UTC), time.Date(2026, 4, 4, 12, 0, 0, 0, time.UTC),
				time.Date(2026, 9, 5, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
			}
			for _, at := range starts {
				for k := 0; k < 12; k++ {
					want := rs.Next(at)
					if want.IsZero() {
						break
					}
					got := a.Next(at)
					if !got.Equal(want) {
						t.Fatalf("%s: %q after %s: almanac %s, robfig %s", zone, e, at.In(loc), got.In(loc), want.In(loc))
					}
					compared++
					at = want
				}
			}
		}
	}
	if compared < 20000 {
		t.Fatalf("only %d comparisons", compared)
	}
}

// TestKubernetesStepIsRestriction is the case Kubernetes users hit: a
// stepped day of month ORs with the day of week.
func TestKubernetesStepIsRestriction(t *testing.T) {
	s, err := cron.Parse("0 0 */2 * 1", cron.WithDialect(cron.Kubernetes))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	var got []string
	for i := 0; i < 4; i++ {
		at = s.Next(at)
		got = append(got, at.Format("01-02"))
	}
	if strings.Join(got, " ") != "11-29 11-30 12-01 12-03" {
		t.Fatalf("fires %v", got)
	}
}
