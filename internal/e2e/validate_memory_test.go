package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// manifestShapes are the large manifests validate's memory is measured on:
// each writes statements while the builder is smaller than size.
var manifestShapes = []struct {
	name  string
	write func(b *strings.Builder, i int)
}{
	// Chains of execs with files and notifies, as a generated site
	// manifest looks.
	{"mixed", func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "exec { 'step-%d':\n  command => '/usr/bin/env echo step %d && /bin/true',\n  path    => ['/usr/bin', '/bin'],\n  creates => '/var/lib/app/marker-%d',\n", i, i, i)
		if i > 0 {
			fmt.Fprintf(b, "  require => Exec['step-%d'],\n", i-1)
		}
		fmt.Fprintf(b, "}\nfile { '/etc/app/conf-%d.d':\n  ensure => directory,\n  mode   => '0755',\n}\nnotify { \"message %d\": message => \"configured number %d\", }\n", i, i, i)
	}},
	// exec resources with four attributes each.
	{"exec", func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "exec { 'step-%d':\n  command => '/usr/bin/env echo step %d',\n  path    => ['/usr/bin', '/bin'],\n  creates => '/var/lib/app/marker-%d',\n  timeout => 30,\n}\n", i, i, i)
	}},
	// The smallest resources there are: the cost per resource dominates.
	{"notify", func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "notify { 'n%d': }\n", i)
	}},
}

// writeShape writes a manifest of the given shape, of about size bytes,
// to a file in dir and returns its path and exact size.
func writeShape(tb testing.TB, dir string, write func(*strings.Builder, int), size int) (string, int) {
	tb.Helper()
	var b strings.Builder
	b.Grow(size + 256)
	for i := 0; b.Len() < size; i++ {
		write(&b, i)
	}
	p := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p, b.Len()
}

// maxPeakPerInputByte bounds validate's peak resident memory relative to the
// size of its input, for every shape of manifestShapes.
const maxPeakPerInputByte = 10

// TestValidateMemoryBound runs `almanac validate` on a 10 MB manifest of
// each shape and checks its peak resident memory (from the kernel's rusage)
// stays under maxPeakPerInputByte times the input.
func TestValidateMemoryBound(t *testing.T) {
	bin := almanacBinary(t)
	for _, shape := range manifestShapes {
		t.Run(shape.name, func(t *testing.T) {
			p, size := writeShape(t, t.TempDir(), shape.write, 10<<20)
			out, peak, err := peakRSS(bin, "validate", p)
			if err != nil {
				t.Fatalf("validate: %v\n%s", err, out)
			}
			ratio := float64(peak) / float64(size)
			t.Logf("validate of %d MB: %s peak RSS %d MB (%.1f× the input)", size>>20, strings.TrimSpace(string(out)), peak>>20, ratio)
			if ratio >= maxPeakPerInputByte {
				t.Errorf("peak RSS %d MB is %.1f times the %d MB input, not under %d", peak>>20, ratio, size>>20, maxPeakPerInputByte)
			}
		})
	}
}

// BenchmarkValidate10MB runs `almanac validate` on a 10 MB manifest of each
// shape and reports its peak resident memory per byte of input
// (peak-B/input-B) besides the time of the whole process.
func BenchmarkValidate10MB(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binary; skipped with -short")
	}
	bin := servetest.Binary(b)
	for _, shape := range manifestShapes {
		b.Run(shape.name, func(b *testing.B) {
			p, size := writeShape(b, b.TempDir(), shape.write, 10<<20)
			var worst int64
			b.ResetTimer()
			for b.Loop() {
				out, peak, err := peakRSS(bin, "validate", p)
				if err != nil {
					b.Fatalf("validate: %v\n%s", err, out)
				}
				worst = max(worst, peak)
			}
			b.ReportMetric(float64(worst)/float64(size), "peak-B/input-B")
			b.ReportMetric(float64(worst)/(1<<20), "peak-MB")
		})
	}
}

// peakRSSHelperEnv makes the test binary run peakRSSHelper instead of the
// tests (see TestMain).
const peakRSSHelperEnv = "ALMANAC_TEST_PEAK_RSS_ARGS"

// peakRSS runs bin with args and returns its output and its peak resident
// memory in bytes; err is bin's exit (an *exec.ExitError for a non-zero
// status), the peak is measured either way. The kernel's ru_maxrss of a
// child includes the memory of the process it was started from (the
// parent's address space until exec), so a large test process would be
// measured instead of bin: bin is started from a fresh, small copy of the
// test binary, which reports the figure on its last line of output and
// exits with bin's status.
func peakRSS(bin string, args ...string) (out []byte, peak int64, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, err
	}
	enc, err := json.Marshal(append([]string{bin}, args...))
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.Command(self, "-test.run=^$", string(enc))
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=", "GOGC=", peakRSSHelperEnv+"=1")
	out, runErr := cmd.CombinedOutput()
	text := strings.TrimRight(string(out), "\n")
	i := strings.LastIndexByte(text, '\n')
	if _, err := fmt.Sscanf(text[i+1:], "peak-rss %d", &peak); err != nil {
		return out, 0, fmt.Errorf("no peak-rss line in %q (%v): %w", text, runErr, err)
	}
	return []byte(text[:i+1]), peak, runErr
}

// peakRSSHelper runs the command encoded in argsJSON, copies its output,
// and prints its peak resident memory as "peak-rss BYTES"; it returns the
// command's exit code.
func peakRSSHelper(argsJSON string) int {
	var argv []string
	if err := json.Unmarshal([]byte(argsJSON), &argv); err != nil || len(argv) == 0 {
		fmt.Println("peak-rss helper: bad arguments:", argsJSON)
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Println("peak-rss helper:", err)
			return 1
		}
		code = ee.ExitCode()
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Println("peak-rss helper: no rusage on this system")
		return 1
	}
	fmt.Printf("peak-rss %d\n", ru.Maxrss*1024) // kilobytes on Linux
	return code
}
