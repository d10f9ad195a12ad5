package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/flagfile"
)

// flagValues is every flag's value as a string, by name.
func flagValues(fs *flag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { out[f.Name] = f.Value.String() })
	return out
}

// sampleValue is a value flag name accepts that differs from its default,
// found by trying it on a fresh flag set; TOML renders it in a file.
func sampleValue(t *testing.T, name string) (arg, toml string) {
	t.Helper()
	fs := newServeFlags(&env{stderr: io.Discard}).fs
	f := fs.Lookup(name)
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		v := strconv.FormatBool(f.DefValue != "true")
		return v, v
	}
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			return "7", "7"
		case float64:
			return "0.5", "0.5"
		case time.Duration:
			return "7s", `"7s"`
		}
	}
	for _, v := range []string{"sample", "a=1", "g=1", "10.0.0.0/8", "mailto:ops@example.com", "127.0.0.1:9", "7d,100", "64KiB"} {
		if err := fs.Set(name, v); err == nil && f.Value.String() != f.DefValue {
			return v, strconv.Quote(v)
		}
		fs = newServeFlags(&env{stderr: io.Discard}).fs
		f = fs.Lookup(name)
	}
	t.Fatalf("no sample value found for --%s; add one to sampleValue", name)
	return "", ""
}

// TestServeConfigEveryFlag checks that every serve flag has a key in the
// --config file and that setting the key does exactly what the flag does:
// after parsing, every flag holds the same value either way. Repeatable
// flags take an array, given twice on the command line.
func TestServeConfigEveryFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := 0
	newServeFlags(&env{stderr: io.Discard}).fs.VisitAll(func(f *flag.Flag) {
		if configOnlyFlags[f.Name] {
			return
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			arg, val := sampleValue(t, f.Name)
			args := []string{"--" + f.Name + "=" + arg}
			line := flagfile.Key(f.Name) + " = " + val
			if flagfile.Repeatable(f) {
				args = append(args, args[0])
				line = flagfile.Key(f.Name) + " = [" + val + ", " + val + "]"
			}
			byFlag := newServeFlags(&env{stderr: io.Discard})
			if _, err := parseFlags(byFlag.fs, args); err != nil {
				t.Fatalf("flags %v: %v", args, err)
			}
			file := filepath.Join(dir, f.Name+".toml")
			if err := os.WriteFile(file, []byte("# almanac\n"+line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			byFile := newServeFlags(&env{stderr: io.Discard})
			if _, err := parseFlags(byFile.fs, []string{"--config", file}); err != nil {
				t.Fatal(err)
			}
			if err := byFile.file.apply(byFile.fs, func(w string) { t.Errorf("warning: %s", w) }); err != nil {
				t.Fatalf("file %q: %v", line, err)
			}
			got, want := flagValues(byFile.fs), flagValues(byFlag.fs)
			delete(got, "config")
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s: --%s = %q by the file, %q by the flag", line, name, got[name], w)
				}
			}
		})
	})
	if n < 40 {
		t.Errorf("only %d serve flags seen; the flag set is not the one serve parses", n)
	}
}

