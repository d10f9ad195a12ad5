package cron

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

var propertyZones = []string{
	"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
	"America/Sao_Paulo", "Pacific/Apia", "Asia/Kolkata", "America/Santiago",
	"Africa/Casablanca", "Antarctica/Troll", "Etc/GMT+5",
}

// TestNextPrevCountMatchOracle checks random specs in several zones against
// the brute-force oracle, around random instants and around DST transitions.
func TestNextPrevCountMatchOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	opts := [][]Option{
		nil,
		{WithDSTGap(calendar.GapSkip)},
		{WithDSTRepeat(calendar.RepeatTwice)},
	}
	for i := 0; i < n; i++ {
		zone := propertyZones[r.IntN(len(propertyZones))]
		loc, err := calendar.LoadZone(zone)
		if err != nil {
			t.Fatal(err)
		}
		expr := randomExpr(r, r.IntN(8) == 0)
		o := append([]Option{WithLocation(loc)}, opts[r.IntN(len(opts))]...)
		s, err := Parse(expr, o...)
		if err != nil {
			continue // random specs may never fire or have an oversized step
		}
		// A window around a random instant, and one around a transition.
		center := time.Date(1990+r.IntN(60), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), 0, 0, time.UTC).Unix()
		if r.IntN(2) == 0 {
			if _, end := time.Unix(center, 0).In(loc).ZoneBounds(); !end.IsZero() {
				center = end.Unix()
			}
		}
		span := int64(2 * secondsPerDay)
		if s.perDay < 30 && !s.hasSec {
			span = 70 * secondsPerDay
		}
		q0, q1 := center-span/2, center+span/2
		var queries []int64
		for k := 0; k < 40; k++ {
			queries = append(queries, q0+r.Int64N(q1-q0+1))
		}
		queries = append(queries, center-1, center, center+1, center-3600, center+3600)
		checkAgainstOracle(t, s, q0, q1, queries)
	}
}

// TestNextSequenceConsistent walks Next repeatedly from far-apart instants and
// checks Prev and Count agree with the walk, for rare and dense specs.
func TestNextSequenceConsistent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		zone := propertyZones[r.IntN(len(propertyZones))]
		loc, _ := calendar.LoadZone(zone)
		s, err := Parse(randomExpr(r, false), WithLocation(loc))
		if err != nil {
			continue
		}
		t0 := time.Date(1900+r.IntN(300), 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(365*24*3600)) * time.Second)
		cur := t0
		var seq []time.Time
		for k := 0; k < 30; k++ {
			nx := s.Next(cur)
			if !nx.After(cur) {
				t.Fatalf("%q in %s: Next(%s) = %s is not after", s, zone, cur, nx)
			}
			if k > 0 {
				if p := s.Prev(nx); !p.Equal(seq[k-1]) {
					t.Fatalf("%q in %s: Prev(%s) = %s, want %s", s, zone, nx, p, seq[k-1])
				}
			}
			seq = append(seq, nx)
			cur = nx
		}
		if got := s.Count(t0, seq[len(seq)-1]); got != int64(len(seq)) {
			t.Fatalf("%q in %s: Count(%s, %s] = %d, want %d", s, zone, t0, seq[len(seq)-1], got, len(seq))
		}
		if got := s.Count(seq[0], seq[len(seq)-1].Add(-time.Nanosecond)); got != int64(len(seq)-2) {
			t.Fatalf("%q in %s: Count(first, last) = %d, want %d", s, zone, got, len(seq)-2)
		}
	}
}
