package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok := write("token", "file-token-0123456789abcdef\n")
	empty := write("empty", "\n")
	big := write("big", strings.Repeat("x", maxSecretFile+1))
	pw := write("pw", "mail-password\n")
	tests := []struct {
		name  string
		args  []string
		err   string
		token string
	}{
		{name: "token from a file", args: []string{"--token-file", tok}, token: "file-token-0123456789abcdef"},
		{name: "token and token file", args: []string{"--token-file", tok, "--token", "x-0123456789abcdef"}, err: "--token and --token-file exclude each other"},
		{name: "insecure and token file", args: []string{"--token-file", tok, "--insecure-no-auth"}, err: "--insecure-no-auth and --token-file exclude each other"},
		{name: "missing file", args: []string{"--token-file", filepath.Join(dir, "nope")}, err: "--token-file: " + filepath.Join(dir, "nope") + ": no such file"},
		{name: "empty file", args: []string{"--token-file", empty}, err: "is empty"},
		{name: "huge file", args: []string{"--token-file", big}, err: "larger than"},
		{name: "smtp user without password", args: []string{"--smtp", "mail:25", "--smtp-from", "a@example.com", "--smtp-user", "u"}, err: "go together"},
		{name: "smtp auth without server", args: []string{"--smtp-user", "u", "--smtp-password-file", pw}, err: "--smtp-user needs --smtp"},
		{name: "smtp auth", args: []string{"--smtp", "mail:25", "--smtp-from", "a@example.com", "--smtp-user", "u", "--smtp-password-file", pw}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config(t, append([]string{"--data", dir}, tt.args...)...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.token != "" && cfg.token != tt.token {
				t.Errorf("token = %q, want %q", cfg.token, tt.token)
			}
			if cfg.secrets.smtpUser != "" && (cfg.secrets.smtpPassword != "mail-password" || cfg.secrets.smtpAuth(cfg.fleet.smtp) == nil) {
				t.Errorf("smtp password %q", cfg.secrets.smtpPassword)
			}
		})
	}
}
