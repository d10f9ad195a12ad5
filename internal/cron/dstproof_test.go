package cron_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// The DST proof: for zones of the embedded database and their offset
// changes from 1970 to 2037, cron's Next and Prev, and the weekly windows'
// Contains and NextOpen, around each change are compared with a
// brute-force walk over every minute that applies the documented DST
// policy (docs/cron.md, docs/windows.md) on its own. With ALMANAC_SLOW=1 it
// covers every zone and every change; otherwise a fixed sample: all the
// changes of a few zones known for odd ones, and every 97th change of the
// others.

var proofFrom, proofTo = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2038, 1, 1, 0, 0, 0, 0, time.UTC)

// alwaysZones are proven in full even in the sample.
var alwaysZones = map[string]bool{"Europe/Berlin": true, "America/New_York": true, "Australia/Lord_Howe": true,
	"Pacific/Apia": true, "America/Sao_Paulo": true, "Asia/Tehran": true}

// change is one offset change of a zone to prove.
type change struct {
	zone string
	loc  *time.Location
	at   time.Time
}

// changes lists the offset changes to prove, and how many there are in all.
func changes(t testing.TB, full bool) (picked []change, total, zones int) {
	t.Helper()
	n := 0
	for _, name := range calendar.ZoneNames() {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("zone %s: %v", name, err)
		}
		ts := calendar.Transitions(loc, proofFrom, proofTo)
		if len(ts) > 0 {
			zones++
		}
		for _, at := range ts {
			total++
			n++
			if full || alwaysZones[name] || n%97 == 0 {
				picked = append(picked, change{name, loc, at})
			}
		}
	}
	return picked, total, zones
}

// walk is every minute of the window around a change, with its wall time.
type walk struct {
	loc   *time.Location
	inst  []time.Time
	wall  []int64 // wall-clock seconds since 1970-01-01 00:00 (as if UTC)
	start time.Time
}

func wallOf(t time.Time, loc *time.Location) int64 {
	l := t.In(loc)
	y, m, d := l.Date()
	return time.Date(y, m, d, l.Hour(), l.Minute(), l.Second(), 0, time.UTC).Unix()
}

// newWalk covers [at-36h, at+36h) minute by minute; false when an offset
// in it is not a whole number of minutes (some zones before 1972).
func newWalk(c change) (*walk, bool) {
	w := &walk{loc: c.loc, start: c.at.Add(-36 * time.Hour)}
	for t := w.start; t.Before(c.at.Add(36 * time.Hour)); t = t.Add(time.Minute) {
		if _, off := t.In(c.loc).Zone(); off%60 != 0 {
			return nil, false
		}
		w.inst = append(w.inst, t)
		w.wall = append(w.wall, wallOf(t, c.loc))
	}
	return w, true
}

// fixedDaily is the documented policy for a fixed-time job at hh:mm:
// every day whose hh:mm exists runs at it (the first of two when it is
// repeated); a day whose hh:mm falls in a gap runs once at the first
// instant after the gap; equal instants count once.
func (w *walk) fixedDaily(hh, mm int) []time.Time {
	var out []time.Time
	first := time.Unix(w.wall[0], 0).UTC()
	for d := time.Date(first.Year(), first.Month(), first.Day()-1, 0, 0, 0, 0, time.UTC); d.Unix() <= w.wall[len(w.wall)-1]+86400; d = d.AddDate(0, 0, 1) {
		target := d.Unix() + int64(hh*3600+mm*60)
		var hit time.Time
		for i, wl := range w.wall {
			if wl == target {
				hit = w.inst[i]
				break
			}
			// A gap: the wall clock jumps from before the target to after.
			if i > 0 && w.wall[i-1] < target && wl > target && w.inst[i].Sub(w.inst[i-1]) == time.Minute {
				hit = w.inst[i]
				break
			}
		}
		if !hit.IsZero() && (len(out) == 0 || !out[len(out)-1].Equal(hit)) {
			out = append(out, hit)
		}
	}
	return out
}

// elapsed is the documented policy for a wildcard job: every real instant
// whose wall time matches, repeated wall times twice.
func (w *walk) elapsed(match func(min, hour int) bool) []time.Time {
	var out []time.Time
	for i, wl := range w.wall {
		if s := time.Unix(wl, 0).UTC(); match(s.Minute(), s.Hour()) {
			out = append(out, w.inst[i])
		}
	}
	return out
}

// compare checks Next from before the window and Prev from after it
// against want, over the inner window where the walk sees every
// candidate (a day on each side is kept as margin).
func compare(t *testing.T, c change, expr string, spec *cron.Spec, want []time.Time, w *walk) {
	t.Helper()
	lo, hi := c.at.Add(-24*time.Hour), c.at.Add(24*time.Hour)
	var in []time.Time
	for _, x := range want {
		if x.After(lo) && x.Before(hi) {
			in = append(in, x)
		}
	}
	var got []time.Time
	for x := spec.Next(lo); x.Before(hi); x = spec.Next(x) {
		got = append(got, x)
		if len(got) > len(in)+5 {
			break
		}
	}
	if !sameInstants(got, in) {
		t.Errorf("%s at %s (%s): %q Next gives %s, the walk %s", c.zone, c.at.Format(time.RFC3339), describe(c), expr, list(got, c.loc), list(in, c.loc))
		return
	}
	for i := len(in) - 1; i > 0; i-- {
		if p := spec.Prev(in[i]); !p.Equal(in[i-1]) {
			t.Errorf("%s at %s: %q Prev(%s) = %s, want %s", c.zone, c.at.Format(time.RFC3339), expr, in[i].In(c.loc).Format(time.RFC3339), p.In(c.loc).Format(time.RFC3339), in[i-1].In(c.loc).Format(time.RFC3339))
			return
		}
	}
}

