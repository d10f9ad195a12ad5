package daemon

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/smtp"
	"os"
	"strings"
)

// secretFiles are serve's flags that read a secret from a file, so it
// appears neither in the process list nor in the configuration file.
type secretFiles struct {
	tokenFile        string
	smtpUser         string
	smtpPasswordFile string
	// smtpPassword is read from smtpPasswordFile by load.
	smtpPassword string
}

// maxSecretFile bounds a secret file.
const maxSecretFile = 64 << 10

// addSecretFlags registers the secret-file flags on fs.
func addSecretFlags(fs *flag.FlagSet, s *secretFiles) {
	fs.StringVar(&s.tokenFile, "token-file", "", "file holding the bearer token clients must send (instead of --token)")
	fs.StringVar(&s.smtpUser, "smtp-user", "", "user name for SMTP authentication (PLAIN, over STARTTLS; with --smtp-password-file)")
	fs.StringVar(&s.smtpPasswordFile, "smtp-password-file", "", "file holding the SMTP password of --smtp-user")
}

// load reads the secret files into c: --token-file into the token (it
// excludes --token), --smtp-password-file into the SMTP password.
func (s *secretFiles) load(fs *flag.FlagSet, c *Config) error {
	if s.tokenFile != "" {
		tokenSet := false
		fs.Visit(func(f *flag.Flag) { tokenSet = tokenSet || f.Name == "token" })
		if tokenSet {
			return usagef("serve: --token and --token-file exclude each other")
		}
		if c.insecure {
			return usagef("serve: --insecure-no-auth and --token-file exclude each other")
		}
		tok, err := ReadSecret(s.tokenFile)
		if err != nil {
			return usagef("serve: --token-file: %w", err)
		}
		c.token = tok
		if err := fs.Set("token", tok); err != nil {
			return usagef("serve: --token-file: %w", err)
		}
	}
	if (s.smtpUser == "") != (s.smtpPasswordFile == "") {
		return usagef("serve: --smtp-user and --smtp-password-file go together")
	}
	if s.smtpUser != "" {
		if c.fleet.smtp == "" {
			return usagef("serve: --smtp-user needs --smtp")
		}
		pw, err := ReadSecret(s.smtpPasswordFile)
		if err != nil {
			return usagef("serve: --smtp-password-file: %w", err)
		}
		s.smtpPassword = pw
	}
	return nil
}

// smtpAuth is the SMTP authentication the flags configure, or nil.
func (s *secretFiles) smtpAuth(server string) smtp.Auth {
	if s.smtpUser == "" {
		return nil
	}
	host, _, _ := net.SplitHostPort(server)
	return smtp.PlainAuth("", s.smtpUser, s.smtpPassword, host)
}

// ReadSecret reads a secret file as serve's --token-file and
// --smtp-password-file do: at most 64 KiB, surrounding white space (the
// final newline) trimmed, not empty. The CLI reads the daemon's token_file
// with it, so both agree on the token.
func ReadSecret(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", unwrapPath(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s: larger than %d bytes", path, maxSecretFile)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return s, nil
}
