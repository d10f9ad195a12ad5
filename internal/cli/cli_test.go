package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// runCLI runs Main with args and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestMainDispatch(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrRe string
	}{
		{"no args", nil, exitUsage, "Usage", ""},
		{"help", []string{"help"}, exitOK, "Commands:", ""},
		{"unknown", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"version", []string{"version"}, exitOK, "almanac ", ""},
		{"version extra", []string{"version", "x"}, exitUsage, "", `unexpected argument "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("code = %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", out, tt.stdout)
			}
			if !strings.Contains(errOut, tt.stderrRe) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.stderrRe)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("stderr has more than one line: %q", errOut)
			}
		})
	}
}

func TestParseFlagsInterleaved(t *testing.T) {
	tests := []struct {
		args []string
		pos  []string
		n    int
	}{
		{[]string{"-n", "3", "a"}, []string{"a"}, 3},
		{[]string{"a", "-n", "3"}, []string{"a"}, 3},
		{[]string{"a", "-n", "3", "b"}, []string{"a", "b"}, 3},
		{[]string{"a", "--", "-n", "4"}, []string{"a", "-n", "4"}, 5},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := newFlagSet("t")
			n := fs.Int("n", 5, "")
			pos, err := parseFlags(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pos, tt.pos) || *n != tt.n {
				t.Fatalf("got %q n=%d, want %q n=%d", pos, *n, tt.pos, tt.n)
			}
		})
	}
}

// TestCommandHelp checks that every command answers -h, --help and
// 'almanac help CMD' with its synopsis and flags on stdout and exit 0.
func TestCommandHelp(t *testing.T) {
	for name := range commands {
		if synopses[name] == "" {
			t.Errorf("command %q has no synopsis in help.go", name)
		}
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				out, errOut, code := runCLI(t, args...)
				if code != exitOK || errOut != "" {
					t.Fatalf("code = %d, stderr %q; want 0 and nothing", code, errOut)
				}
				if !strings.Contains(out, "Usage: almanac "+name) {
					t.Errorf("stdout %q lacks the synopsis", out)
				}
				if !strings.Contains(out, "Flags:") {
					t.Errorf("stdout %q lacks the flags", out)
				}
			})
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown command", []string{"help", "nope"}, exitUsage, `unknown command "nope"`},
		{"help after args", []string{"next", "* * * * *", "--help"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("code = %d stderr %q; want %d and %q", code, errOut, tt.code, tt.stderr)
			}
		})
	}
}

// TestServeUsageErrors checks that serve rejects a bad --listen port and a
// missing or non-directory --manifests before opening anything (exit 2).
func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "site.pp")
	if err := os.WriteFile(file, []byte("notify { 'x': }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"port too big", []string{"--listen", "127.0.0.1:99999"}, `almanac: serve: --listen "127.0.0.1:99999": port 99999 out of range 0-65535` + "\n"},
		{"missing manifests", []string{"--manifests", missing, "--noop"}, "almanac: serve: --manifests: " + missing + ": no such file or directory\n"},
		{"manifests is a file", []string{"--manifests", file, "--noop"}, "almanac: serve: --manifests " + file + " is not a directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			args := append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0"}, tt.args...)
			_, errOut, code := runCLI(t, args...)
			if code != exitUsage || errOut != tt.want {
				t.Fatalf("code %d stderr %q; want %d %q", code, errOut, exitUsage, tt.want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("the data directory was created: %v", err)
			}
		})
	}
}
