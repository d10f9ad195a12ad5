package bench

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adhocore/gronx"
	"github.com/hashicorp/cronexpr"
	robfig "github.com/robfig/cron/v3"

	"github.com/almanac-sh/almanac/internal/cron"
)

// cronCases are the representative specs of almanac's performance targets.
var cronCases = []string{"* * * * *", "*/5 * * * *", "0 9 * * 1-5", "30 2 * * *", "0 0 29 2 *", "0 9 1-7 * 2"}

var cronFrom = time.Date(2025, 6, 18, 10, 17, 23, 0, time.UTC)

var ny = mustZone("America/New_York")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// TestCronPeersAgree checks that all four engines give the same next ten
// fire times for the benchmark cases, so the benchmarks compare equal work.
func TestCronPeersAgree(t *testing.T) {
	for _, zone := range []*time.Location{time.UTC, ny} {
		for _, e := range cronCases {
			a, err := cron.Parse(e, cron.WithLocation(zone))
			if err != nil {
				t.Fatal(err)
			}
			r, err := robfig.ParseStandard("CRON_TZ=" + zone.String() + " " + e)
			if err != nil {
				t.Fatal(err)
			}
			h := cronexpr.MustParse(e)
			ta, tr, th, tg := cronFrom.In(zone), cronFrom.In(zone), cronFrom.In(zone), cronFrom.In(zone)
			for i := 0; i < 10; i++ {
				ta, tr, th = a.Next(ta), r.Next(tr), h.Next(th)
				tg, err = gronx.NextTickAfter(e, tg, false)
				if err != nil {
					t.Fatalf("gronx %q: %v", e, err)
				}
				if !ta.Equal(tr) || !ta.Equal(th) || !ta.Equal(tg) {
					t.Fatalf("%q in %s fire %d: almanac %s robfig %s hashicorp %s gronx %s", e, zone, i, ta, tr, th, tg)
				}
			}
		}
	}
}

// randomRobfigSpec returns a 5-field spec in the part of the dialect where
// robfig/cron v3 and almanac agree: no L/W/#/H, no 7 for Sunday, and no
// "*/n" in the day fields (robfig treats "*/2" there as restricted, which
// turns on the OR rule; Vixie and almanac look at the leading '*').
func randomRobfigSpec(r *rand.Rand) string { return randomSpec(r, false) }

// randomSpec returns a random 5-field spec. With all, it covers the whole
// of robfig's standard dialect: "?", "N/step", and "*/n" in every field
// with steps up to past the field's range; without, only the forms whose
// meaning the vixie dialect shares.
func randomSpec(r *rand.Rand, all bool) string {
	field := func(lo, hi int, day bool) string {
		var items []string
		for n := 1 + r.IntN(2); n > 0; n-- {
			v := func() int { return lo + r.IntN(hi-lo+1) }
			switch k := r.IntN(12); {
			case k < 3:
				if !all {
					return "*"
				}
				items = append(items, []string{"*", "*", "?"}[k])
			case k < 5 && (all || !day):
				items = append(items, "*/"+strconv.Itoa(1+r.IntN(hi-lo+1)))
			case k < 7:
				a, b := v(), v()
				items = append(items, strconv.Itoa(min(a, b))+"-"+strconv.Itoa(max(a, b)))
			case k < 8:
				a, b := v(), v()
				items = append(items, strconv.Itoa(min(a, b))+"-"+strconv.Itoa(max(a, b))+"/"+strconv.Itoa(1+r.IntN(hi-lo)))
			case k < 9 && all:
				items = append(items, strconv.Itoa(v())+"/"+strconv.Itoa(1+r.IntN(hi-lo)))
			default:
				items = append(items, strconv.Itoa(v()))
			}
		}
		return strings.Join(items, ",")
	}
	return strings.Join([]string{field(0, 59, false), field(0, 23, false), field(1, 31, true), field(1, 12, false), field(0, 6, true)}, " ")
}

