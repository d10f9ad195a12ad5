package puppetsched

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func TestNextMatch(t *testing.T) {
	ny := zone(t, "America/New_York")
	may23 := at(2011, time.May, 23, 11, 0, 0) // Monday
	tests := []struct {
		name string
		p    Params
		prev time.Time
		t    time.Time
		want time.Time // zero: no match
	}{
		{"no attributes: now", Params{}, never, may23, may23},
		{"inside range: now", Params{Range: "10 - 12"}, never, may23, may23},
		{"before range", Params{Range: "13 - 14"}, never, may23, at(2011, 5, 23, 13, 0, 0)},
		{"after range: tomorrow", Params{Range: "2 - 4"}, never, may23, at(2011, 5, 24, 2, 0, 0)},
		{"just past an inclusive end", Params{Range: "10 - 11"}, never, may23.Add(time.Second), at(2011, 5, 24, 10, 0, 0)},
		{"cross midnight window on saturday", Params{Range: "22:00 - 04:00", Weekday: "Sat"}, never, may23, at(2011, 5, 28, 22, 0, 0)},
		{"cross midnight, inside sunday morning", Params{Range: "22:00 - 04:00", Weekday: "Sat"}, never, at(2011, 5, 29, 3, 0, 0), at(2011, 5, 29, 3, 0, 0)},
		{"weekday only", Params{Weekday: []any{"Thu", int64(5)}}, never, may23, at(2011, 5, 26, 0, 0, 0)},
		{"daily by distance", Params{Period: "daily"}, may23.Add(-time.Hour), may23, may23.Add(23 * time.Hour)},
		{"daily in a range", Params{Period: "daily", Range: "2 - 4"}, at(2011, 5, 23, 2, 30, 0), may23, at(2011, 5, 24, 2, 30, 0)},
		{"daily in a range, due before it opens", Params{Period: "daily", Range: "2 - 4"}, at(2011, 5, 22, 1, 0, 0), may23, at(2011, 5, 24, 2, 0, 0)},
		{"hourly by number", Params{Period: "hourly", PeriodMatch: "number"}, may23, may23.Add(10 * time.Minute), at(2011, 5, 23, 12, 0, 0)},
		{"daily by number", Params{Period: "daily", PeriodMatch: "number"}, may23, may23, at(2011, 5, 24, 0, 0, 0)},
		{"monthly by number", Params{Period: "monthly", PeriodMatch: "number"}, may23, may23, at(2011, 6, 1, 0, 0, 0)},
		{"weekly by number: sunday", Params{Period: "weekly", PeriodMatch: "number"}, may23, may23, at(2011, 5, 29, 0, 0, 0)},
		{"weekly by number from sunday: 7 days + 1 ns", Params{Period: "weekly", PeriodMatch: "number"}, at(2011, 5, 22, 0, 0, 0), may23, at(2011, 5, 29, 0, 0, 0).Add(time.Nanosecond)},
		{"hour excluded by number inside range: only the inclusive end", Params{Period: "hourly", PeriodMatch: "number", Range: "11 - 12"}, may23, may23, at(2011, 5, 23, 12, 0, 0)},
		{"hour excluded by number: never", Params{Period: "hourly", PeriodMatch: "number", Range: "11:00 - 11:59:59"}, may23, may23, time.Time{}},
		{"never", Params{Period: "never"}, never, may23, time.Time{}},
		{"empty weekdays", Params{Weekday: []any{}}, never, may23, time.Time{}},
		{"repeat 0 divides by zero", Params{Period: "daily", Repeat: int64(0)}, never, may23, time.Time{}},
		{"bad range reached", Params{Range: "1:00:61 - 2"}, never, may23, time.Time{}},
		{"bad range after a good one", Params{Range: []any{"13 - 14", "1:00:61 - 2"}}, never, may23, at(2011, 5, 23, 13, 0, 0)},
		{"windows", Params{Windows: []any{map[string]any{"days": "Wed", "start_time": "03:15", "length_minutes": int64(30)}}}, never, may23, at(2011, 5, 25, 3, 15, 0)},
		{"windows and range", Params{Range: "3:30 - 5", Windows: []any{map[string]any{"days": "Wed", "start_time": "03:15", "length_minutes": int64(30)}}}, never, may23, at(2011, 5, 25, 3, 30, 0)},
		{"windows never meet range", Params{Range: "5 - 6", Windows: []any{map[string]any{"days": "Wed", "start_time": "03:15", "length_minutes": int64(30)}}}, never, may23, time.Time{}},
		{"zone: gap moves the start", Params{Range: "2:30 - 4", TimeZone: "America/New_York"}, never, time.Date(2024, 3, 10, 0, 0, 0, 0, ny), time.Date(2024, 3, 10, 3, 30, 0, 0, ny)},
		{"zone: later repeated hour", Params{Range: "1:30 - 4", TimeZone: "America/New_York"}, never, time.Date(2024, 11, 3, 0, 0, 0, 0, ny), time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, tt.p, WithWindows(testWindows))
			got, ok := s.NextMatch(tt.prev, tt.t)
			if tt.want.IsZero() {
				if ok {
					t.Fatalf("NextMatch = %v, want none", got)
				}
				return
			}
			if !ok || !got.Equal(tt.want) {
				t.Fatalf("NextMatch = %v %v, want %v", got, ok, tt.want)
			}
			if !s.Match(tt.prev, got) {
				t.Errorf("Match(NextMatch) = false")
			}
		})
	}
}

