package weekly

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// oracle answers the same questions as a Calendar by brute force, straight
// from the definition: mark every minute of the week the windows cover, walk
// the wall clock minute by minute to find each run of covered minutes, and map
// the run's first and end wall times to instants with calendar.ResolveWall
// (the first instant the clock shows that time). It shares no code with
// Calendar beyond ParseWindow's output.
type oracle struct {
	ivs  [][2]int64 // instant intervals [open, close), sorted, touching ones merged
	full bool
}

func newOracle(loc *time.Location, ws []Window, from, to int64) *oracle {
	var covered [winMinutesPerWeek]bool
	n := 0
	for _, w := range ws {
		for _, d := range w.Days {
			day := (int(d) + 6) % 7
			for k := 0; k < w.Length; k++ {
				m := (day*winMinutesPerDay + w.Start + k) % winMinutesPerWeek
				if !covered[m] {
					covered[m] = true
					n++
				}
			}
		}
	}
	o := &oracle{full: n == winMinutesPerWeek}
	weekMinute := func(a int64) int {
		t := time.Unix(a*60, 0).UTC()
		return (int(t.Weekday())+6)%7*winMinutesPerDay + t.Hour()*60 + t.Minute()
	}
	first := func(a int64) int64 { return calendar.ResolveWall(loc, a*60).First.Unix() }
	// Wall minutes around [from, to): offsets are within a day, and a run
	// lasts less than a week unless the calendar is full.
	lo := (from-2*86400)/60 - 2*winMinutesPerWeek
	hi := (to+2*86400)/60 + 2*winMinutesPerWeek
	for a := lo; a < hi; {
		if !covered[weekMinute(a)] {
			a++
			continue
		}
		b := a
		for b < hi && covered[weekMinute(b)] {
			b++
		}
		if a > lo && b < hi { // skip runs cut by the scan's ends
			s, e := first(a), first(b)
			if k := len(o.ivs); s < e && k > 0 && s <= o.ivs[k-1][1] {
				o.ivs[k-1][1] = max(o.ivs[k-1][1], e)
			} else if s < e {
				o.ivs = append(o.ivs, [2]int64{s, e})
			}
		}
		a = b
	}
	return o
}

// at returns the interval containing the instant t, if any, and the index of
// the first interval opening after t.
func (o *oracle) at(t time.Time) (iv [2]int64, in bool, next int) {
	u := t.Unix() // t >= s iff u >= s and t < e iff u < e, for whole seconds s, e
	for i, iv := range o.ivs {
		if u < iv[0] {
			return iv, false, i
		}
		if u < iv[1] {
			return iv, true, i + 1
		}
	}
	return iv, false, len(o.ivs)
}

// randomWindows returns 1 to 6 random windows, biased towards the early
// morning hours in which DST transitions happen.
func randomWindows(r *rand.Rand) []Window {
	ws := make([]Window, 1+r.IntN(6))
	for i := range ws {
		var days []time.Weekday
		for d := range 7 {
			if r.IntN(4) == 0 {
				days = append(days, time.Weekday(d))
			}
		}
		if len(days) == 0 {
			days = []time.Weekday{time.Sunday}
		}
		start := r.IntN(winMinutesPerDay)
		if r.IntN(2) == 0 {
			start = r.IntN(4 * 60) // 00:00 - 03:59
		}
		length := 1 + r.IntN(180)
		if r.IntN(8) == 0 {
			length = 1 + r.IntN(3*winMinutesPerDay)
		}
		ws[i] = Window{Days: days, Start: start, Length: length}
	}
	return ws
}

// propertyZones have DST of an hour at night (New York, Berlin), half an hour
// (Lord Howe), at midnight (Sao Paulo until 2019, Havana), negative DST
// (Dublin), a skipped day (Apia, December 2011) and none at all.
var propertyZones = []string{
	"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Sao_Paulo",
	"America/Havana", "Europe/Dublin", "Pacific/Apia", "Asia/Kathmandu", "America/St_Johns",
}

// randomWeekStart picks an instant near a zone transition most of the time,
// and now and then a year outside the precomputed zone table.
func randomWeekStart(r *rand.Rand, loc *time.Location) int64 {
	var year int
	switch r.IntN(10) {
	case 0:
		year = 1920 + r.IntN(49)
	case 1:
		year = 2100 + r.IntN(100)
	default:
		year = 1975 + r.IntN(75)
	}
	u := time.Date(year, time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC).Unix()
	if r.IntN(4) != 0 {
		if _, end := time.Unix(u, 0).In(loc).ZoneBounds(); !end.IsZero() {
			u = end.Unix() - int64(r.IntN(4*86400))
		}
	}
	return u
}

