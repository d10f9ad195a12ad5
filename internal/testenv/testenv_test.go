package testenv

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNeed runs a test that needs a missing dependency in a child process,
// strict and not, and checks it fails in one case and skips in the other.
func TestNeed(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Need(t, "a unicorn", "apt-get install unicorn", errors.New("not found"))
		t.Fatal("Need returned for a missing dependency")
	}
	tests := []struct {
		name   string
		strict string
		fails  bool
		output string
	}{
		{"strict", "1", true, "--- FAIL"},
		{"plain", "", false, "--- SKIP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestNeed$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", StrictVar+"="+tt.strict)
			out, err := cmd.CombinedOutput()
			if (err != nil) != tt.fails || !strings.Contains(string(out), tt.output) || !strings.Contains(string(out), "needs a unicorn") ||
				!strings.Contains(string(out), "apt-get install unicorn") {
				t.Fatalf("strict=%q: err %v, output:\n%s", tt.strict, err, out)
			}
		})
	}
	Need(t, "nothing", "", nil) // a present dependency lets the test go on
}
