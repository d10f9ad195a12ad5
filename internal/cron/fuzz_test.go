package cron

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// FuzzParse checks that Parse never panics, that every error is a
// *ParseError, and that for an accepted spec Next returns an instant after t
// that Count agrees is the only fire in (t, Next(t)], with Prev mirroring it.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"* * * * *", "*/5 * * * *", "0 9 * * 1-5", "30 2 * * *", "0 0 29 2 *", "0 9 1-7 * 2",
		"0 0 * 2 1#5", "0 0 L * *", "0 0 LW * *", "0 0 15W * *", "0 12 * * 5L", "0 0 * * MON#2",
		"H H * * *", "H/15 H(0-5) * * *", "@daily", "@every 90m", "@every 1s", "@hourly",
		"CRON_TZ=America/New_York 30 2 * * *", "TZ=Europe/London 30 1 * * *", "TZ=Australia/Lord_Howe */15 * * * *",
		"TZ=America/Sao_Paulo 0 0 * * *", "0 30 2 * * *", "*/7 * * * * *", "0 0 31 2 *", "TZ=", "TZ=UTC",
		"CRON_TZ=UTC", "TZ=0", "TZ=TZ=TZ=", "5-2 * * * *", "* * * * L", "@every", "1,,2 * * * *", "H(5-2) * * * *",
		"0 0 ? * ?", "0 0 1 JAN-DEC SUN-SAT", "59 23 31 12 7", "0 0 29 2 1", "TZ=Pacific/Apia 0 12 * * *",
	}
	for i, s := range seeds {
		f.Add(s, int64(i)*7919*86400+1_700_000_000)
	}
	minSec := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxSec := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, expr string, sec int64) {
		s, err := Parse(expr, WithHashKey("fuzz"))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T is not a *ParseError", expr, err)
			}
			return
		}
		_ = s.Describe()
		if sec < minSec || sec > maxSec {
			sec = minSec + (sec%(maxSec-minSec)+(maxSec-minSec))%(maxSec-minSec)
		}
		at := time.Unix(sec, 0)
		next := s.Next(at)
		if next.IsZero() || !next.After(at) {
			t.Fatalf("%q: Next(%s) = %s", expr, at, next)
		}
		if n := s.Count(at, next); n != 1 {
			t.Fatalf("%q: Count(%s, %s] = %d, want 1", expr, at, next, n)
		}
		if p := s.Prev(next); p.After(at) {
			t.Fatalf("%q: Prev(Next(%s)) = %s, after the start", expr, at, p)
		}
		if p := s.Prev(next.Add(time.Second)); !p.Equal(next) {
			t.Fatalf("%q: Prev(%s+1s) = %s", expr, next, p)
		}
		if s2, err := Parse(s.String(), WithHashKey("fuzz")); err != nil || !s2.Next(at).Equal(next) {
			t.Fatalf("%q: String %q does not round-trip: %v", expr, s.String(), err)
		}
	})
}

// FuzzNext builds a random spec from a seed (in the part of the dialect the
// oracle models: every field form, L, W, #), picks a zone and an instant, and
// checks Next, Prev and Count against the brute-force oracle around it.
func FuzzNext(f *testing.F) {
	for i := 0; i < 16; i++ {
		f.Add(uint64(i)*0x9e3779b97f4a7c15, uint8(i), int64(i)*97_000_003+1_000_000_000)
	}
	minSec := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxSec := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, seed uint64, zone uint8, sec int64) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		loc, err := calendar.LoadZone(propertyZones[int(zone)%len(propertyZones)])
		if err != nil {
			t.Fatal(err)
		}
		opts := []Option{WithLocation(loc)}
		if zone&0x40 != 0 {
			opts = append(opts, WithDSTGap(calendar.GapSkip))
		}
		if zone&0x80 != 0 {
			opts = append(opts, WithDSTRepeat(calendar.RepeatTwice))
		}
		s, err := Parse(randomExpr(r, false), opts...)
		if err != nil {
			return
		}
		sec = minSec + ((sec%(maxSec-minSec))+(maxSec-minSec))%(maxSec-minSec)
		q0, q1 := sec-secondsPerDay, sec+secondsPerDay
		queries := []int64{sec, sec + 1, sec - 3600, sec + 7200, q0, q1}
		checkAgainstOracle(t, s, q0, q1, queries)
	})
}
