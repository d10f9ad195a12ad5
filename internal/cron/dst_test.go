package cron

import (
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// TestDSTEveryZoneTransition checks Next, Prev and Count against the oracle
// around every transition of every zone in the tz database from 1970 to
// 2040: a fixed-time job at a wall time the transition skips or repeats
// (under every policy combination), an hourly job and a */30 job.
func TestDSTEveryZoneTransition(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole tz database")
	}
	end := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	policies := [][]Option{
		nil,
		{WithDSTGap(calendar.GapSkip), WithDSTRepeat(calendar.RepeatTwice)},
	}
	transitions := 0
	stride := 1
	if raceEnabled {
		stride = 8
	}
	for zi, name := range calendar.ZoneNames() {
		if zi%stride != 0 {
			continue
		}
		loc, err := calendar.LoadZone(name)
		if err != nil {
			t.Fatal(err)
		}
		cur := time.Date(1970, 1, 1, 0, 0, 0, 0, loc)
		for i := 0; i < 400; i++ {
			_, e := cur.ZoneBounds()
			if e.IsZero() || e.After(end) {
				break
			}
			cur = e
			_, before := e.Add(-time.Second).Zone()
			_, after := e.Zone()
			if before == after {
				continue
			}
			transitions++
			eu := e.Unix()
			// The wall time in the middle of the skipped or repeated span.
			mid := eu + int64(min(before, after)) + int64(abs(after-before))/2
			mw := time.Unix(mid, 0).UTC()
			exprs := []string{
				fmt.Sprintf("%d %d * * *", mw.Minute(), mw.Hour()),
				fmt.Sprintf("0 %d * * *", mw.Hour()),
				"0 * * * *",
				"*/30 * * * *",
			}
			queries := []int64{eu - 1, eu, eu + 1, eu - 1800, eu + 1800, eu - 7200, eu + 7200,
				eu - int64(abs(after-before)), eu + int64(abs(after-before)), eu - 86400, eu + 86400}
			for k, expr := range exprs {
				for j, p := range policies {
					if k >= 2 && j > 0 {
						continue // the policies only affect fixed-time jobs
					}
					s, err := Parse(expr, append([]Option{WithLocation(loc)}, p...)...)
					if err != nil {
						t.Fatalf("%s %q: %v", name, expr, err)
					}
					checkAgainstOracle(t, s, eu-secondsPerDay, eu+secondsPerDay, queries)
				}
			}
		}
	}
	if transitions < 10000/stride {
		t.Fatalf("only %d transitions visited", transitions)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
