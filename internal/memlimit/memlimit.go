// Package memlimit bounds the Go runtime's heap while a process works
// through an input of known size, such as a directory of manifests: the
// collector then runs before the heap doubles, so the memory the work
// adds stays a bounded multiple of the input.
package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// PerInputByte is the memory a compile of manifests may add per byte of
// input: the compact catalog and the compiler's indexes take about 4.5
// bytes per byte at their peak, and without a bound the collector lets
// the heap grow to twice what is live before it runs.
const PerInputByte = 6

// MinInput is the least input Bound limits: smaller inputs leave the
// collector as it is.
const MinInput = 4 << 20

var mu sync.Mutex

// Bound sets the Go runtime's soft memory limit to what the process holds
// now (after a collection that returns free memory to the system) plus PerInputByte times total bytes of input, when total is at
// least MinInput, and returns the func that restores the limit before.
// A limit already set (GOMEMLIMIT, or an enclosing Bound) is left alone.
// The limit is soft: work that needs more gets it, at the cost of more
// frequent collections.
func Bound(total int) (restore func()) {
	if total < MinInput {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	if prev := debug.SetMemoryLimit(-1); prev != math.MaxInt64 {
		return func() {}
	}
	// What the process holds now, without the garbage and the free
	// memory it has not returned yet: the input's share is on top.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + int64(total)*PerInputByte)
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			debug.SetMemoryLimit(math.MaxInt64)
		})
	}
}

// MinRelease is the least input Release acts on: below it, the garbage
// the work leaves is not worth a full collection.
const MinRelease = 256 << 10

// Release returns to the system the memory that work on total bytes of
// input has finished with (a collection, then debug.FreeOSMemory), when
// total is at least MinRelease. A long-running process calls it once the
// work is done and its garbage unreachable, so that it holds what it
// keeps rather than the peak of the work until the runtime's scavenger
// gets round to it.
func Release(total int) {
	if total >= MinRelease {
		debug.FreeOSMemory()
	}
}

// DaemonGCPercent is the collector's target for a daemon (GOGC): the heap
// may grow by a quarter of what is live before a collection, not by all
// of it. A scheduler's heap is mostly what it holds (its jobs), its
// garbage small and steady, so collecting more often costs little CPU
// (large loads are bounded by Bound anyway) and keeps the memory it holds
// near what it uses: 10,000 jobs settle about 6 MB lower than at 50 and
// 100,000 about 80 MB lower than at 100 (docs/performance.md).
const DaemonGCPercent = 25

// TuneDaemon sets the collector's target to DaemonGCPercent, unless the
// GOGC environment variable (read through getenv) chooses one.
func TuneDaemon(getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(DaemonGCPercent)
}
