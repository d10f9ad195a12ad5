//go:build unix

package awsinventory

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/fleet/awsinventory/awsfake"
)

// BenchmarkList10000 is an inventory of 10,000 tagged EC2 instances in
// three regions (ten pages of 1,000 per region and a bit), through the real
// SDK and the stand-in over loopback HTTP. The allocations counted include
// the stand-in's own (it runs in the same process); retained-B is the heap
// the resulting listing keeps; cpu-ns/op is the processor time of the
// whole process (client and stand-in), which unlike ns/op does not grow
// when other programs compete for the processors.
func BenchmarkList10000(b *testing.B) {
	regions := []string{"us-east-1", "eu-west-1", "ap-southeast-2"}
	s := newStandin(b, regions...)
	for i := range 10000 {
		s.AddInstance(awsfake.Instance{
			ID: fmt.Sprintf("i-%017x", i), Region: regions[i%3], State: "running",
			Tags: with(office, "Name", fmt.Sprintf("web-%d", i), "team", "web"),
		})
	}
	src := newSource(b, s, regions, ServiceEC2)
	ctx := context.Background()
	var retained uint64
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rs, err := src.List(ctx)
		if err != nil || len(rs) != 10000 {
			b.Fatalf("%d resources, %v", len(rs), err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		retained = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		runtime.KeepAlive(rs)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(retained), "retained-B")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