// TestCronDifferentialRobfig compares Next with robfig/cron v3 on random
// (spec, instant) pairs in UTC, where both dialects mean the same thing.
func TestCronDifferentialRobfig(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	compared := 0
	for i := 0; i < 3000; i++ {
		e := randomRobfigSpec(r)
		a, err := cron.Parse(e)
		if err != nil {
			continue // e.g. never fires; robfig would search 5 years and give up
		}
		rs, err := robfig.ParseStandard(e)
		if err != nil {
			t.Fatalf("robfig rejects %q: %v", e, err)
		}
		for k := 0; k < 20; k++ {
			at := time.Unix(946684800+r.Int64N(50*365*86400), 0).UTC()
			want := rs.Next(at)
			if want.IsZero() {
				continue // past robfig's five-year horizon
			}
			if got := a.Next(at); !got.Equal(want) {
				t.Fatalf("%q after %s: almanac %s, robfig %s", e, at, got, want)
			}
			compared++
		}
	}
	if compared < 30000 {
		t.Fatalf("only %d comparisons", compared)
	}
}

var sinkTime time.Time

// benchPeers runs Next for every case and engine in one zone.
func benchPeers(b *testing.B, zone *time.Location, fromFire bool) {
	for _, e := range cronCases {
		a, _ := cron.Parse(e, cron.WithLocation(zone))
		r, _ := robfig.ParseStandard("CRON_TZ=" + zone.String() + " " + e)
		h := cronexpr.MustParse(e)
		from := cronFrom.In(zone)
		if fromFire {
			from = a.Next(from)
		}
		b.Run("almanac/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime = a.Next(from)
			}
		})
		b.Run("robfig/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime = r.Next(from)
			}
		})
		b.Run("hashicorp/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime = h.Next(from)
			}
		})
		b.Run("gronx/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime, _ = gronx.NextTickAfter(e, from, false)
			}
		})
	}
}

func BenchmarkCronNextUTC(b *testing.B)             { benchPeers(b, time.UTC, false) }
func BenchmarkCronNextUTCFromFire(b *testing.B)     { benchPeers(b, time.UTC, true) }
func BenchmarkCronNextNewYork(b *testing.B)         { benchPeers(b, ny, false) }
func BenchmarkCronNextNewYorkFromFire(b *testing.B) { benchPeers(b, ny, true) }

// BenchmarkCronNext1000 computes 1000 consecutive fires of */5.
func BenchmarkCronNext1000(b *testing.B) {
	for _, zone := range []*time.Location{time.UTC, ny} {
		a, _ := cron.Parse("*/5 * * * *", cron.WithLocation(zone))
		r, _ := robfig.ParseStandard("CRON_TZ=" + zone.String() + " */5 * * * *")
		h := cronexpr.MustParse("*/5 * * * *")
		engines := []struct {
			name string
			next func(time.Time) time.Time
		}{
			{"almanac", a.Next}, {"robfig", r.Next}, {"hashicorp", h.Next},
			{"gronx", func(t time.Time) time.Time { n, _ := gronx.NextTickAfter("*/5 * * * *", t, false); return n }},
		}
		for _, eng := range engines {
			b.Run(eng.name+"/"+zone.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					t := cronFrom.In(zone)
					for i := 0; i < 1000; i++ {
						t = eng.next(t)
					}
					sinkTime = t
				}
			})
		}
	}
}

// BenchmarkCronParse parses a plain spec and one with a CRON_TZ prefix.
func BenchmarkCronParse(b *testing.B) {
	for _, e := range []string{"0 9 * * 1-5", "CRON_TZ=America/New_York 0 9 * * 1-5"} {
		b.Run("almanac/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cron.Parse(e); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("robfig/"+e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := robfig.ParseStandard(e); err != nil {
					b.Fatal(err)
				}
			}
		})
		if !strings.HasPrefix(e, "CRON_TZ") {
			b.Run("hashicorp/"+e, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := cronexpr.Parse(e); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
