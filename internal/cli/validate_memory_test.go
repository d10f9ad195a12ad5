package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/almanac-sh/almanac/internal/testenv"
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
	cmd := exec.Command(bin, "validate", p)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=", "GOGC=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		testenv.Need(t, "getrusage", "run on Linux", errors.New("no rusage on this system"))
	}
	peak := ru.Maxrss * 1024 // kilobytes on Linux
	t.Logf("validate of %d MB: %s peak RSS %d MB (%.1f× the input)", size>>20, strings.TrimSpace(string(out)), peak>>20, float64(peak)/size)
	if peak > 20*size {
		t.Errorf("peak RSS %d MB is more than 20 times the %d MB input", peak>>20, size>>20)
	}
}
