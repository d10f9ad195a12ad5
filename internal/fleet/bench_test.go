package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// staticSource lists a fixed slice and accepts every action.
type staticSource struct{ rs []Resource }

func (s *staticSource) List(context.Context) ([]Resource, error) { return s.rs, nil }
func (*staticSource) Start(context.Context, string) error        { return nil }
func (*staticSource) Stop(context.Context, string) error         { return nil }
func (*staticSource) Hibernate(context.Context, string) error    { return nil }

var benchZones = []string{"america-new_york", "europe-berlin", "asia-tokyo", "utc", "australia-sydney"}

func benchFleet(n int) []Resource {
	rs := make([]Resource, n)
	for i := range rs {
		rs[i] = Resource{
			ID: fmt.Sprintf("i-%06d", i), Name: fmt.Sprintf("vm-%d", i), State: Running,
			Tags: map[string]string{
				"almanac-schedule-start":    fmt.Sprintf("mon%02d%02d_tue0800_wed0800_thu0800_fri0800", 6+i%4, (i%4)*15),
				"almanac-schedule-stop":     fmt.Sprintf("mon1800_tue1800_wed1800_thu1800_fri%02d00", 17+i%3),
				"almanac-schedule-timezone": benchZones[i%len(benchZones)],
				"almanac-schedule-notify":   "ops@example.com",
				"team":                      "web",
			},
		}
	}
	return rs
}

// BenchmarkNextTransitions computes the next start or stop of 100,000
// scheduled resources (one op = all of them).
func BenchmarkNextTransitions(b *testing.B) {
	rs := benchFleet(100000)
	vals := make([]Validation, len(rs))
	for i, r := range rs {
		vals[i] = Validate(r.Tags, false)
	}
	at := time.Date(2024, 6, 5, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range vals {
			if nextTransition(&vals[j], at).IsZero() {
				b.Fatal("no transition")
			}
		}
	}
}

// BenchmarkTick100k is one Tick over 100,000 tracked resources when nothing is
// due: the scheduler's steady-state cost per wake-up.
func BenchmarkTick100k(b *testing.B) {
	clk := clock.NewFake(time.Date(2024, 6, 5, 12, 0, 0, 0, time.UTC))
	s, err := New(Config{Source: &staticSource{benchFleet(100000)}, Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Inventory(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Tick(context.Background())
	}
}

// BenchmarkInventoryDiff10k diffs an inventory of 10,000 resources against the
// previous one, with 1% of them changing a schedule tag and 1% their state.
func BenchmarkInventoryDiff10k(b *testing.B) {
	a := benchFleet(10000)
	c := benchFleet(10000)
	for i := 0; i < len(c); i += 100 {
		c[i].Tags["almanac-schedule-stop"] = "mon2000"
		c[i+1].State = Stopped
	}
	src := &staticSource{}
	clk := clock.NewFake(time.Date(2024, 6, 5, 12, 0, 0, 0, time.UTC))
	s, err := New(Config{Source: src, Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		src.rs = a
		if err := s.Inventory(ctx); err != nil {
			b.Fatal(err)
		}
		src.rs = c
		clk.Advance(15 * time.Minute)
		b.StartTimer()
		if err := s.Inventory(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