// TestServeConfigErrors checks the file's errors: one line naming the file,
// line and column of the key, and what is wrong; and that flags override it.
func TestServeConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		src  string
		args []string
		want string // the error; empty for none
		// check, when set, inspects the flags afterwards
		check func(t *testing.T, s *serveFlags)
	}{
		{name: "unknown key", src: "listen = \"127.0.0.1:1\"\n  lisen = \"x\"\n", want: ":2:3: lisen: unknown key"},
		{name: "syntax error", src: "listen = \n", want: ":1:"},
		{name: "table", src: "[server]\nlisten = \"x\"\n", want: ":1:2: \"server\" is a table"},
		{name: "array for a single flag", src: "listen = [\"a\", \"b\"]\n", want: ":1:1: listen: takes one value, not an array"},
		{name: "string for a boolean", src: "demo = \"yes\"\n", want: ":1:1: demo: want true or false, not a string"},
		{name: "bad duration", src: "\ngrace = \"soon\"\n", want: ":2:1: grace: invalid value"},
		{name: "boolean for a string", src: "listen = true\n", want: ":1:1: listen: want a string or a number, not a boolean"},
		{name: "the key of --config itself", src: "config = \"other.toml\"\n", want: ":1:1: config: unknown key"},
		{
			name: "flags override the file", src: "listen = \"127.0.0.1:1\"\nnotify_default = [\"mailto:a@example.com\"]\n",
			args: []string{"--listen", "127.0.0.1:2", "--notify-default", "mailto:b@example.com"},
			check: func(t *testing.T, s *serveFlags) {
				if l, n := s.fs.Lookup("listen").Value.String(), s.fs.Lookup("notify-default").Value.String(); l != "127.0.0.1:2" || n != "mailto:b@example.com" {
					t.Errorf("listen %q notify-default %q, want the command line's", l, n)
				}
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, fmt.Sprintf("c%d.toml", i))
			if err := os.WriteFile(file, []byte(tt.src), 0o600); err != nil {
				t.Fatal(err)
			}
			s := newServeFlags(&env{stderr: io.Discard})
			if _, err := parseFlags(s.fs, append([]string{"--config", file}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			err := s.file.apply(s.fs, func(w string) { t.Errorf("warning: %s", w) })
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, s)
				return
			}
			var u *usageError
			if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), file+tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error = %v, want a one-line usage error containing %q", err, file+tt.want)
			}
		})
	}
}

// TestServePrintConfig checks --print-config: the effective settings, with
// secrets masked, in a form --config reads back to the same settings.
func TestServePrintConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "almanac.toml")
	src := "store = \"postgres://almanac:hunter2@db:5432/almanac\"\ntoken = \"s3cr3t-token-value-that-is-long-enough\"\n" +
		"reboot_group = [\"workers=1\"]\nfleetlock_secret = [\"workers=abcdefgh12\"]\ngrace = \"45s\"\nmax_connections = 12\n" +
		"notify_default = [\"https://hooks.example.com/services/T1/B2/WEBHOOKSECRET\", \"slack+https://hooks.slack.com/services/T/B/SLACKSECRET\", \"mailto:ops@example.com\"]\n" +
		"notify_webhook = \"https://fleet.example.com:8443/hook?key=FLEETSECRET\"\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(t.Context(), []string{"serve", "--config", file, "--listen", "127.0.0.1:9999", "--print-config"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		`store = "postgres://almanac:xxxxx@db:5432/almanac"`,
		`token = "********"`,
		`fleetlock_secret = ["workers=********"]`,
		`grace = "45s"` + "\n",
		"max_connections = 12\n",
		`listen = "127.0.0.1:9999"` + "\n",
		`log_level = "info" # default`,
		`notify_default = ["https://hooks.example.com/…", "slack+https://hooks.slack.com/…", "mailto:ops@example.com"]`,
		`notify_webhook = "https://fleet.example.com:8443/…"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("--print-config lacks %q:\n%s", want, got)
		}
	}
	for _, secret := range []string{"hunter2", "s3cr3t", "abcdefgh12", "WEBHOOKSECRET", "SLACKSECRET", "FLEETSECRET", "services/T"} {
		if strings.Contains(got, secret) {
			t.Errorf("--print-config shows the secret %q", secret)
		}
	}
	// The printed file is a valid configuration file.
	back := filepath.Join(dir, "printed.toml")
	if err := os.WriteFile(back, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newServeFlags(&env{stderr: io.Discard})
	if _, err := parseFlags(s.fs, []string{"--config", back}); err != nil {
		t.Fatal(err)
	}
	if err := s.file.apply(s.fs, func(w string) { t.Errorf("warning: %s", w) }); err != nil {
		t.Fatalf("reading --print-config's output back: %v", err)
	}
	if g := s.fs.Lookup("grace").Value.String(); g != "45s" {
		t.Errorf("grace read back = %s", g)
	}
}
