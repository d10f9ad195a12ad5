package cli

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/flagfile"
)

// SystemConfig is the packaged daemon's configuration file. Without
// --server or ALMANAC_SERVER the CLI reads the daemon's address, token and
// TLS settings from it (or from --config / ALMANAC_CONFIG), so a command
// run on the daemon's host reaches the daemon as installed.
const SystemConfig = "/etc/almanac/almanac.toml"

// clientSettings is how the CLI reaches the daemon, worked out from the
// flags, the environment and the daemon's configuration file.
type clientSettings struct {
	server string
	token  string
	// tokenErr is why a token file that exists could not be read. It is
	// reported when the daemon asks for a token: a daemon without one
	// never needs it.
	tokenErr error
	// caFile is --ca-cert: the CA the daemon's certificate is checked
	// against.
	caFile string
	// pin, without caFile, is the certificate the configuration file's
	// tls_cert names: the daemon must present exactly it, whatever name
	// it is reached by.
	pin     *x509.Certificate
	pinFrom string
}

// first returns the first non-empty string.
func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// resolve works out the client settings. Precedence, per setting: the
// flag, its environment variable, then (only when neither --server nor
// ALMANAC_SERVER is given) the configuration file named by --config or
// ALMANAC_CONFIG, else defaultConfig when it exists; last the built-in
// defaults. getenv and defaultConfig are parameters so tests can place
// them.
func (f clientFlags) resolve(getenv func(string) string, defaultConfig string) (clientSettings, error) {
	s := clientSettings{
		server: first(*f.server, getenv("ALMANAC_SERVER")),
		token:  first(*f.token, getenv("ALMANAC_TOKEN")),
		caFile: first(*f.caCert, getenv("ALMANAC_CA_CERT")),
	}
	data := first(*f.data, getenv("ALMANAC_DATA"))
	if s.token != "" {
		if err := apitoken.Check(s.token); err != nil {
			return s, usagef("--token: %v", err)
		}
	}
	if s.server == "" {
		path := first(*f.config, getenv("ALMANAC_CONFIG"))
		explicit := path != ""
		if !explicit {
			path = defaultConfig
		}
		cfg, err := readDaemonConfig(path)
		switch {
		case err == nil:
			if err := s.fromConfig(cfg, &data); err != nil {
				return s, err
			}
		case !explicit && errors.Is(err, fs.ErrNotExist):
			// No daemon installed here: the built-in defaults.
		case explicit:
			return s, usagef("--config: %w", err)
		default:
			return s, usagef("the daemon's configuration %w (give --server or ALMANAC_SERVER, or --config FILE)", err)
		}
	}
	if s.server == "" {
		s.server = daemonURL(defaultListen, false)
	}
	if s.token == "" && s.tokenErr == nil {
		dir := first(data, defaultDataDir)
		t, err := apitoken.Read(dir)
		switch {
		case err == nil:
			s.token = t
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, fs.ErrPermission):
			s.tokenErr = errTokenPermission(apitoken.Path(dir), "")
		default:
			return s, usagef("--data: %w", unwrapPath(err))
		}
	}
	return s, nil
}

// errTokenPermission says that the token file path, named by the
// configuration file conf (or found in the data directory when conf is
// empty), may not be read by this user.
func errTokenPermission(path, conf string) error {
	from := ""
	if conf != "" {
		from = " (token_file of " + conf + ")"
	}
	return fmt.Errorf("cannot read the daemon's token: %s%s: permission denied; run as a user who may read it (e.g. with sudo), or give --token or ALMANAC_TOKEN", path, from)
}

// defaultListen is serve's --listen default.
const defaultListen = "127.0.0.1:8080"

// daemonConfig is what the CLI takes from the daemon's configuration
// file: the keys it sets, as serve reads them.
type daemonConfig struct {
	path string
	set  map[string]string
}

