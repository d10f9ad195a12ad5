package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/cli"
	"github.com/almanac-sh/almanac/internal/servetest"
	"github.com/almanac-sh/almanac/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }

// unitSetting returns the value of key in the unit file's text.
func unitSetting(t *testing.T, unit, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + key + `=(.*)$`).FindStringSubmatch(unit)
	if m == nil {
		t.Fatalf("unit has no %s=", key)
	}
	return strings.TrimSpace(m[1])
}

// TestUnitVerifies runs systemd-analyze verify on the unit, with ExecStart
// pointing at a freshly built binary (verify checks that it exists): any
// complaint fails the test, since verify exits 0 on many of them.
func TestUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze := testenv.LookPath(t, "systemd-analyze", "install Debian's systemd package (scripts/test.d/systemd.sh)", "systemd-analyze")
	unit, err := os.ReadFile("almanac.service")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.ReplaceAll(string(unit), "/usr/bin/almanac", servetest.Binary(t))
	path := filepath.Join(dir, "almanac.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(path string) (string, error) {
		out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := check(path); err != nil || out != "" {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	// The check can fail: a mistyped setting is reported.
	bad := filepath.Join(dir, "bad.service")
	if err := os.WriteFile(bad, []byte(strings.Replace(text, "Type=notify", "Type=notifyy", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := check(bad); !strings.Contains(out, "notifyy") {
		t.Errorf("systemd-analyze verify did not report a bad Type=: %q", out)
	}
}

// TestUnitHardening measures the unit with systemd-analyze security and
// checks its hardening: the directives it has are in effect (as systemd
// reads them), the exposure is below the 9.6 of the unit without them,
// and none of the directives that would break jobs is set (see
// docs/install.md, "Hardening", for why each is left out).
func TestUnitHardening(t *testing.T) {
	t.Parallel()
	analyze := testenv.LookPath(t, "systemd-analyze", "install Debian's systemd package (scripts/test.d/systemd.sh)", "systemd-analyze")
	unit, err := os.ReadFile("almanac.service")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "almanac.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "security", "--offline=true", "--no-pager", path).CombinedOutput()
	report := string(out)
	m := regexp.MustCompile(`Overall exposure level for almanac.service: (\d+\.\d)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, report)
	}
	if m[1] > "9.1" {
		t.Errorf("exposure %s, want at most 9.1 (9.6 is the unit without hardening)\n%s", m[1], report)
	}
	for _, in := range []string{"RestrictRealtime=", "LockPersonality=", "SystemCallFilter=~@obsolete", "SystemCallFilter=~@cpu-emulation",
		"RestrictAddressFamilies=~…", "CapabilityBoundingSet=~CAP_BLOCK_SUSPEND", "CapabilityBoundingSet=~CAP_SYS_PACCT"} {
		if !regexp.MustCompile(`(?m)^✓ ` + regexp.QuoteMeta(in)).MatchString(report) {
			t.Errorf("systemd does not see %s in effect:\n%s", in, report)
		}
	}
	// Each of these would take from jobs something cron gives them.
	for _, key := range []string{"User", "DynamicUser", "NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp",
		"PrivateDevices", "PrivateMounts", "RestrictSUIDSGID", "MemoryDenyWriteExecute", "RestrictNamespaces", "UMask",
		"ProtectKernelModules", "ProtectKernelTunables", "ProtectControlGroups", "ProtectClock", "ProtectHostname",
		"ProtectProc", "SystemCallArchitectures", "PrivateNetwork", "PrivateUsers", "DevicePolicy", "ReadOnlyPaths"} {
		if regexp.MustCompile(`(?m)^` + key + `=`).MatchString(string(unit)) {
			t.Errorf("the unit sets %s=, which breaks jobs (docs/install.md, Hardening)", key)
		}
	}
}

// TestUnitConventions checks the unit's settings the daemon relies on:
// notify with a watchdog, restart on failure, its state directory, and a
// stop timeout above the configured grace plus the HTTP shutdown's.
func TestUnitConventions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("almanac.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for key, want := range map[string]string{
		"Type": "notify", "Restart": "on-failure", "StateDirectory": "almanac", "StateDirectoryMode": "0700",
		"KillMode": "process", "ExecStart": "/usr/bin/almanac serve --config /etc/almanac/almanac.toml --data /var/lib/almanac",
	} {
		if got := unitSetting(t, unit, key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	// A binary too old for the database's schema exits with a status of
	// its own; systemd must not restart it every RestartSec.
	if got := strings.Fields(unitSetting(t, unit, "RestartPreventExitStatus")); !slices.Contains(got, strconv.Itoa(cli.ExitSchemaTooNew)) {
		t.Errorf("RestartPreventExitStatus=%v lacks %d, serve's exit status for a schema too new for it", got, cli.ExitSchemaTooNew)
	}
	if wd, err := time.ParseDuration(unitSetting(t, unit, "WatchdogSec")); err != nil || wd < 10*time.Second {
		t.Errorf("WatchdogSec=%s: want a duration of at least 10s", unitSetting(t, unit, "WatchdogSec"))
	}
	stop, err := time.ParseDuration(unitSetting(t, unit, "TimeoutStopSec"))
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile("almanac.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^grace = "(.*)"`).FindStringSubmatch(string(conf))
	if m == nil {
		t.Fatal("almanac.toml sets no grace")
	}
	grace, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	// The daemon takes up to grace for runs, then 5s for HTTP requests;
	// 10s more covers killing runs and closing the store.
	if stop < grace+15*time.Second {
		t.Errorf("TimeoutStopSec=%s is below grace %s + 15s: systemd would SIGKILL a daemon still within its grace", stop, grace)
	}
}

// TestDefaultConfigIsAccepted checks that serve reads the shipped
// configuration file: every key is a serve flag and every value valid.
func TestDefaultConfigIsAccepted(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(servetest.Binary(t), "serve", "--config", "almanac.toml", "--print-config").CombinedOutput()
	if err != nil {
		t.Fatalf("serve --config almanac.toml --print-config: %v\n%s", err, out)
	}
	for _, want := range []string{`grace = "30s"`, `listen = "127.0.0.1:8080"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("effective settings lack %s:\n%s", want, out)
		}
	}
	// Every commented-out example is valid too.
	conf, err := os.ReadFile("almanac.toml")
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile(`(?m)^# ([a-z_]+ = .*)$`).FindAllStringSubmatch(string(conf), -1)
	if len(examples) < 5 {
		t.Fatalf("only %d commented examples found", len(examples))
	}
	var all strings.Builder
	for _, e := range examples {
		all.WriteString(e[1] + "\n")
	}
	dir := t.TempDir()
	for _, f := range []string{"token", "smtp-password"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x0123456789abcdef\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	text := strings.NewReplacer("/etc/almanac/", dir+"/").Replace(all.String())
	if err := os.Mkdir(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "examples.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(servetest.Binary(t), "serve", "--config", path, "--print-config").CombinedOutput(); err != nil {
		t.Errorf("the commented examples are not accepted: %v\n%s\n%s", err, out, text)
	}
}
