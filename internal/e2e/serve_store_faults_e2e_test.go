package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestServeRefusesLostDatabase checks that serve neither starts on a
// damaged database nor silently starts empty when its database vanished,
// and that --reset sets the old file aside and starts.
func TestServeRefusesLostDatabase(t *testing.T) {
	bin := almanacBinary(t)
	tests := []struct {
		name   string
		damage func(t *testing.T, db string)
		wants  string
	}{
		{"deleted", func(t *testing.T, db string) {
			if err := os.Remove(db); err != nil {
				t.Fatal(err)
			}
		}, "does not exist"},
		{"emptied", func(t *testing.T, db string) {
			if err := os.Truncate(db, 0); err != nil {
				t.Fatal(err)
			}
		}, "is empty"},
		{"overwritten", func(t *testing.T, db string) {
			if err := os.WriteFile(db, []byte(strings.Repeat("garbage ", 1000)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			d := startDaemon(t, bin, data)
			d.cli(t, bin, "run", "keep", "--schedule", "0 3 * * *", "--", "true")
			d.stop(t)
			db := filepath.Join(data, sqlitestore.FileName)
			tt.damage(t, db)

			t.Setenv("ALMANAC_TOKEN", e2eToken)
			_, errOut, code := runCLI(t, "serve", "--data", data, "--listen", "127.0.0.1:0")
			if code != 1 || !strings.Contains(errOut, tt.wants) || !strings.Contains(errOut, "--reset") {
				t.Fatalf("serve on a %s database: exit %d, %q", tt.name, code, errOut)
			}

			d = startDaemon(t, bin, data, "--reset")
			if out := d.cli(t, bin, "get", "jobs"); strings.Contains(out, "keep") {
				t.Errorf("after --reset the old job is still listed:\n%s", out)
			}
			aside, _ := filepath.Glob(db + ".broken-*")
			if tt.name != "deleted" && len(aside) == 0 {
				t.Error("--reset left no set-aside copy of the old database")
			}
		})
	}
}
