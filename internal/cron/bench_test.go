package cron

import (
	"testing"
	"time"
)

// benchExprs are the representative specs.
var benchExprs = []string{"* * * * *", "*/5 * * * *", "0 9 * * 1-5", "30 2 * * *", "0 0 29 2 *", "0 9 1-7 * 2"}

var benchFrom = time.Date(2025, 6, 18, 10, 17, 23, 0, time.UTC)

var sink time.Time

func benchNext(b *testing.B, zone string, fromPrev bool) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range benchExprs {
		s, err := Parse(e, WithLocation(loc))
		if err != nil {
			b.Fatal(err)
		}
		from := benchFrom.In(loc)
		if fromPrev {
			from = s.Next(from)
		}
		b.Run(e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = s.Next(from)
			}
		})
	}
}

func BenchmarkNextUTC(b *testing.B)         { benchNext(b, "UTC", false) }
func BenchmarkNextUTCFromFire(b *testing.B) { benchNext(b, "UTC", true) }
func BenchmarkNextNewYork(b *testing.B)     { benchNext(b, "America/New_York", false) }
func BenchmarkNextNewYorkFromFire(b *testing.B) {
	benchNext(b, "America/New_York", true)
}

func BenchmarkNext1000(b *testing.B) {
	for _, zone := range []string{"UTC", "America/New_York"} {
		loc, _ := time.LoadLocation(zone)
		s, _ := Parse("*/5 * * * *", WithLocation(loc))
		b.Run(zone, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := benchFrom
				for i := 0; i < 1000; i++ {
					t = s.Next(t)
				}
				sink = t
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, e := range []string{"*/5 * * * *", "0 9 * * 1-5", "0 0 29 2 *", "CRON_TZ=America/New_York 0 9 * * 1-5", "0 0 * * 5L"} {
		b.Run(e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var countSink int64

func BenchmarkCount10Years(b *testing.B) {
	to := benchFrom.AddDate(10, 0, 0)
	for _, e := range []string{"*/5 * * * *", "CRON_TZ=America/New_York */5 * * * *", "CRON_TZ=America/New_York 0 9 * * 1-5"} {
		s, _ := Parse(e)
		b.Run(e, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				countSink = s.Count(benchFrom, to)
			}
		})
	}
}
