package daemon

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/apitoken"
)

// TestTokenFile: a blank token file is a usage error (exit 2), and one
// other users may read is used with a warning, as ssh warns of a key.
func TestTokenFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		usage   bool
		warn    bool
	}{
		{"blank", " \n", 0o600, true, false},
		{"private", "a-good-token\n", 0o600, false, false},
		{"readable by all", "a-good-token\n", 0o644, false, true},
		{"readable by the group", "a-good-token\n", 0o640, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			if err := os.WriteFile(apitoken.Path(data), []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(apitoken.Path(data), tt.mode); err != nil {
				t.Fatal(err)
			}
			cfg, err := config(t, "--data", data, "--listen", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var errOut bytes.Buffer
			cfg.ErrOut = &errOut
			d, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err == nil {
				d.close()
			}
			var u *UsageError
			if tt.usage != errors.As(err, &u) {
				t.Fatalf("New = %v, want a usage error %v", err, tt.usage)
			}
			if got := strings.Contains(errOut.String(), "WARNING"); got != tt.warn {
				t.Errorf("warning %v, want %v: %q", got, tt.warn, errOut.String())
			}
		})
	}
}
