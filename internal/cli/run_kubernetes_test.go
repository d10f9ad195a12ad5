package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunKubernetesFlagsRefused: run's --kubernetes-* flags are refused,
// with a usage error naming what is wrong, before any daemon is asked.
func TestRunKubernetesFlagsRefused(t *testing.T) {
	tpl := filepath.Join(t.TempDir(), "tpl.yaml")
	if err := os.WriteFile(tpl, []byte("spec: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"with a command", []string{"--kubernetes-namespace", "a", "--kubernetes-template", tpl, "--", "true"}, "not a COMMAND"},
		{"no template", []string{"--kubernetes-namespace", "a"}, "needs --kubernetes-namespace and --kubernetes-template"},
		{"no namespace", []string{"--kubernetes-template", tpl}, "needs --kubernetes-namespace and --kubernetes-template"},
		{"missing file", []string{"--kubernetes-namespace", "a", "--kubernetes-template", tpl + ".missing"}, "--kubernetes-template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "k", "--schedule", "0 3 * * *", "--server", "http://127.0.0.1:1", "--token", "x"}, tc.args...)
			_, errOut, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %q", code, errOut, exitUsage, tc.want)
			}
		})
	}
}
