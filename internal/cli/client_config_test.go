package cli

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/servetest"
)

// clientFlagsFor parses args as a client command's flags.
func clientFlagsFor(t *testing.T, args ...string) clientFlags {
	t.Helper()
	fs := newFlagSet("get")
	cf := addClientFlags(fs)
	if _, err := parseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	return cf
}

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClientSettingsFromDaemonConfig checks where the CLI takes the
// daemon's address and token from: flags, then environment, then the
// daemon's configuration file (only without --server/ALMANAC_SERVER),
// then the built-in defaults.
func TestClientSettingsFromDaemonConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokenFile := writeFile(t, dir, "token", "tok-from-file\n", 0o600)
	dataDir := filepath.Join(dir, "data")
	if _, _, err := apitoken.LoadOrCreate(dataDir); err != nil {
		t.Fatal(err)
	}
	dataTok, _ := apitoken.Read(dataDir)
	certFile, _ := servetest.SelfSigned(t)
	conf := writeFile(t, dir, "almanac.toml", "listen = \"0.0.0.0:9090\"\ntoken_file = \""+tokenFile+"\"\n", 0o644)
	confTLS := writeFile(t, dir, "tls.toml", "listen = \"[::]:8443\"\ntls_cert = \""+certFile+"\"\ntls_key = \"/nonexistent/key\"\ntoken = \"tok-inline\"\ndata = \""+dataDir+"\"\n", 0o644)
	confData := writeFile(t, dir, "data.toml", "listen = \"127.0.0.2:8080\"\ndata = \""+dataDir+"\"\n", 0o644)
	broken := writeFile(t, dir, "broken.toml", "listen = \"127.0.0.1:8080\"\nlisten_addr = 1\n", 0o644)
	missing := filepath.Join(dir, "none.toml")

	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		defaultCfg string
		server     string
		token      string
		pinned     bool
		err        string
	}{
		{name: "default config", defaultCfg: conf, server: "http://127.0.0.1:9090", token: "tok-from-file"},
		{name: "no config installed", defaultCfg: missing, server: "http://127.0.0.1:8080"},
		{name: "--config", args: []string{"--config", conf}, defaultCfg: missing, server: "http://127.0.0.1:9090", token: "tok-from-file"},
		{name: "ALMANAC_CONFIG", env: map[string]string{"ALMANAC_CONFIG": conf}, defaultCfg: missing, server: "http://127.0.0.1:9090", token: "tok-from-file"},
		{name: "--config beats ALMANAC_CONFIG", args: []string{"--config", confData}, env: map[string]string{"ALMANAC_CONFIG": conf}, defaultCfg: missing, server: "http://127.0.0.2:8080", token: dataTok},
		{name: "tls and an inline token", defaultCfg: confTLS, server: "https://[::1]:8443", token: "tok-inline", pinned: true},
		{name: "--ca-cert replaces the pin", args: []string{"--ca-cert", certFile}, defaultCfg: confTLS, server: "https://[::1]:8443", token: "tok-inline"},
		{name: "data of the config", defaultCfg: confData, server: "http://127.0.0.2:8080", token: dataTok},
		{name: "--token beats token_file", args: []string{"--token", "tok-flag"}, defaultCfg: conf, server: "http://127.0.0.1:9090", token: "tok-flag"},
		{name: "ALMANAC_TOKEN beats token_file", env: map[string]string{"ALMANAC_TOKEN": "tok-env"}, defaultCfg: conf, server: "http://127.0.0.1:9090", token: "tok-env"},
		{name: "--server skips the config", args: []string{"--server", "http://h:1"}, defaultCfg: broken, server: "http://h:1"},
		{name: "ALMANAC_SERVER skips the config", env: map[string]string{"ALMANAC_SERVER": "http://h:2", "ALMANAC_DATA": dataDir}, defaultCfg: broken, server: "http://h:2", token: dataTok},
		{name: "explicit config missing", args: []string{"--config", missing}, defaultCfg: conf, err: "--config: " + missing + ": no such file"},
		{name: "installed config broken", defaultCfg: broken, err: broken + ":2:1: listen_addr: unknown key"},
		{name: "explicit config broken", env: map[string]string{"ALMANAC_CONFIG": broken}, defaultCfg: missing, err: "--config: " + broken + ":2:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cf := clientFlagsFor(t, tt.args...)
			s, err := cf.resolve(func(k string) string { return tt.env[k] }, tt.defaultCfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.server != tt.server || s.token != tt.token || (s.pin != nil) != tt.pinned || s.tokenErr != nil {
				t.Errorf("server %q token %q pinned %v tokenErr %v; want %q %q %v", s.server, s.token, s.pin != nil, s.tokenErr, tt.server, tt.token, tt.pinned)
			}
		})
	}
}

// TestClientTokenFileUnreadable checks that a token the CLI could not
// read is named, with the reason, when the daemon asks for a token,
// instead of the daemon's "missing or wrong bearer token".
func TestClientTokenFileUnreadable(t *testing.T) {
	t.Parallel()
	st := apitest.NewMemStore()
	ts := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: cliT0}, Clock: clock.NewFake(cliT0), Token: "right"}))
	t.Cleanup(ts.Close)
	s := clientSettings{server: ts.URL, tokenErr: errTokenPermission("/etc/almanac/token", "/etc/almanac/almanac.toml")}
	c, err := s.build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.JobList(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "/etc/almanac/token (token_file of /etc/almanac/almanac.toml): permission denied") || strings.Contains(err.Error(), "wrong bearer token") {
		t.Fatalf("err = %v, want the unreadable token file named", err)
	}
	// A readable token works through the same client.
	s = clientSettings{server: ts.URL, token: "right"}
	if c, err = s.build(); err != nil {
		t.Fatal(err)
	}
	if _, err = c.JobList(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}

func TestDaemonURL(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080", ":8080": "http://127.0.0.1:8080", "0.0.0.0:81": "http://127.0.0.1:81",
		"[::]:8080": "http://[::1]:8080", "[2001:db8::1]:9": "http://[2001:db8::1]:9", "almanac.example.com:443": "http://almanac.example.com:443",
	} {
		if got := daemonURL(listen, false); got != want {
			t.Errorf("daemonURL(%q) = %q, want %q", listen, got, want)
		}
	}
	if got := daemonURL(":8443", true); got != "https://127.0.0.1:8443" {
		t.Errorf("daemonURL tls = %q", got)
	}
}
