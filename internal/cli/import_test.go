package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportThenValidate imports each sample file and checks that the
// manifest printed passes `almanac validate`, that warnings go to stderr
// and that bad invocations are usage errors.
func TestImportThenValidate(t *testing.T) {
	tests := []struct {
		args      []string
		jobs      int
		warning   string
		wantCode  int
		wantError string
	}{
		{args: []string{"import", "crontab", "--user", "web", "../../testdata/import/user.crontab"}, jobs: 5, warning: "@reboot runs once when cron starts"},
		{args: []string{"import", "crontab", "--system", "--tz", "Europe/Berlin", "../../testdata/import/etc-crontab"}, jobs: 5, warning: "read in Europe/Berlin"},
		{args: []string{"import", "crontab", "../../testdata/import/etc-crontab"}, wantCode: exitUsage, wantError: "pass --system"},
		{args: []string{"import", "crontab", "--system=false", "--prefix", "x", "../../testdata/import/etc-crontab"}, jobs: 5, warning: "note:"},
		{args: []string{"import", "cronjob", "../../testdata/import/cronjobs.yaml"}, jobs: 3, warning: "a ConfigMap, not a CronJob"},
		{args: []string{"import", "cronjob", "--system", "x.yaml"}, wantCode: exitUsage, wantError: "--system applies to crontab only"},
		{args: []string{"import", "crontab", "--container-runtime", "podman", "x"}, wantCode: exitUsage, wantError: "applies to cronjob only"},
		{args: []string{"import", "crontab", "--tz", "Mars/Base", "../../testdata/import/user.crontab"}, wantCode: exitUsage, wantError: "Mars/Base"},
		{args: []string{"import", "anacron", "x"}, wantCode: exitUsage, wantError: "usage"},
		{args: []string{"import", "timer", "--tz", "Europe/Berlin", "../../testdata/import-timer/backup.timer"}, jobs: 1, warning: "Nice=: no almanac equivalent"},
		{args: []string{"import", "timer", "../../testdata/import-timer/report.timer", "../../testdata/import-timer/mail-report.service"}, jobs: 1, warning: "monotonic part"},
		{args: []string{"import", "timer", "../../testdata/import-timer"}, jobs: 4, warning: "not importable"},
		{args: []string{"import", "timer", "../../testdata/import-timer/cache-warm.timer"}, wantCode: exitFailure, wantError: "no entry that could be imported"},
		{args: []string{"import", "timer", "../../testdata/import-timer/backup.service"}, wantCode: exitUsage, wantError: "not a .timer unit"},
		{args: []string{"import", "timer", "../../testdata/import-timer", "x.service"}, wantCode: exitUsage, wantError: "name no service"},
		{args: []string{"import", "cronjob", "--container-runtime", "podman", "../../testdata/import/cronjobs-mixed.yaml"}, jobs: 3, wantCode: exitFailure, warning: "document 3: found unexpected end of stream"},
		{args: []string{"import", "cronjob", "--container-runtime", "lxc", "../../testdata/import/cronjobs.yaml"}, wantCode: exitUsage, wantError: "want podman or docker"},
		// www-data is an account of every Debian host (base-passwd).
		{args: []string{"import", "crontab", "../../testdata/import-cron/www-data.crontab"}, wantCode: exitUsage, wantError: "starts with www-data, the name of an account on this host"},
		{args: []string{"import", "crontab", "--system", "../../testdata/import-cron/www-data.crontab"}, jobs: 1, warning: "note:"},
		{args: []string{"import", "cronjob", "../../testdata/import-kubectl/cronjobs-list.yaml"}, jobs: 3, warning: "imported as a manual job"},
		{args: []string{"import", "cronjob", "--container-runtime", "docker", "../../testdata/import-kubectl/cronjobs-list.yaml"}, jobs: 3, warning: "BUCKET differs"},
		{args: []string{"import", "crontab", "/dev/zero"}, wantCode: exitUsage, wantError: "not a regular file"},
		{args: []string{"import", "crontab", "--user", "4294967296", "../../testdata/import/user.crontab"}, wantCode: exitUsage, wantError: "--user: user id 4294967296 is out of range"},
		{args: []string{"import", "crontab", "--user", "4294967297", "../../testdata/import/user.crontab"}, wantCode: exitUsage, wantError: "--user: user id 4294967297 is out of range"},
		{args: []string{"import", "crontab", "--user", "-1", "../../testdata/import/user.crontab"}, wantCode: exitUsage, wantError: "--user: user \"-1\" is not a numeric id"},
		{args: []string{"import", "crontab", "--user", "9223372036854775808", "../../testdata/import/user.crontab"}, wantCode: exitUsage, wantError: "--user: user id 9223372036854775808 is out of range"},
		{args: []string{"import", "crontab", "../../testdata/import/cronjobs.yaml"}, wantCode: exitFailure, wantError: "no entry that could be imported"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if tt.wantError != "" {
				if code != tt.wantCode || !strings.Contains(errOut, tt.wantError) {
					t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tt.wantCode, tt.wantError)
				}
				return
			}
			if code != tt.wantCode || !strings.Contains(errOut, tt.warning) {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			p := filepath.Join(t.TempDir(), "imported.pp")
			if err := os.WriteFile(p, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			vout, verr, vcode := runCLI(t, "validate", p)
			if vcode != 0 {
				t.Fatalf("validate of the import: exit %d\n%s\n%s", vcode, verr, out)
			}
			if n := strings.Count(out, "\njob { "); n != tt.jobs {
				t.Errorf("%d jobs imported, want %d (validate: %s)", n, tt.jobs, strings.TrimSpace(vout))
			}
		})
	}
}
