// Package servetest helps end-to-end tests run the real almanac binary: it
// builds cmd/almanac once per test process, keeps a daemon's output for
// failure reports, and reads the address a starting `almanac serve`
// reports.
package servetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Main runs the tests of a package that uses Binary and removes the built
// binary afterwards: func TestMain(m *testing.M) { os.Exit(servetest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	return code
}

// Binary builds cmd/almanac once per test process and returns its path; a
// failed build fails t.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "almanac-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "almanac")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/almanac-sh/almanac/cmd/almanac").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Log collects a process's output; it is safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// ServingURL reads the JSON log lines of `almanac serve --log-format json`
// from r until r ends, and sends on the returned channel the url of the
// first "serving" record: the address the daemon answers at. The channel is
// closed when r ends, so a daemon that exits without serving reads as a
// receive that is not ok.
func ServingURL(r io.Reader) <-chan string {
	urlc := make(chan string, 1)
	go func() {
		defer close(urlc)
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			var rec struct {
				Msg string `json:"msg"`
				URL string `json:"url"`
			}
			if !sent && json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "serving" {
				urlc <- rec.URL
				sent = true
			}
		}
		io.Copy(io.Discard, r) // a line too long for the scanner
	}()
	return urlc
}
