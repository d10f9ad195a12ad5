package cli

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeReloadable records the targets a reload sets.
type fakeReloadable struct{ targets []string }

func (f *fakeReloadable) SetNotifyDefault(t []string) error {
	if slices.Contains(t, "bad") {
		return errors.New("bad target")
	}
	f.targets = t
	return nil
}

func TestReload(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "almanac.toml")
	write := func(src string) {
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("log_level = \"info\"\nlisten = \"127.0.0.1:1\"\n")
	args := []string{"--config", file, "--grace", "5s"}
	s := newServeFlags(&env{stderr: io.Discard})
	if _, err := parseFlags(s.fs, args); err != nil {
		t.Fatal(err)
	}
	if err := s.file.apply(s.fs, func(w string) { t.Errorf("warning: %s", w) }); err != nil {
		t.Fatal(err)
	}
	level := new(slog.LevelVar)
	var logs bytes.Buffer
	d := &fakeReloadable{}
	r := newReloader(args, s.fs, level, d, slog.New(slog.NewTextHandler(&logs, nil)))

	write("log_level = \"debug\"\nlisten = \"127.0.0.1:2\"\nnotify_default = [\"mailto:a@example.com\", \"mailto:b@example.com\"]\ngrace = \"9s\"\n")
	r.reload()
	if level.Level() != slog.LevelDebug {
		t.Errorf("level = %v, want debug", level.Level())
	}
	if !slices.Equal(d.targets, []string{"mailto:a@example.com", "mailto:b@example.com"}) {
		t.Errorf("notify targets = %q", d.targets)
	}
	out := logs.String()
	// listen changed and needs a restart; grace is given on the command
	// line, which still overrides the file.
	if !strings.Contains(out, "take effect only after a restart") || !strings.Contains(out, "settings=[listen]") {
		t.Errorf("reload log lacks the restart notice for listen only:\n%s", out)
	}

	logs.Reset()
	write("log_level = \"loud\"\nlisten = \"127.0.0.1:2\"\nnotify_default = [\"mailto:a@example.com\", \"mailto:b@example.com\"]\n")
	r.reload()
	if level.Level() != slog.LevelDebug || !strings.Contains(logs.String(), "setting unchanged") {
		t.Errorf("a bad level: level %v, log:\n%s", level.Level(), logs.String())
	}
	logs.Reset()
	write("log_level = \"debug\"\nlisten = \"127.0.0.1:2\"\nnotify_default = [\"bad\"]\n")
	r.reload()
	if len(d.targets) != 2 || !strings.Contains(logs.String(), "setting unchanged") {
		t.Errorf("a bad target replaced the targets (%q) or was not logged:\n%s", d.targets, logs.String())
	}
	logs.Reset()
	write("lisen = 1\n")
	r.reload()
	if !strings.Contains(logs.String(), "unknown key") {
		t.Errorf("a broken file was not reported:\n%s", logs.String())
	}
}
