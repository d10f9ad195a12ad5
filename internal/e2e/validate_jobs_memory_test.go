package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// jobShapes are manifests of many small job resources, the shape a
// generator writes: valid ones, and ones whose every job has a cron
// expression the controller refuses, so that each job is an error found
// only once the jobs are converted.
var jobShapes = []struct {
	name  string
	valid bool
	write func(b *strings.Builder, i int)
}{
	{"valid", true, func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "job { 'j%d': cron => '0 3 * * *', command => 'true %d' }\n", i, i)
	}},
	{"invalid", false, func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "job { 'j%d': cron => '99 3 * * *', command => 'true %d' }\n", i, i)
	}},
}

// maxJobsPeakPerInputByte bounds what `almanac validate` adds to its peak
// resident memory per byte of a manifest of many jobs, beyond what it
// takes for a manifest of one job. Converting every job to a spec twice
// and listing every error took about 30 bytes per byte of input; checking
// each job as it is converted and listing the first manifest.MaxErrors
// takes under 7.
const maxJobsPeakPerInputByte = 9

// maxServePeakPerInputByte is maxJobsPeakPerInputByte for `almanac serve
// --manifests` refusing the manifest: it holds the catalog while it
// converts the jobs (about 10 bytes per byte; it was 55).
const maxServePeakPerInputByte = 12

// TestManyJobsMemoryBound runs `almanac validate` and `almanac serve
// --manifests` on a manifest of many jobs, valid and invalid, and checks
// the memory each takes beyond a one-job manifest's stays under
// maxJobsPeakPerInputByte (maxServePeakPerInputByte) times the input, and that a refusal lists at
// most manifest.MaxErrors errors while counting them all. The manifest is
// 5 MiB (about 80,000 jobs); with ALMANAC_SLOW=1 it is just under the
// 16 MiB limit on a manifest (about 260,000 jobs), where validate's whole
// peak, the program included, also stays under maxPeakPerInputByte times
// the input.
func TestManyJobsMemoryBound(t *testing.T) {
	bin := almanacBinary(t)
	size := 5 << 20
	if os.Getenv("ALMANAC_SLOW") == "1" {
		size = 16<<20 - 256
	}
	// The baselines: each command on a manifest of one invalid job.
	one := t.TempDir()
	if err := os.WriteFile(filepath.Join(one, "site.pp"), []byte("job { 'j': cron => '99 3 * * *', command => 'true' }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, validateBase, err := peakRSS(bin, "validate", filepath.Join(one, "site.pp"))
	if err == nil {
		t.Fatal("validate accepted an invalid job")
	}
	_, serveBase, err := peakRSS(bin, "serve", "--data", filepath.Join(one, "data"), "--listen", "127.0.0.1:0", "--manifests", one)
	if err == nil {
		t.Fatal("serve accepted an invalid job")
	}
	for _, shape := range jobShapes {
		t.Run(shape.name, func(t *testing.T) {
			dir := t.TempDir()
			p, n := writeShape(t, dir, shape.write, size)
			text, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			jobs := strings.Count(string(text), "\n")
			check := func(t *testing.T, what string, out []byte, peak, base int64, bound float64) {
				t.Helper()
				perByte := float64(peak-base) / float64(n)
				t.Logf("%s of %d jobs (%.1f MB): peak RSS %d MB, %.1f bytes per input byte beyond one job's %d MB",
					what, jobs, float64(n)/(1<<20), peak>>20, perByte, base>>20)
				if perByte >= bound {
					t.Errorf("%s: peak RSS %d MB is %.1f bytes per input byte beyond one job's %d MB, not under %g",
						what, peak>>20, perByte, base>>20, bound)
				}
				if what == "validate" && size > 8<<20 && float64(peak)/float64(n) >= maxPeakPerInputByte {
					t.Errorf("%s: peak RSS %d MB is not under %d times the %d MB input", what, peak>>20, maxPeakPerInputByte, n>>20)
				}
				if shape.valid {
					return
				}
				want := fmt.Sprintf("%d errors", jobs)
				if !strings.Contains(string(out), want) {
					t.Errorf("%s: the output does not count %q:\n%.2000s", what, want, out)
				}
				if lines := strings.Count(string(out), "\n"); lines > manifest.MaxErrors+10 {
					t.Errorf("%s: %d lines of output for %d errors, want at most the first %d and a count", what, lines, jobs, manifest.MaxErrors)
				}
			}

			out, peak, err := peakRSS(bin, "validate", p)
			if shape.valid != (err == nil) {
				t.Fatalf("validate: %v\n%.2000s", err, out)
			}
			check(t, "validate", out, peak, validateBase, maxJobsPeakPerInputByte)
			if shape.valid {
				return // serve would accept and run them
			}
			mdir := filepath.Join(dir, "manifests")
			if err := os.Mkdir(mdir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p, filepath.Join(mdir, "site.pp")); err != nil {
				t.Fatal(err)
			}
			out, peak, err = peakRSS(bin, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--manifests", mdir)
			if err == nil {
				t.Fatalf("serve accepted %d invalid jobs:\n%.2000s", jobs, out)
			}
			check(t, "serve --manifests", out, peak, serveBase, maxServePeakPerInputByte)
		})
	}
}
