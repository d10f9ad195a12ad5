package catalog

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// generateManifest builds a manifest of n exec resources plus sinks for
// collectors, wired by every kind of relationship: a require metaparameter
// (i-1 -> i), a before metaparameter (i -> i+2), a notifying arrow
// (i ~> i+5) and collectors matching tags. All edges point forward, so the
// graph has no cycle.
func generateManifest(n, collectors int) []byte {
	var b strings.Builder
	b.WriteString("Exec { path => '/usr/bin:/bin', timeout => 60 }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "exec { 'r%d':\n  command => \"/usr/bin/step %d\",\n  tag => 't%d',\n", i, i, i%collectors)
		if i > 0 {
			fmt.Fprintf(&b, "  require => Exec['r%d'],\n", i-1)
		}
		if i+2 < n {
			fmt.Fprintf(&b, "  before => [Exec['r%d']],\n", i+2)
		}
		b.WriteString("}\n")
		if i+5 < n {
			fmt.Fprintf(&b, "Exec['r%d'] ~> Exec['r%d']\n", i, i+5)
		}
	}
	for k := 0; k < collectors; k++ {
		fmt.Fprintf(&b, "notify { 'sink%d': }\nExec <| tag == 't%d' |> -> Notify['sink%d']\n", k, k, k)
	}
	return []byte(b.String())
}

func TestGeneratedManifestShape(t *testing.T) {
	src := generateManifest(10000, 100)
	f, err := manifest.ParseFile("gen.pp", src)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cat.Resources()); got != 10100 {
		t.Errorf("%d resources", got)
	}
	if got := len(cat.Relationships()); got < 30000 {
		t.Errorf("%d relationships, want >= 30000", got)
	}
	if c := cat.Cycles(); len(c) != 0 {
		t.Errorf("cycles: %v", c[:1])
	}
}

// BenchmarkCompile10k parses, compiles and cycle-checks a generated
// 10,000-resource manifest with about 31,000 relationships: everything
// `almanac validate` does.
func BenchmarkCompile10k(b *testing.B) {
	src := generateManifest(10000, 100)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		f, err := manifest.ParseFile("gen.pp", src)
		if err != nil {
			b.Fatal(err)
		}
		cat, err := Compile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(cat.Cycles()) != 0 {
			b.Fatal("cycle")
		}
	}
}

// BenchmarkCycles10k finds the cycles of a compiled 10,000-resource
// catalog (none), the check every validate and apply makes.
func BenchmarkCycles10k(b *testing.B) {
	f, err := manifest.ParseFile("gen.pp", generateManifest(10000, 100))
	if err != nil {
		b.Fatal(err)
	}
	cat, err := Compile(f)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(cat.CycleDetails()) != 0 {
			b.Fatal("cycle")
		}
	}
}

// BenchmarkParse measures lexing and parsing alone, in bytes per second.
func BenchmarkParse(b *testing.B) {
	src := generateManifest(10000, 100)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := manifest.ParseFile("gen.pp", src); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU adds the process CPU time per operation as a metric: on a busy
// shared machine wall time overstates the cost, CPU time does not.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
