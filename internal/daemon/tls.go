package daemon

import (
	"crypto/tls"
	"flag"
)

// tlsFiles are serve's --tls-cert and --tls-key: with both, the daemon
// serves HTTPS only and the web UI's cookies are Secure.
type tlsFiles struct {
	cert, key string
	pair      *tls.Certificate
}

func addTLSFlags(fs *flag.FlagSet, t *tlsFiles) {
	fs.StringVar(&t.cert, "tls-cert", "", "PEM certificate (chain) file: serve HTTPS (with --tls-key)")
	fs.StringVar(&t.key, "tls-key", "", "PEM private key file of --tls-cert")
}

// load checks that both or neither flag is set and reads the pair, so a
// bad file is reported before the daemon starts.
func (t *tlsFiles) load() error {
	if (t.cert == "") != (t.key == "") {
		return usagef("serve: --tls-cert and --tls-key go together")
	}
	if t.cert == "" {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(t.cert, t.key)
	if err != nil {
		return usagef("serve: --tls-cert %s / --tls-key %s: %v", t.cert, t.key, err)
	}
	t.pair = &pair
	return nil
}

func (t *tlsFiles) on() bool { return t.pair != nil }

func (t *tlsFiles) scheme() string {
	if t.on() {
		return "https"
	}
	return "http"
}

// config is the server's TLS configuration, or nil without TLS.
func (t *tlsFiles) config() *tls.Config {
	if !t.on() {
		return nil
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{*t.pair}}
}
