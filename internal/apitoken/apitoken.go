// Package apitoken creates, stores and checks the bearer token that
// authenticates clients of almanac's HTTP API and web UI.
//
// The daemon keeps its token in a file named [FileName] in its data
// directory, readable by its owner only (mode 0600 in a 0700 directory). At
// first start the file does not exist and [LoadOrCreate] writes a fresh
// random token; the CLI, run by the same user, reads the same file with
// [Read], so a local operator never copies the token by hand while other
// local users cannot read it.
package apitoken

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// FileName is the token file's name inside the data directory.
const FileName = "token"

// MaxLen bounds a token's length in bytes (and how much of a token file is read).
const MaxLen = 4096

// Check reports whether tok can be a bearer token: not empty, at most
// MaxLen bytes, and made of printable characters other than spaces (an
// Authorization header cannot carry the rest unambiguously).
func Check(tok string) error {
	switch {
	case strings.TrimSpace(tok) == "":
		return errors.New("the token is empty or only white space")
	case len(tok) > MaxLen:
		return fmt.Errorf("the token is longer than %d bytes", MaxLen)
	}
	for i, r := range tok {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("the token has a space or control character at byte %d", i)
		}
	}
	return nil
}

// ErrUnusable is wrapped by Read's error when the token file holds no
// usable token (empty, blank, spaced, too long): a mistake of whoever
// wrote it, not a failure of the system.
var ErrUnusable = errors.New("the token file holds no usable token")

// Exposed reports whether the token file in dir may be read or written by
// users other than its owner (group or other permission bits), and its
// mode. A missing or unreadable file is not exposed.
func Exposed(dir string) (fs.FileMode, bool) {
	fi, err := os.Stat(Path(dir))
	if err != nil {
		return 0, false
	}
	return fi.Mode().Perm(), fi.Mode().Perm()&0o077 != 0
}

// Path returns the token file's path in the data directory dir.
func Path(dir string) string { return filepath.Join(dir, FileName) }

// Read returns the token stored in dir. An error wrapping fs.ErrNotExist
// means no token has been created there yet.
func Read(dir string) (string, error) {
	p := Path(dir)
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxLen+2))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	tok := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if err := Check(tok); err != nil {
		return "", fmt.Errorf("%s: %w: %w", p, ErrUnusable, err)
	}
	return tok, nil
}

// Generate returns a new random token: 32 bytes from crypto/rand,
// base64url-encoded.
func Generate() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// LoadOrCreate returns the token stored in dir, creating dir (mode 0700)
// and a new token file (mode 0600) when there is none. created reports
// whether the token is new. Two daemons starting at once agree on one
// token: the file appears atomically and the loser reads the winner's.
func LoadOrCreate(dir string) (tok string, created bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("create data directory: %w", err)
	}
	tok, err = Read(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, false, err
	}
	// Write the token to a private temporary file, then link it into
	// place: the link either appears complete or fails because another
	// daemon's token is already there, which is then used.
	tok = Generate()
	p := Path(dir)
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", false, fmt.Errorf("create %s: %w", p, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(tok + "\n")
	if err := errors.Join(werr, tmp.Chmod(0o600), tmp.Sync(), tmp.Close()); err != nil {
		return "", false, fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Link(tmp.Name(), p); errors.Is(err, fs.ErrExist) {
		tok, err = Read(dir)
		return tok, false, err
	} else if err != nil {
		return "", false, fmt.Errorf("create %s: %w", p, err)
	}
	return tok, true, nil
}

// Hash returns the hex SHA-256 of a token: what the store keeps of a named
// token. Tokens are 256 random bits, so a fast hash suffices: there is
// nothing to guess from it.
func Hash(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// MaxNameLen bounds a token's name.
const MaxNameLen = 64

// CheckName reports whether name can name a token: 1 to MaxNameLen
// letters, digits, '.', '_', '-' or '@', starting with a letter or digit.
// Other characters (':' in particular, which actors such as
// "manifest:FILE" use) are refused so a name reads the same in the event
// log and in an access log's user field.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("a token name has 1 to %d characters; %q has %d", MaxNameLen, name, len(name))
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			i > 0 && (r == '.' || r == '_' || r == '-' || r == '@')
		if !ok {
			return fmt.Errorf("token name %q: character %q at byte %d is not allowed (letters, digits, and . _ - @ after the first)", name, r, i)
		}
	}
	return nil
}
