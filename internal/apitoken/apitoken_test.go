package apitoken_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/almanac-sh/almanac/internal/apitoken"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		tok  string
		want string // substring of the error; empty for valid
	}{
		{"s3cret", ""},
		{apitoken.Generate(), ""},
		{"", "empty"},
		{" ", "empty"},
		{"\t\n", "empty"},
		{"a b", "space"},
		{"ab\x01", "control"},
		{strings.Repeat("a", apitoken.MaxLen+1), "longer"},
	}
	for _, tt := range tests {
		t.Run(tt.tok, func(t *testing.T) {
			err := apitoken.Check(tt.tok)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Check(%q) = %v, want %q", tt.tok, err, tt.want)
			}
		})
	}
}

func TestLoadOrCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := apitoken.Read(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read before creation: %v", err)
	}
	tok, created, err := apitoken.LoadOrCreate(dir)
	if err != nil || !created || apitoken.Check(tok) != nil || len(tok) < 43 {
		t.Fatalf("LoadOrCreate = %q, %v, %v", tok, created, err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, apitoken.Path(dir): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	again, created, err := apitoken.LoadOrCreate(dir)
	if err != nil || created || again != tok {
		t.Errorf("second LoadOrCreate = %q, %v, %v; want the first token", again, created, err)
	}
	if got, err := apitoken.Read(dir); err != nil || got != tok {
		t.Errorf("Read = %q, %v", got, err)
	}
}

func TestLoadOrCreateConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	toks := make([]string, 8)
	for i := range toks {
		wg.Go(func() {
			tok, _, err := apitoken.LoadOrCreate(dir)
			if err != nil {
				t.Error(err)
			}
			toks[i] = tok
		})
	}
	wg.Wait()
	for _, tok := range toks {
		if tok != toks[0] {
			t.Fatalf("daemons starting together got different tokens: %q", toks)
		}
	}
}

func TestReadRefusesBadFiles(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"blank", " \n", "empty"},
		{"space inside", "a b\n", "space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(apitoken.Path(dir), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := apitoken.Read(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want %q", err, tt.want)
			}
			if _, _, err := apitoken.LoadOrCreate(dir); err == nil {
				t.Error("LoadOrCreate replaced a damaged token file instead of refusing it")
			}
		})
	}
	dir := t.TempDir()
	if err := os.Mkdir(apitoken.Path(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := apitoken.Read(dir); err == nil {
		t.Error("Read accepted a directory")
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"alice", "ci.deploy-bot", "a@example.com", "A1_b", strings.Repeat("x", apitoken.MaxNameLen)} {
		if err := apitoken.CheckName(ok); err != nil {
			t.Errorf("apitoken.CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-lead", ".x", "manifest:/etc/a.pp", "fleetlock:m1", "a b", "tab\tx", "é", "x/y", strings.Repeat("x", apitoken.MaxNameLen+1)} {
		if err := apitoken.CheckName(bad); err == nil {
			t.Errorf("apitoken.CheckName(%q) accepted", bad)
		}
	}
	if apitoken.Hash("a") == apitoken.Hash("b") || len(apitoken.Hash("a")) != 64 {
		t.Errorf("Hash: %q", apitoken.Hash("a"))
	}
}

// FuzzCheckName: no name panics, and an accepted one is printable ASCII
// without spaces or colons.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"alice", "manifest:x", "", "a\x00", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if apitoken.CheckName(name) != nil {
			return
		}
		for _, r := range name {
			if r <= ' ' || r > '~' || r == ':' {
				t.Fatalf("accepted %q with %q", name, r)
			}
		}
	})
}
