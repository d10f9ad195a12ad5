package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chainLength is how many execs BenchmarkApplyExecChain chains.
const chainLength = 2000

// BenchmarkApplyExecChain is `almanac apply` of chainLength exec resources
// of /bin/true, each requiring the one before, against the floor: the same
// number of fork+exec of /bin/true from Go (exec.Command(...).Run()), timed
// in the same iteration so that both see the same machine. It reports each
// as ms per chain and their ratio as x-floor.
func BenchmarkApplyExecChain(b *testing.B) {
	if testing.Short() {
		b.Skip("runs thousands of processes")
	}
	var src strings.Builder
	for i := range chainLength {
		// A distinct title each (the same command), as a manifest of
		// chained steps would have.
		fmt.Fprintf(&src, "exec { 'step %d':\n  command => '/bin/true',\n", i)
		if i > 0 {
			fmt.Fprintf(&src, "  require => Exec['step %d'],\n", i-1)
		}
		src.WriteString("}\n")
	}
	file := filepath.Join(b.TempDir(), "chain.pp")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var floor, apply time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range chainLength {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		if code := Main(ctx, []string{"apply", file}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("apply exited %d", code)
		}
		floor, apply = floor+t1.Sub(t0), apply+time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(floor.Milliseconds())/n, "floor-ms/op")
	b.ReportMetric(float64(apply.Milliseconds())/n, "apply-ms/op")
	b.ReportMetric(float64(apply)/float64(floor), "x-floor")
}
