package cli

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestServeConfigTrust checks that serve refuses a --config file another
// user could have written (group- or world-writable, or owned by another
// user than root and the daemon's), with one line naming the file and the
// fix, and warns when a file holding secrets is readable by others.
func TestServeConfigTrust(t *testing.T) {
	t.Parallel()
	const token = "token = \"s3cr3t-token-value-that-is-long-enough\"\n"
	const hook = "notify_default = [\"slack+https://hooks.slack.com/services/T/B/X\"]\n"
	tests := []struct {
		name  string
		src   string
		mode  os.FileMode
		owner string // a user to chown the file to
		err   string // "" when accepted
		warn  string // "" when silent
	}{
		{name: "private", src: token, mode: 0o600},
		{name: "group may read", src: token, mode: 0o640},
		{name: "no secrets, world-readable", src: "grace = \"5s\"\n", mode: 0o644},
		{name: "group-writable", src: "grace = \"5s\"\n", mode: 0o660, err: "writable by its group or others (mode 0660)"},
		{name: "world-writable", src: "grace = \"5s\"\n", mode: 0o606, err: "writable by its group or others (mode 0606)"},
		{name: "world-writable with a token", src: token, mode: 0o666, err: "chmod go-w"},
		{name: "token readable by others", src: token, mode: 0o644, warn: "holds secrets (token) and others may read it (mode 0644)"},
		{name: "webhook readable by others", src: hook + token, mode: 0o604, warn: "holds secrets (notify_default, token)"},
		{name: "owned by another user", src: "grace = \"5s\"\n", mode: 0o600, owner: "nobody", err: "neither root nor this process's user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "almanac.toml")
			if err := os.WriteFile(file, []byte(tt.src), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, tt.mode); err != nil {
				t.Fatal(err)
			}
			if tt.owner != "" {
				u, err := user.Lookup(tt.owner)
				if err != nil || os.Geteuid() != 0 {
					t.Skipf("chown to %s needs root and the user (%v)", tt.owner, err)
				}
				uid, _ := strconv.Atoi(u.Uid)
				if err := os.Chown(file, uid, -1); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			code := Main(t.Context(), []string{"serve", "--config", file, "--print-config"}, &out, &errOut)
			stderr := errOut.String()
			if tt.err != "" {
				if code != exitUsage || !strings.Contains(stderr, file+": ") || !strings.Contains(stderr, tt.err) || strings.Count(stderr, "\n") != 1 {
					t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, stderr, exitUsage, tt.err)
				}
				return
			}
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			switch {
			case tt.warn == "" && stderr != "":
				t.Errorf("stderr %q, want nothing", stderr)
			case tt.warn != "" && (!strings.Contains(stderr, "warning: --config "+file+" "+tt.warn) || strings.Count(stderr, "\n") != 1):
				t.Errorf("stderr %q, want one warning with %q", stderr, tt.warn)
			}
			if strings.Contains(out.String(), "s3cr3t") || strings.Contains(out.String(), "services/T") {
				t.Errorf("--print-config shows a secret:\n%s", out.String())
			}
		})
	}
}
