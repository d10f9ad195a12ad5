package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's CPU time: on a shared, loaded machine it
// measures the work better than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// typicalManifests are hand-written manifests of the kind users keep in a
// repository: the examples and the golden test cases that compile.
func typicalManifests(tb testing.TB) map[string][]byte {
	tb.Helper()
	var files []string
	for _, glob := range []string{"../../examples/manifests/*.pp", "../../testdata/validate/*.pp", "../../testdata/apply/*/*.pp"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "err_") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[f] = src
	}
	if len(out) < 10 {
		tb.Fatalf("only %d manifests found", len(out))
	}
	return out
}

// BenchmarkParseTypical lexes and parses every typical manifest once per
// operation; MB/s is the lex+parse throughput on ordinary files.
func BenchmarkParseTypical(b *testing.B) {
	srcs := typicalManifests(b)
	total := 0
	for name, src := range srcs {
		total += len(src)
		if _, err := ParseFile(name, src); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	start := cpuTime()
	defer func() {
		cpu := float64((cpuTime() - start).Nanoseconds()) / float64(b.N)
		b.ReportMetric(cpu, "cpu-ns/op")
		b.ReportMetric(float64(total)/cpu*1e3, "cpu-MB/s")
	}()
	for b.Loop() {
		for name, src := range srcs {
			if _, err := ParseFile(name, src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