var propertyZones = []string{"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Asia/Kathmandu", "America/St_Johns"}

// randomParams returns random schedule attributes, valid ones mostly.
func randomParams(r *rand.Rand) Params {
	var p Params
	tod := func() string {
		switch r.IntN(4) {
		case 0:
			return fmt.Sprint(r.IntN(24))
		case 1:
			return fmt.Sprintf("%d:%02d", r.IntN(24), r.IntN(60))
		case 2:
			return fmt.Sprintf("%d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(61))
		}
		return fmt.Sprintf("%02d:00:00:%d", r.IntN(24), r.IntN(1000000))
	}
	if r.IntN(3) > 0 {
		var rs []any
		for i := r.IntN(3); i >= 0; i-- {
			a := tod()
			b := a // start == end: 24 hours
			if r.IntN(5) > 0 {
				b = tod()
			}
			rs = append(rs, a+" - "+b)
		}
		p.Range = rs
	}
	if r.IntN(3) == 0 {
		var days []any
		for d := 0; d < 7; d++ {
			if r.IntN(3) == 0 {
				days = append(days, int64(d))
			}
		}
		if len(days) == 0 {
			days = append(days, "Sat")
		}
		p.Weekday = days
	}
	if r.IntN(3) > 0 {
		p.Period = []string{"hourly", "daily", "weekly", "monthly"}[r.IntN(4)]
		if r.IntN(2) == 0 {
			p.PeriodMatch = "number"
		} else {
			p.Repeat = []int64{1, 2, 3, 7, -1, 5000}[r.IntN(6)]
		}
	}
	if r.IntN(4) == 0 {
		var ws []any
		for i := r.IntN(2); i >= 0; i-- {
			ws = append(ws, map[string]any{
				"days":           []any{[]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[r.IntN(7)]},
				"start_time":     fmt.Sprintf("%02d:%02d", r.IntN(24), r.IntN(4)*15),
				"length_minutes": int64(1 + r.IntN(300)),
			})
		}
		p.Windows = ws
	}
	p.TimeZone = propertyZones[r.IntN(len(propertyZones))]
	return p
}

// randomInstant returns an instant near a DST transition half the time.
func randomInstant(r *rand.Rand) time.Time {
	days := []time.Time{at(2024, 3, 10, 0, 0, 0), at(2024, 3, 31, 0, 0, 0), at(2024, 4, 6, 0, 0, 0),
		at(2024, 9, 8, 0, 0, 0), at(2024, 10, 6, 0, 0, 0), at(2024, 10, 27, 0, 0, 0), at(2024, 11, 3, 0, 0, 0)}
	base := days[r.IntN(len(days))]
	if r.IntN(2) == 0 {
		base = at(2024, 1, 1, 0, 0, 0).AddDate(0, 0, r.IntN(366))
	}
	return base.Add(time.Duration(r.Int64N(int64(48*time.Hour))) - 24*time.Hour).Truncate(time.Second)
}

// TestNextMatchProperty checks, for random schedules, that NextMatch matches
// and that nothing between t and it does (second by second over a bounded
// span); when NextMatch finds nothing, nothing in the span may match.
func TestNextMatchProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	cases, span := 150, int64(30*3600)
	if testing.Short() || raceEnabled {
		cases = 40
	}
	for i := 0; i < cases; i++ {
		p := randomParams(r)
		s, err := New("s", p, WithWindows(testWindows))
		if err != nil {
			t.Fatalf("New(%+v): %v", p, err)
		}
		start := randomInstant(r)
		var prev time.Time
		if r.IntN(5) > 0 {
			prev = start.Add(time.Duration(r.Int64N(int64(10*24*time.Hour))) - 9*24*time.Hour)
		}
		next, ok := s.NextMatch(prev, start)
		if ok && !s.Match(prev, next) {
			t.Fatalf("case %d %+v prev=%v t=%v: NextMatch %v does not match", i, p, prev, start, next)
		}
		if ok && next.Before(start) {
			t.Fatalf("case %d: NextMatch %v before t %v", i, next, start)
		}
		for k := int64(0); k < span; k++ {
			x := start.Add(time.Duration(k) * time.Second)
			if ok && !x.Before(next) {
				break
			}
			if s.Match(prev, x) {
				t.Fatalf("case %d %+v prev=%v t=%v: %v matches before NextMatch (%v, %v)", i, p, prev, start, x, next, ok)
			}
		}
	}
}
