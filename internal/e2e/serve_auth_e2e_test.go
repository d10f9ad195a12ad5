package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/testenv"
)

// e2eToken is the API token the end-to-end tests' daemons and clients use.
const e2eToken = "e2e-test-token"

// authGet GETs url with the end-to-end tests' bearer token.
func authGet(url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e2eToken)
	return http.DefaultClient.Do(req)
}

// runBinary runs the almanac binary with env added to the environment, in
// a fresh directory, and returns its combined output.
func runBinary(t *testing.T, bin string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestServeGeneratesToken starts a daemon without a token: it must create
// one in its data directory, private to its user, refuse requests without
// it even on loopback, and let the CLI find it through --data.
func TestServeGeneratesToken(t *testing.T) {
	bin := almanacBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv("ALMANAC_TOKEN", "")
	d := startDaemonEnv(t, bin, data, []string{"ALMANAC_TOKEN="})

	tok, err := apitoken.Read(data)
	if err != nil {
		t.Fatalf("token file: %v", err)
	}
	// Where the token is stored, never the token itself: the daemon's
	// output lands in the journal, which more users read than the file.
	if strings.Contains(d.logs.String(), tok) || !strings.Contains(d.logs.String(), "generated an API token in "+apitoken.Path(data)) {
		t.Errorf("the daemon printed the new token, or not where it is stored:\n%s", d.logs.String())
	}
	for path, want := range map[string]os.FileMode{data: 0o700, apitoken.Path(data): 0o600, filepath.Join(data, "almanac.db"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/api/v1/jobs", "/jobs", "/metrics"} {
		resp, err := noRedirect.Get(d.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusSeeOther {
			t.Errorf("GET %s without a token on loopback = %d, want 401 (or a redirect to the login page)", path, resp.StatusCode)
		}
	}
	if resp, err := http.Get(d.url + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz must stay open: %v %v", resp, err)
	}

	// The CLI finds the token through --data, and fails clearly without it.
	run := func(args ...string) (string, error) {
		return runBinary(t, bin, []string{"ALMANAC_SERVER=" + d.url, "ALMANAC_TOKEN=", "ALMANAC_DATA="}, args...)
	}
	if out, err := run("get", "jobs", "--data", data); err != nil {
		t.Errorf("get jobs --data: %v\n%s", err, out)
	}
	if out, err := run("get", "jobs"); err == nil || !strings.Contains(out, "token") {
		t.Errorf("get jobs without a token: %v\n%s", err, out)
	}
}

// TestServeCutsStalledClients checks that a client cannot hold the daemon's
// connections: a trickled body, an idle keep-alive and a flood of stalled
// requests are all cut off, and an authenticated request still gets in.
func TestServeCutsStalledClients(t *testing.T) {
	bin := almanacBinary(t)
	d := startDaemon(t, bin, t.TempDir(), "--read-header-timeout", "300ms", "--read-timeout", "1s",
		"--idle-timeout", "500ms", "--max-connections", "16")
	addr := strings.TrimPrefix(d.url, "http://")
	dial := func(t *testing.T) net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		// A safety net only: the server must close the connection long
		// before this.
		c.SetDeadline(time.Now().Add(30 * time.Second))
		return c
	}
	// closedByServer reads until the server closes the connection.
	closedByServer := func(t *testing.T, c net.Conn) {
		t.Helper()
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server kept the connection open")
		}
	}

	t.Run("trickled body", func(t *testing.T) {
		c := dial(t)
		fmt.Fprintf(c, "PUT /api/v1/jobs/slow HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr, e2eToken)
		closedByServer(t, c)
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial(t)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		closedByServer(t, c)
	})
	t.Run("unauthenticated body is not waited for", func(t *testing.T) {
		c := dial(t)
		fmt.Fprintf(c, "PUT /api/v1/jobs/x HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{", addr)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Errorf("status %d, close %v; want 401 and the connection closed", resp.StatusCode, resp.Close)
		}
		closedByServer(t, c)
	})
	t.Run("flood of stalled requests", func(t *testing.T) {
		for range 64 {
			c := dial(t)
			fmt.Fprintf(c, "PUT /api/v1/jobs/x HTTP/1.1\r\nHost: %s\r\n", addr) // headers never end
		}
		resp, err := authGet(d.url + "/api/v1/jobs")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("authenticated GET during the flood: %d", resp.StatusCode)
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", d.cmd.Process.Pid))
		testenv.Need(t, "/proc to count the daemon's descriptors", "run on Linux", err)
		if len(fds) > 16+48 {
			t.Errorf("the daemon holds %d descriptors with --max-connections 16", len(fds))
		}
	})
}
