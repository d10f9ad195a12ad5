package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/servetest"
)

// TestServeTLS serves HTTPS with a self-signed certificate: the CLI talks
// to it with --ca-cert, plain HTTP is refused, and the web UI's cookies
// are Secure.
func TestServeTLS(t *testing.T) {
	bin := almanacBinary(t)
	certFile, keyFile := servetest.SelfSigned(t)
	d := startDaemon(t, bin, t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(d.url, "https://") {
		t.Fatalf("serving URL %q is not https", d.url)
	}

	run := func(args ...string) (string, error) {
		return runBinary(t, bin, []string{"ALMANAC_SERVER=" + d.url, "ALMANAC_TOKEN=" + e2eToken, "ALMANAC_CA_CERT="}, args...)
	}
	if out, err := run("get", "jobs", "--ca-cert", certFile); err != nil {
		t.Errorf("get jobs --ca-cert: %v\n%s", err, out)
	}
	if out, err := run("get", "jobs"); err == nil || !strings.Contains(out, "certificate") {
		t.Errorf("get jobs without the CA: %v\n%s", err, out)
	}
	if out, err := run("get", "jobs", "--ca-cert", keyFile); err == nil || !strings.Contains(out, "no PEM certificate") {
		t.Errorf("get jobs with a key as CA: %v\n%s", err, out)
	}

	plain := "http://" + strings.TrimPrefix(d.url, "https://")
	if resp, err := http.Get(plain + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered 200 on the HTTPS port")
		}
	}

	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pem)
	hc := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := hc.Get(d.url + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=") {
		t.Errorf("over HTTPS, Strict-Transport-Security = %q, want max-age=…", got)
	}
	cookies := resp.Cookies()
	if len(cookies) == 0 {
		t.Fatal("the login page set no cookie")
	}
	for _, c := range cookies {
		if !c.Secure {
			t.Errorf("cookie %s is not Secure over HTTPS", c.Name)
		}
	}
}

func TestServeTLSFlags(t *testing.T) {
	certFile, keyFile := servetest.SelfSigned(t)
	tests := []struct {
		name  string
		args  []string
		wants string
	}{
		{"cert without key", []string{"--tls-cert", certFile}, "go together"},
		{"key without cert", []string{"--tls-key", keyFile}, "go together"},
		{"swapped", []string{"--tls-cert", keyFile, "--tls-key", certFile}, "--tls-cert"},
		{"missing file", []string{"--tls-cert", certFile + ".nope", "--tls-key", keyFile}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--token", "t"}, tt.args...)
			_, errOut, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errOut, tt.wants) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Fatalf("code %d stderr %q, want exit %d and one line with %q", code, errOut, exitUsage, tt.wants)
			}
		})
	}
}
