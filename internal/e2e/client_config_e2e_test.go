package e2e

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// TestCLIReadsDaemonConfig runs the CLI as it runs on the daemon's host:
// no --server, no token in the environment, only the daemon's
// configuration file (a non-default listen, HTTPS, a token_file). The
// documented `almanac get jobs` must reach the daemon; a user who may not
// read the token file is told so, with the file's path.
func TestCLIReadsDaemonConfig(t *testing.T) {
	bin := almanacBinary(t)
	t.Parallel()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(e2eToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := servetest.SelfSigned(t)
	d := startDaemonEnv(t, bin, filepath.Join(dir, "data"), []string{"ALMANAC_TOKEN="},
		"--token-file", tokenFile, "--tls-cert", certFile, "--tls-key", keyFile)
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "almanac.toml")
	text := fmt.Sprintf("listen = %q\ntoken_file = %q\ntls_cert = %q\ntls_key = %q\n", u.Host, tokenFile, certFile, keyFile)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	hostEnv := []string{"ALMANAC_SERVER=", "ALMANAC_TOKEN=", "ALMANAC_DATA=", "ALMANAC_CA_CERT=", "ALMANAC_CONFIG=" + conf}
	if out, err := runBinary(t, bin, hostEnv, "get", "jobs"); err != nil || !strings.HasPrefix(out, "NAME") {
		t.Fatalf("get jobs with ALMANAC_CONFIG: %v\n%s", err, out)
	}
	if out, err := runBinary(t, bin, hostEnv[:4], "get", "jobs", "--config", conf); err != nil {
		t.Fatalf("get jobs --config: %v\n%s", err, out)
	}
	// Without the configuration file the CLI tries the defaults and fails.
	if out, err := runBinary(t, bin, append(hostEnv[:4:4], "ALMANAC_CONFIG="+filepath.Join(dir, "none.toml")), "get", "jobs"); err == nil || !strings.Contains(out, "none.toml") {
		t.Fatalf("get jobs with a missing ALMANAC_CONFIG: %v\n%s", err, out)
	}

	// A user who may not read the token file: as root, nobody; otherwise
	// this user, with the file made unreadable.
	cmd := exec.Command(bin, "get", "jobs")
	cmd.Env = append(os.Environ(), hostEnv...)
	if os.Geteuid() == 0 {
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("no user nobody to run the CLI as: %v", err)
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		// nobody must reach the binary, the configuration and the
		// certificate, but not the token file (0600, root's).
		pub := t.TempDir()
		pubBin := filepath.Join(pub, "almanac")
		if out, err := exec.Command("cp", bin, pubBin).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		for _, p := range []string{filepath.Dir(pub), pub, filepath.Dir(dir), dir, filepath.Dir(filepath.Dir(certFile)), filepath.Dir(certFile)} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(certFile, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd.Path = pubBin
		cmd.Dir = pub
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	} else if err := os.Chmod(tokenFile, 0); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), tokenFile+" (token_file of "+conf+"): permission denied") || strings.Contains(string(out), "wrong bearer token") {
		t.Fatalf("get jobs without read access to the token file: %v\n%s", err, out)
	}
}