// TestCalendarMatchesOracle compares Contains, NextOpen and CurrentEnd with
// the oracle at random instants (with random seconds and nanoseconds) of
// random calendars in zones with all kinds of transitions.
func TestCalendarMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(20250309, 1))
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for round := range rounds {
		loc := mustZone(t, propertyZones[round%len(propertyZones)])
		ws := randomWindows(r)
		c := NewCalendar(loc, ws...)
		from := randomWeekStart(r, loc)
		to := from + 8*86400
		o := newOracle(loc, ws, from, to)
		for range 200 {
			at := time.Unix(from+r.Int64N(to-from), int64(r.IntN(3))*r.Int64N(1e9)).In(time.UTC)
			iv, in, next := o.at(at)
			if got := c.Contains(at); got != in {
				t.Fatalf("%s %v: Contains(%v) = %v, oracle %v", loc, ws, at.In(loc), got, in)
			}
			gotOpen, ok := c.NextOpen(at)
			var wantOpen time.Time
			switch {
			case in:
				wantOpen = at
			case next < len(o.ivs):
				wantOpen = time.Unix(o.ivs[next][0], 0)
			default:
				t.Fatalf("oracle range too short at %v", at)
			}
			if !ok || !gotOpen.Equal(wantOpen) {
				t.Fatalf("%s %v: NextOpen(%v) = %v, %v; oracle %v", loc, ws, at.In(loc), gotOpen, ok, wantOpen.In(loc))
			}
			gotEnd, ok := c.CurrentEnd(at)
			wantOK := in && !o.full
			if ok != wantOK || ok && gotEnd.Unix() != iv[1] {
				t.Fatalf("%s %v: CurrentEnd(%v) = %v, %v; oracle %v, %v", loc, ws, at.In(loc),
					gotEnd, ok, time.Unix(iv[1], 0).In(loc), wantOK)
			}
		}
	}
}

// TestNextOpenMinuteScan checks, minute by minute over whole weeks around DST
// transitions, that NextOpen(t) is the first instant at or after t for which
// Contains is true, and that CurrentEnd(t) is the first instant after t for
// which it is false.
func TestNextOpenMinuteScan(t *testing.T) {
	r := rand.New(rand.NewPCG(20251102, 2))
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	for round := range rounds {
		name := propertyZones[round%len(propertyZones)]
		loc := mustZone(t, name)
		ws := randomWindows(r)
		c := NewCalendar(loc, ws...)
		from := randomWeekStart(r, loc) / 60 * 60
		if _, off := time.Unix(from, 0).In(loc).Zone(); off%60 != 0 {
			continue // a zone whose offset is not whole minutes then
		}
		const n = 8 * winMinutesPerDay
		inside := make([]bool, n+1)
		for i := range inside {
			inside[i] = c.Contains(time.Unix(from+int64(i)*60, 0))
		}
		// nextIn[i] is the first minute index >= i inside, or -1.
		nextIn := make([]int, n+1)
		nextIn[n] = -1
		if inside[n] {
			nextIn[n] = n
		}
		for i := n - 1; i >= 0; i-- {
			nextIn[i] = nextIn[i+1]
			if inside[i] {
				nextIn[i] = i
			}
		}
		// nextOut[i] is the first minute index >= i outside, or n+1.
		nextOut := make([]int, n+2)
		nextOut[n+1] = n + 1
		for i := n; i >= 0; i-- {
			nextOut[i] = nextOut[i+1]
			if !inside[i] {
				nextOut[i] = i
			}
		}
		for i := 0; i < n; i++ {
			at := time.Unix(from+int64(i)*60, 0)
			got, ok := c.NextOpen(at)
			if !ok {
				t.Fatalf("%s %v: NextOpen(%v) found nothing", name, ws, at)
			}
			if j := nextIn[i]; j >= 0 && !got.Equal(time.Unix(from+int64(j)*60, 0)) {
				t.Fatalf("%s %v: NextOpen(%v) = %v, minute scan finds %v", name, ws, at.In(loc), got,
					time.Unix(from+int64(j)*60, 0).In(loc))
			}
			if !c.Contains(got) || got.Before(at) {
				t.Fatalf("%s %v: NextOpen(%v) = %v is not inside", name, ws, at.In(loc), got)
			}
			end, ok := c.CurrentEnd(at)
			if ok != inside[i] && c.WeeklyMinutes() < winMinutesPerWeek {
				t.Fatalf("%s %v: CurrentEnd(%v) ok = %v, inside %v", name, ws, at.In(loc), ok, inside[i])
			}
			if ok {
				k := int(end.Unix()-from) / 60
				if c.Contains(end) || !end.After(at) || k <= n && nextOut[i] != k {
					t.Fatalf("%s %v: CurrentEnd(%v) = %v disagrees with the minute scan", name, ws, at.In(loc), end.In(loc))
				}
			}
		}
	}
}
