package inputfile_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/almanac-sh/almanac/internal/inputfile"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(regular, []byte("notify { 'x': }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pp")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "x.pp")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.pp")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	big := filepath.Join(dir, "big.pp")
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	inputfile.SetMaxSize(1024)
	defer inputfile.SetMaxSize(inputfile.DefaultMaxSize)

	tests := []struct {
		name    string
		path    string
		want    error
		message string
	}{
		{"regular", regular, nil, ""},
		{"symlink to regular", link, nil, ""},
		{"fifo", fifo, inputfile.ErrNotRegular, "named pipe"},
		{"socket", sock, inputfile.ErrNotRegular, "socket"},
		{"zero device", "/dev/zero", inputfile.ErrNotRegular, "character device"},
		{"directory", dir, inputfile.ErrNotRegular, "directory"},
		{"too large", big, inputfile.ErrTooLarge, "1024-byte limit"},
		{"missing", filepath.Join(dir, "nope.pp"), fs.ErrNotExist, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := inputfile.Read(tt.path)
			if tt.want == nil {
				if err != nil || !strings.Contains(string(b), "notify") {
					t.Fatalf("Read = %q, %v", b, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("Read error %v, want %v with %q", err, tt.want, tt.message)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"16777216", 16 << 20}, {"16MiB", 16 << 20}, {"512KiB", 512 << 10}, {"1GiB", 1 << 30},
		{"2m", 2 << 20}, {"10 MB", 10 << 20}, {"0", -1}, {"-5", -1}, {"lots", -1}, {"", -1}, {"99999999GiB", -1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := inputfile.ParseSize(tt.in)
			if tt.want < 0 {
				if err == nil {
					t.Fatalf("ParseSize(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
			}
		})
	}
}
