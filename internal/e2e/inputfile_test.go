package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInputsAreBounded checks that commands reading user files refuse
// devices, FIFOs and oversized files at once, with exit status 2, instead
// of reading forever or blocking.
func TestInputsAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.pp")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tomlFifo := filepath.Join(dir, "w.toml")
	if err := syscall.Mkfifo(tomlFifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pp")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   string // ALMANAC_MAX_FILE_SIZE
		args  []string
		wants string
	}{
		{"validate a device", "", []string{"validate", "/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"validate a fifo", "", []string{"validate", fifo}, "x.pp: not a regular file (a named pipe)"},
		{"apply a fifo", "", []string{"apply", "--noop", fifo}, "x.pp: not a regular file (a named pipe)"},
		{"windows a device", "", []string{"windows", "/dev/zero"}, "not a regular file"},
		{"windows a fifo", "", []string{"windows", tomlFifo}, "not a regular file (a named pipe)"},
		{"over the limit", "1KiB", []string{"validate", big}, "file too large: 2000 bytes, over the 1024-byte limit"},
		{"bad limit", "lots", []string{"validate", big}, "ALMANAC_MAX_FILE_SIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ALMANAC_MAX_FILE_SIZE", tt.env)
			_, errOut, code := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.wants) {
				t.Fatalf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, exitUsage, tt.wants)
			}
		})
	}
}

// TestServeRefusesFIFOManifest checks that a FIFO among the manifests
// stops serve with a message instead of hanging before it listens.
func TestServeRefusesFIFOManifest(t *testing.T) {
	bin := almanacBinary(t)
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "x.pp"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--manifests", dir)
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatal("serve hung on a FIFO in --manifests")
	}
	if err == nil || !strings.Contains(string(out), "x.pp: not a regular file (a named pipe)") {
		t.Fatalf("serve with a FIFO manifest: %v\n%s", err, out)
	}
}
