package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliAs runs the binary against the daemon with another token and returns
// stdout, stderr and the exit code.
func (d *daemonProc) cliAs(t *testing.T, bin, token string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ALMANAC_SERVER="+d.url, "ALMANAC_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestTokenRolesEndToEnd drives named tokens through the CLI against a
// real daemon: the admin creates a viewer and a confined operator, each
// can do what its role allows and is refused the rest with the permission
// named, the event log names who acted and how, and a revoked token stops
// working at once.
func TestTokenRolesEndToEnd(t *testing.T) {
	bin := almanacBinary(t)
	accessLog := filepath.Join(t.TempDir(), "access.log")
	d := startDaemon(t, bin, filepath.Join(t.TempDir(), "data"), "--access-log", accessLog)
	for _, j := range []string{"web-a", "db-a"} {
		d.cli(t, bin, "run", j, "--schedule", "0 0 1 1 *", "--", "echo", "secret-output")
	}
	run := triggerRun(t, d, bin, "web-a")

	viewer := strings.TrimSpace(d.cli(t, bin, "token", "create", "dash", "--role", "viewer"))
	webop := strings.TrimSpace(d.cli(t, bin, "token", "create", "alice", "--role", "operator", "--jobs", "web-", "--expires", "1h"))
	if viewer == "" || webop == "" || viewer == webop || strings.ContainsAny(viewer, " \n") {
		t.Fatalf("token create printed %q and %q; want one secret each", viewer, webop)
	}
	list := d.cli(t, bin, "token", "list")
	for _, want := range []string{"dash", "viewer", "alice", "operator", "web-*", "admin"} {
		if !strings.Contains(list, want) {
			t.Errorf("token list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, viewer) || strings.Contains(list, webop) {
		t.Errorf("token list shows a secret:\n%s", list)
	}
	if _, errOut, code := d.cliAs(t, bin, viewer, "token", "create", "x", "--role", "admin"); code != 1 || !strings.Contains(errOut, "manage-tokens") {
		t.Errorf("viewer creating a token: exit %d, %q; want 1 naming manage-tokens", code, errOut)
	}

	// The viewer reads but does not act or read output.
	if out, _, code := d.cliAs(t, bin, viewer, "get", "jobs"); code != 0 || !strings.Contains(out, "db-a") || !strings.Contains(out, "web-a") {
		t.Errorf("viewer get jobs: exit %d\n%s", code, out)
	}
	if _, errOut, code := d.cliAs(t, bin, viewer, "suspend", "web-a"); code != 1 || !strings.Contains(errOut, "lacks permission operate") {
		t.Errorf("viewer suspend: exit %d, %q; want 1 naming operate", code, errOut)
	}
	if _, errOut, code := d.cliAs(t, bin, viewer, "logs", strconv.FormatInt(run, 10)); code != 1 || !strings.Contains(errOut, "read-output") {
		t.Errorf("viewer logs: exit %d, %q; want 1 naming read-output", code, errOut)
	}
	if _, errOut, code := d.cliAs(t, bin, viewer, "delete", "web-a"); code != 1 || !strings.Contains(errOut, "write-jobs") {
		t.Errorf("viewer delete: exit %d, %q; want 1 naming write-jobs", code, errOut)
	}

	// The confined operator acts on web- jobs only and sees no other.
	if out, errOut, code := d.cliAs(t, bin, webop, "suspend", "web-a"); code != 0 {
		t.Errorf("alice suspend web-a: exit %d %s %s", code, out, errOut)
	}
	if _, errOut, code := d.cliAs(t, bin, webop, "suspend", "db-a"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("alice suspend db-a: exit %d, %q; want 1, not found", code, errOut)
	}
	if out, _, code := d.cliAs(t, bin, webop, "get", "jobs"); code != 0 || strings.Contains(out, "db-a") || !strings.Contains(out, "web-a") {
		t.Errorf("alice get jobs: exit %d\n%s", code, out)
	}
	if _, errOut, code := d.cliAs(t, bin, webop, "run", "web-b", "--schedule", "0 0 1 1 *", "--", "true"); code != 1 || !strings.Contains(errOut, "write-jobs") {
		t.Errorf("alice creating a job: exit %d, %q; want 1 naming write-jobs", code, errOut)
	}

	// The event log names who did what, and how.
	events := d.cli(t, bin, "get", "events", "--actor", "alice")
	if !strings.Contains(events, "job.suspended") || !strings.Contains(events, "alice/cli") || strings.Contains(events, "job.created") {
		t.Errorf("get events --actor alice:\n%s", events)
	}
	if events := d.cli(t, bin, "get", "events", "--actor", "admin", "--kind", "job.created"); strings.Count(events, "admin/cli") != 2 {
		t.Errorf("get events --actor admin --kind job.created:\n%s", events)
	}

	// Revoked: refused at once.
	if out := d.cli(t, bin, "token", "revoke", "alice"); !strings.Contains(out, "token alice revoked") {
		t.Errorf("revoke: %q", out)
	}
	if _, errOut, code := d.cliAs(t, bin, webop, "get", "jobs"); code != 1 || !strings.Contains(errOut, "bearer token") {
		t.Errorf("revoked alice get jobs: exit %d, %q; want 1, unauthorized", code, errOut)
	}
	if _, errOut, code := d.cliAs(t, bin, e2eToken, "token", "revoke", "alice"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("revoke twice: exit %d, %q", code, errOut)
	}

	// The access log names each request's token; a refused one is "-".
	b, err := os.ReadFile(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`127.0.0.1 - alice [`, `"POST /api/v1/jobs/web-a/suspend HTTP/1.1" 200 `,
		`127.0.0.1 - dash [`, `"POST /api/v1/jobs/web-a/suspend HTTP/1.1" 403 `,
		`127.0.0.1 - admin [`, `"POST /api/v1/tokens HTTP/1.1" 201 `,
		`127.0.0.1 - - [`, `"GET /api/v1/jobs HTTP/1.1" 401 `,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("access log lacks %q:\n%s", want, b)
		}
	}
	if fi, err := os.Stat(accessLog); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("access log mode: %v %v; want 0600", fi.Mode(), err)
	}
}

// TestSIGHUPReloadIsAudited: a SIGHUP that changes settings is in the
// event log, in the name of the configuration file, by way of sighup.
func TestSIGHUPReloadIsAudited(t *testing.T) {
	bin := almanacBinary(t)
	cfg := filepath.Join(t.TempDir(), "almanac.toml")
	if err := os.WriteFile(cfg, []byte("log_level = \"info\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, filepath.Join(t.TempDir(), "data"), "--config", cfg)
	if err := os.WriteFile(cfg, []byte("log_level = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reload in the event log", 30*time.Second, func() (bool, error) {
		out := d.cli(t, bin, "get", "events", "--kind", "daemon.reloaded", "--actor", "config:"+cfg)
		return strings.Contains(out, "config:"+cfg+"/sighup") && strings.Contains(out, "applied: log_level"), nil
	})
}