func sameInstants(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func list(ts []time.Time, loc *time.Location) string {
	s := "["
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t.In(loc).Format("01-02T15:04Z07:00")
	}
	return s + "]"
}

func describe(c change) string {
	_, b := c.at.Add(-time.Second).In(c.loc).Zone()
	_, a := c.at.In(c.loc).Zone()
	return fmt.Sprintf("offset %+d min", (a-b)/60)
}

// around returns hh:mm of the wall time d seconds after (or before) the change.
func around(c change, d time.Duration) (int, int) {
	l := c.at.Add(d).In(c.loc)
	return l.Hour(), l.Minute()
}

// proveWindow checks a daily window of length minutes opening at wall
// minute start against the documented rule (docs/windows.md): each day the
// window opens at the first instant the clock shows its start time or
// later, and closes at the first instant it shows its end time or later.
// Contains is checked at every minute of the walk, and NextOpen from every
// half hour of its first two days.
func proveWindow(t *testing.T, c change, w *walk, start, length int) {
	t.Helper()
	all := []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday}
	cal := weekly.NewCalendar(c.loc, weekly.Window{Days: all, Start: start, Length: length})
	shows := func(target int64) int { // the first minute whose wall clock reads target or later
		for i, wl := range w.wall {
			if wl >= target {
				return i
			}
		}
		return len(w.wall)
	}
	inside := make([]bool, len(w.wall))
	first := time.Unix(w.wall[0], 0).UTC()
	for d := time.Date(first.Year(), first.Month(), first.Day()-1, 0, 0, 0, 0, time.UTC); d.Unix() <= w.wall[len(w.wall)-1]; d = d.AddDate(0, 0, 1) {
		open := d.Unix() + int64(start*60)
		from, to := shows(open), shows(open+int64(length*60))
		for i := from; i < to; i++ {
			inside[i] = true
		}
	}
	for i, t0 := range w.inst {
		if got := cal.Contains(t0); got != inside[i] {
			t.Errorf("%s at %s (%s): window %02d:%02d+%d Contains(%s) = %v, want %v", c.zone, c.at.Format(time.RFC3339), describe(c),
				start/60, start%60, length, t0.In(c.loc).Format(time.RFC3339), got, inside[i])
			return
		}
	}
	for i := 0; i < len(w.inst)-1440; i += 30 {
		want := time.Time{}
		for k := i; k < len(w.inst); k++ {
			if inside[k] {
				want = w.inst[k]
				break
			}
		}
		got, ok := cal.NextOpen(w.inst[i])
		if !ok || !got.Equal(want) {
			t.Errorf("%s at %s (%s): window %02d:%02d+%d NextOpen(%s) = %s %v, want %s", c.zone, c.at.Format(time.RFC3339), describe(c),
				start/60, start%60, length, w.inst[i].In(c.loc).Format(time.RFC3339), got.In(c.loc).Format(time.RFC3339), ok, want.In(c.loc).Format(time.RFC3339))
			return
		}
	}
}

func TestEveryDSTTransition(t *testing.T) {
	full := os.Getenv("ALMANAC_SLOW") == "1"
	picked, total, zones := changes(t, full)
	start := time.Now()
	proven, skipped := 0, 0
	for _, c := range picked {
		w, ok := newWalk(c)
		if !ok {
			skipped++
			continue
		}
		proven++
		_, before := c.at.Add(-time.Second).In(c.loc).Zone()
		_, after := c.at.In(c.loc).Zone()
		shift := time.Duration(after-before) * time.Second
		// Fixed times: just inside the gap or overlap, its middle, and
		// the first wall minute after the change.
		var hm [][2]int
		if shift > 0 { // spring forward: wall times in [before, before+shift) are skipped
			h, m := around(c, -time.Minute) // the last wall minute before the change
			hm = append(hm, [2]int{h, (m + 1) % 60})
			if shift >= 2*time.Minute {
				h2, m2 := around(c, shift/2-shift) // wall time in the middle of the gap
				hm = append(hm, [2]int{h2, m2})
			}
		} else { // fall back: wall times in [after, after-shift) happen twice
			h, m := around(c, 0)
			hm = append(hm, [2]int{h, m})
			h2, m2 := around(c, -shift/2)
			hm = append(hm, [2]int{h2, m2})
		}
		for _, x := range hm {
			expr := fmt.Sprintf("%d %d * * *", x[1], x[0])
			spec, err := cron.Parse(expr, cron.WithLocation(c.loc))
			if err != nil {
				t.Fatal(err)
			}
			compare(t, c, expr, spec, w.fixedDaily(x[0], x[1]), w)
		}
		for _, wc := range []struct {
			expr  string
			match func(min, hour int) bool
		}{
			{"*/15 * * * *", func(m, _ int) bool { return m%15 == 0 }},
			{"0 */2 * * *", func(m, h int) bool { return m == 0 && h%2 == 0 }},
		} {
			spec, err := cron.Parse(wc.expr, cron.WithLocation(c.loc))
			if err != nil {
				t.Fatal(err)
			}
			compare(t, c, wc.expr, spec, w.elapsed(wc.match), w)
		}
		for _, x := range hm {
			proveWindow(t, c, w, x[0]*60+x[1], 90)
		}
		if t.Failed() && !full {
			break
		}
	}
	t.Logf("proved %d offset changes (%d skipped: offsets not in whole minutes) of %d in %d zones, 1970-2037, in %s (full: %v)",
		proven, skipped, total, zones, time.Since(start).Round(time.Millisecond), full)
}