// readDaemonConfig reads the daemon's configuration file the way serve
// does (same keys, same checks), so a file serve refuses is refused here
// with the same line and column.
func readDaemonConfig(path string) (*daemonConfig, error) {
	file, err := flagfile.Read(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	sf := newServeFlags(&env{stdout: io.Discard, stderr: io.Discard})
	if err := file.Apply(sf.fs, nil, configOnlyFlags); err != nil {
		return nil, err
	}
	c := &daemonConfig{path: path, set: map[string]string{}}
	for _, k := range file.Keys() {
		if fl := sf.fs.Lookup(strings.ReplaceAll(k, "_", "-")); fl != nil {
			c.set[fl.Name] = fl.Value.String()
		}
	}
	return c, nil
}

// fromConfig takes the daemon's address, token and certificate from its
// configuration file; data is the data directory given on the command
// line or in the environment, which the file's `data` fills when empty.
func (s *clientSettings) fromConfig(c *daemonConfig, data *string) error {
	cert := c.set["tls-cert"]
	s.server = daemonURL(first(c.set["listen"], defaultListen), cert != "")
	if cert != "" && s.caFile == "" {
		leaf, err := readLeaf(cert)
		if err != nil {
			return usagef("%s: tls_cert: %w", c.path, err)
		}
		s.pin, s.pinFrom = leaf, cert
	}
	if *data == "" {
		*data = c.set["data"]
	}
	if s.token != "" {
		return nil
	}
	if tf := c.set["token-file"]; tf != "" {
		tok, err := daemon.ReadSecret(tf)
		switch {
		case err == nil:
			s.token = tok
		case errors.Is(err, fs.ErrPermission):
			s.tokenErr = errTokenPermission(tf, c.path)
		default:
			return usagef("%s: token_file: %w", c.path, err)
		}
		return nil
	}
	s.token = c.set["token"]
	return nil
}

// daemonURL is the URL a client on the daemon's host reaches listen at:
// an unspecified address (":8080", "0.0.0.0:8080", "[::]:8080") is reached
// on loopback.
func daemonURL(listen string, tls bool) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		host, port = listen, ""
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if port == "" {
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// readLeaf reads the first certificate of a PEM file (a chain starts with
// the server's own).
func readLeaf(path string) (*x509.Certificate, error) {
	b, err := readPEMFile(path)
	if err != nil {
		return nil, err
	}
	for rest := b; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return nil, fmt.Errorf("%s holds no PEM certificate", path)
		}
		if blk.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return c, nil
		}
	}
}

// tlsConfig is the TLS configuration for an https daemon, or nil for the
// system's roots.
func (s *clientSettings) tlsConfig() (*tls.Config, error) {
	switch {
	case s.caFile != "":
		pool, err := readCAFile(s.caFile)
		if err != nil {
			return nil, usagef("--ca-cert: %v", err)
		}
		return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
	case s.pin != nil:
		pin, from := s.pin, s.pinFrom
		return &tls.Config{
			MinVersion: tls.VersionTLS12,
			// The usual chain and name check is replaced, not skipped:
			// VerifyConnection accepts only the very certificate the
			// daemon is configured with, which this host's file holds,
			// whatever address or name the daemon listens on.
			InsecureSkipVerify: true, //nolint:gosec // pinned in VerifyConnection
			VerifyConnection: func(cs tls.ConnectionState) error {
				if len(cs.PeerCertificates) == 0 || !bytes.Equal(cs.PeerCertificates[0].Raw, pin.Raw) {
					return fmt.Errorf("the daemon's certificate is not the one in %s (tls_cert of the configuration); give --ca-cert to check it against a CA instead", from)
				}
				return nil
			},
		}, nil
	}
	return nil, nil
}

// tokenHint replaces the daemon's "missing or wrong bearer token" answer
// with the reason the CLI had no token to send: a token file it could not
// read.
type tokenHint struct {
	next http.RoundTripper
	err  error
}

func (h tokenHint) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	resp.Body.Close()
	body, _ := json.Marshal(apitype.ErrorBody{Error: &apitype.Error{Code: apitype.CodeUnauthorized, Message: h.err.Error()}})
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Type", "application/json")
	return resp, nil
}
