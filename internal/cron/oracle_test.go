package cron

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// The oracle: an independent, deliberately naive model of the fire set. It
// walks every matching wall time one by one, decides days with time.Date
// instead of month masks, and maps wall times to instants with calendar's
// Resolve plus the DST policy, so it shares no search code with Spec.

func refDayMatch(s *Spec, y int, m time.Month, d int) bool {
	if s.month&(1<<int(m)) == 0 {
		return false
	}
	n := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
	wd := int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Weekday())
	isWeekday := func(day int) bool {
		w := time.Date(y, m, day, 0, 0, 0, 0, time.UTC).Weekday()
		return w != time.Saturday && w != time.Sunday
	}
	dom := s.dom&(1<<d) != 0 || (s.lastDay && d == n)
	if s.lastWeekday {
		last := n
		for !isWeekday(last) {
			last--
		}
		dom = dom || d == last
	}
	for x := 1; x <= 31; x++ {
		if s.nearestWeekday&(1<<x) == 0 || x > n {
			continue
		}
		// Nearest weekday within the month, preferring the earlier one on
		// a tie; never crossing into another month.
		best := -1
		for delta := 0; delta < 7 && best < 0; delta++ {
			for _, c := range []int{x - delta, x + delta} {
				if c >= 1 && c <= n && isWeekday(c) && best < 0 {
					best = c
				}
			}
		}
		dom = dom || d == best
	}
	dow := s.dow&(1<<wd) != 0 ||
		(s.lastDow&(1<<wd) != 0 && d+7 > n) ||
		((d-1)/7 < 5 && s.nth&(1<<(wd*5+(d-1)/7)) != 0)
	if s.and {
		return dom && dow
	}
	return dom || dow
}

// refFires returns the sorted fire instants of every matching wall time in
// [w0, w1] (walls as seconds since 1970 of the zone's clock).
func refFires(s *Spec, w0, w1 int64) []int64 {
	var out []int64
	for day := floorDiv(w0, secondsPerDay); day <= floorDiv(w1, secondsPerDay); day++ {
		y, m, d := time.Unix(day*secondsPerDay, 0).UTC().Date()
		if !refDayMatch(s, y, m, d) {
			continue
		}
		for h := 0; h < 24; h++ {
			if s.hours&(1<<h) == 0 {
				continue
			}
			for mi := 0; mi < 60; mi++ {
				if s.mins&(1<<mi) == 0 {
					continue
				}
				for sec := 0; sec < 60; sec++ {
					if s.secs&(1<<sec) == 0 {
						continue
					}
					w := day*secondsPerDay + int64(h*3600+mi*60+sec)
					if w < w0 || w > w1 {
						continue
					}
					r := calendar.ResolveWall(s.loc, w)
					switch r.Kind {
					case calendar.Unique:
						out = append(out, r.First.Unix())
					case calendar.Gap:
						if s.fixedTime && s.gap == calendar.GapRun {
							out = append(out, r.First.Unix())
						}
					case calendar.Repeated:
						out = append(out, r.First.Unix())
						if !s.fixedTime || s.repeat == calendar.RepeatTwice {
							out = append(out, r.Second.Unix())
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkAgainstOracle compares Next, Prev and Count with the oracle for query
// instants in [q0, q1]. The oracle enumerates walls a day beyond both ends,
// which covers every fire within 10 hours of the query range.
func checkAgainstOracle(t *testing.T, s *Spec, q0, q1 int64, queries []int64) {
	t.Helper()
	fires := refFires(s, q0-secondsPerDay, q1+secondsPerDay)
	lo, hi := q0-10*3600, q1+10*3600 // fires known completely in [lo, hi]
	for _, q := range queries {
		qt := time.Unix(q, 0)
		i, _ := slices.BinarySearch(fires, q+1)
		if i < len(fires) && fires[i] <= hi {
			if got := s.Next(qt); got.Unix() != fires[i] {
				t.Fatalf("%q in %s: Next(%s) = %s, oracle %s", s.expr, s.loc, qt.In(s.loc), got, time.Unix(fires[i], 0).In(s.loc))
			}
		}
		j, _ := slices.BinarySearch(fires, q)
		if j > 0 && fires[j-1] >= lo {
			if got := s.Prev(qt); got.Unix() != fires[j-1] {
				t.Fatalf("%q in %s: Prev(%s) = %s, oracle %s", s.expr, s.loc, qt.In(s.loc), got, time.Unix(fires[j-1], 0).In(s.loc))
			}
		}
	}
	for k := 0; k+1 < len(queries); k += 2 {
		a, b := min(queries[k], queries[k+1]), max(queries[k], queries[k+1])
		i, _ := slices.BinarySearch(fires, a+1)
		j, _ := slices.BinarySearch(fires, b+1)
		if got := s.Count(time.Unix(a, 0), time.Unix(b, 0)); got != int64(j-i) {
			t.Fatalf("%q in %s: Count(%s, %s] = %d, oracle %d", s.expr, s.loc, time.Unix(a, 0).In(s.loc), time.Unix(b, 0).In(s.loc), got, j-i)
		}
	}
}

// randomField returns a random list item for field f.
func randomField(r *rand.Rand, f int) string {
	lo, hi := fieldMin[f], fieldMax[f]
	if f == fDow {
		hi = 6
	}
	if f == fDom {
		hi = 31
	}
	v := func() int { return lo + r.IntN(hi-lo+1) }
	if f == fHour && r.IntN(3) == 0 {
		// Most DST transitions happen between 00:00 and 03:00.
		return strconv.Itoa(r.IntN(4))
	}
	var items []string
	for n := 1 + r.IntN(2); n > 0; n-- {
		switch k := r.IntN(12); {
		case k < 3:
			return "*"
		case k < 5:
			items = append(items, "*/"+strconv.Itoa(1+r.IntN(min(hi-lo+1, 20))))
		case k < 7:
			a, b := v(), v()
			items = append(items, strconv.Itoa(min(a, b))+"-"+strconv.Itoa(max(a, b)))
		case k < 8:
			a := v()
			items = append(items, strconv.Itoa(a)+"/"+strconv.Itoa(1+r.IntN(10)))
		case k < 9 && f == fDom:
			items = append(items, []string{"L", "LW", strconv.Itoa(1+r.IntN(31)) + "W", strconv.Itoa(1+r.IntN(31)) + "W"}[r.IntN(4)])
		case k < 9 && f == fDow:
			wd := r.IntN(7)
			if r.IntN(2) == 0 {
				items = append(items, strconv.Itoa(wd)+"L")
			} else {
				items = append(items, strconv.Itoa(wd)+"#"+strconv.Itoa(1+r.IntN(5)))
			}
		default:
			items = append(items, strconv.Itoa(v()))
		}
	}
	return strings.Join(items, ",")
}

func randomExpr(r *rand.Rand, seconds bool) string {
	var fs []string
	if seconds {
		fs = append(fs, randomField(r, fSec))
	}
	for f := fMin; f <= fDow; f++ {
		fs = append(fs, randomField(r, f))
	}
	return strings.Join(fs, " ")
}
