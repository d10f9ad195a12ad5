package weekly

import (
	"math/rand/v2"
	"testing"
	"time"
)

// benchCalendar builds a calendar of 50 windows spread over the week, the size
// the performance target is stated for.
func benchCalendar(loc *time.Location) *Calendar {
	r := rand.New(rand.NewPCG(1, 2))
	ws := make([]Window, 50)
	for i := range ws {
		ws[i] = Window{Days: []time.Weekday{time.Weekday(r.IntN(7))}, Start: r.IntN(winMinutesPerDay), Length: 1 + r.IntN(90)}
	}
	return NewCalendar(loc, ws...)
}

// benchInstants returns instants spread over a year, so lookups are not all
// served from one cached zone period.
func benchInstants() []time.Time {
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	ts := make([]time.Time, 1024)
	for i := range ts {
		ts[i] = time.Unix(base+r.Int64N(366*86400), 0)
	}
	return ts
}

func benchZones(b *testing.B, f func(b *testing.B, c *Calendar, ts []time.Time)) {
	ts := benchInstants()
	for _, name := range []string{"UTC", "America/New_York"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			b.Fatal(err)
		}
		c := benchCalendar(loc)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			f(b, c, ts)
		})
	}
}

var sinkBool bool
var sinkTime time.Time

func BenchmarkContains(b *testing.B) {
	benchZones(b, func(b *testing.B, c *Calendar, ts []time.Time) {
		i := 0
		for b.Loop() {
			sinkBool = c.Contains(ts[i&1023])
			i++
		}
	})
}

func BenchmarkNextOpen(b *testing.B) {
	benchZones(b, func(b *testing.B, c *Calendar, ts []time.Time) {
		i := 0
		for b.Loop() {
			sinkTime, sinkBool = c.NextOpen(ts[i&1023])
			i++
		}
	})
}

func BenchmarkCurrentEnd(b *testing.B) {
	benchZones(b, func(b *testing.B, c *Calendar, ts []time.Time) {
		i := 0
		for b.Loop() {
			sinkTime, sinkBool = c.CurrentEnd(ts[i&1023])
			i++
		}
	})
}

// BenchmarkNextOpenBeyondTable measures queries past 2100, where zone periods
// come from the time package instead of the precomputed table.
func BenchmarkNextOpenBeyondTable(b *testing.B) {
	c := benchCalendar(mustZone(b, "America/New_York"))
	ts := benchInstants()
	for i := range ts {
		ts[i] = ts[i].AddDate(125, 0, 0)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkTime, sinkBool = c.NextOpen(ts[i&1023])
		i++
	}
}

func BenchmarkNewCalendar(b *testing.B) {
	ny := mustZone(b, "America/New_York")
	r := rand.New(rand.NewPCG(1, 2))
	ws := make([]Window, 50)
	for i := range ws {
		ws[i] = Window{Days: []time.Weekday{time.Weekday(r.IntN(7))}, Start: r.IntN(winMinutesPerDay), Length: 1 + r.IntN(90)}
	}
	b.ReportAllocs()
	for b.Loop() {
		NewCalendar(ny, ws...)
	}
}
