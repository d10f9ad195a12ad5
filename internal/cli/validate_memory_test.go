package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeBigManifest writes a realistic manifest of about size bytes: chains
// of execs with files and notifies, as a generated site manifest looks.
func writeBigManifest(t *testing.T, size int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "exec { 'step-%d':\n  command => '/usr/bin/env echo step %d && /bin/true',\n  path    => ['/usr/bin', '/bin'],\n  creates => '/var/lib/app/marker-%d',\n", i, i, i)
		if i > 0 {
			fmt.Fprintf(&b, "  require => Exec['step-%d'],\n", i-1)
		}
		fmt.Fprintf(&b, "}\nfile { '/etc/app/conf-%d.d':\n  ensure => directory,\n  mode   => '0755',\n}\nnotify { \"message %d\": message => \"configured number %d\", }\n", i, i, i)
	}
	p := filepath.Join(t.TempDir(), "site.pp")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestValidateMemoryBound runs `almanac validate` on a 10 MB manifest and
// checks its peak resident memory (from the kernel's rusage) stays under
// 20 times the input.
func TestValidateMemoryBound(t *testing.T) {
	bin := almanacBinary(t)
	const size = 10 << 20
	p := writeBigManifest(t, size)
	out, peak, err := peakRSS(bin, "validate", p)
	if err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	t.Logf("validate of %d MB: %s peak RSS %d MB (%.1f× the input)", size>>20, strings.TrimSpace(string(out)), peak>>20, float64(peak)/size)
	if peak > 20*size {
		t.Errorf("peak RSS %d MB is more than 20 times the %d MB input", peak>>20, size>>20)
	}
}

// peakRSSHelperEnv makes the test binary run peakRSSHelper instead of the
// tests (see TestMain).
const peakRSSHelperEnv = "ALMANAC_TEST_PEAK_RSS_ARGS"

// peakRSS runs bin with args and returns its output and its peak resident
// memory in bytes. The kernel's ru_maxrss of a child includes the memory
// of the process it was started from (the parent's address space until
// exec), so a large test process would be measured instead of bin: bin is
// started from a fresh, small copy of the test binary, which reports the
// figure on its last line of output.
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
	out, err = cmd.CombinedOutput()
	if err != nil {
		return out, 0, err
	}
	text := strings.TrimRight(string(out), "\n")
	i := strings.LastIndexByte(text, '\n')
	if _, err := fmt.Sscanf(text[i+1:], "peak-rss %d", &peak); err != nil {
		return out, 0, fmt.Errorf("no peak-rss line in %q: %w", text, err)
	}
	return []byte(text[:i+1]), peak, nil
}

// peakRSSHelper runs the command encoded in argsJSON, copies its output,
// and prints its peak resident memory as "peak-rss BYTES"; it returns the
// exit code.
func peakRSSHelper(argsJSON string) int {
	var argv []string
	if err := json.Unmarshal([]byte(argsJSON), &argv); err != nil || len(argv) == 0 {
		fmt.Println("peak-rss helper: bad arguments:", argsJSON)
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Println("peak-rss helper:", err)
		return 1
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Println("peak-rss helper: no rusage on this system")
		return 1
	}
	fmt.Printf("peak-rss %d\n", ru.Maxrss*1024) // kilobytes on Linux
	return 0
}
