package puppetsched

import (
	"testing"
	"time"
)

var benchSink bool

type namedSchedule struct {
	name string
	s    *Schedule
}

func benchSchedules(b *testing.B) []namedSchedule {
	mk := func(p Params) *Schedule {
		s, err := New("b", p, WithWindows(testWindows))
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	puppet, _ := Builtin("puppet")
	return []namedSchedule{
		{"builtin-puppet", puppet},
		{"range-daily-UTC", mk(Params{Range: "2 - 4", Period: "daily"})},
		{"range-weekday-NY", mk(Params{Range: "22:00 - 04:00", Weekday: "Sat", Period: "daily", TimeZone: "America/New_York"})},
		{"ranges3-number-NY", mk(Params{Range: []any{"1 - 2", "13:30 - 14", "23 - 1"}, Period: "hourly", PeriodMatch: "number", TimeZone: "America/New_York"})},
		{"range-DST-day-NY", mk(Params{Range: "1:30 - 3:30", Period: "daily", TimeZone: "America/New_York"})},
		{"weekday-monthly-Syd", mk(Params{Weekday: []any{"Mon", "Fri"}, Period: "monthly", PeriodMatch: "number", TimeZone: "Australia/Sydney"})},
		{"windows-range-NY", mk(Params{Range: "1 - 5", TimeZone: "America/New_York", Windows: []any{
			map[string]any{"days": []any{"Sat", "Sun"}, "start_time": "03:00", "length_minutes": int64(120)}}})},
	}
}

func BenchmarkMatch(b *testing.B) {
	now := time.Date(2024, 6, 1, 3, 0, 0, 0, time.UTC)
	prev := now.Add(-30 * time.Hour)
	for _, ns := range benchSchedules(b) {
		name, s := ns.name, ns.s
		t := now
		if name == "range-DST-day-NY" {
			t = time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // a fall-back day: the slow path
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = s.Match(prev, t)
			}
		})
	}
}

func BenchmarkNextMatch(b *testing.B) {
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	prev := now.Add(-2 * time.Hour)
	for _, ns := range benchSchedules(b) {
		s := ns.s
		b.Run(ns.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, benchSink = s.NextMatch(prev, now)
			}
		})
	}
	// The worst case: attributes that never agree, searched to the horizon.
	s, err := New("b", Params{Range: "11:00 - 11:59:59", Period: "hourly", PeriodMatch: "number"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("never-agree-2y", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, benchSink = s.NextMatch(time.Date(2024, 6, 1, 11, 0, 0, 0, time.UTC), now)
		}
	})
}
