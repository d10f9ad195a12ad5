package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeReloadable records the targets a reload sets and the reloads it
// is told to record.
type fakeReloadable struct {
	targets  []string
	recorded []string
}

func (f *fakeReloadable) RecordReload(_ context.Context, actor string, applied, restart []string) error {
	f.recorded = append(f.recorded, actor+" applied="+strings.Join(applied, ",")+" restart="+strings.Join(restart, ","))
	return nil
}

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
	r.reload(t.Context())
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
	// The event log records it in the name of the file read again.
	if want := []string{"config:" + file + " applied=log_level,notify_default restart=listen"}; !slices.Equal(d.recorded, want) {
		t.Errorf("recorded reloads %q; want %q", d.recorded, want)
	}

	logs.Reset()
	write("log_level = \"loud\"\nlisten = \"127.0.0.1:2\"\nnotify_default = [\"mailto:a@example.com\", \"mailto:b@example.com\"]\n")
	r.reload(t.Context())
	if level.Level() != slog.LevelDebug || !strings.Contains(logs.String(), "setting unchanged") {
		t.Errorf("a bad level: level %v, log:\n%s", level.Level(), logs.String())
	}
	logs.Reset()
	write("log_level = \"debug\"\nlisten = \"127.0.0.1:2\"\nnotify_default = [\"bad\"]\n")
	r.reload(t.Context())
	if len(d.targets) != 2 || !strings.Contains(logs.String(), "setting unchanged") {
		t.Errorf("a bad target replaced the targets (%q) or was not logged:\n%s", d.targets, logs.String())
	}
	logs.Reset()
	write("lisen = 1\n")
	r.reload(t.Context())
	if !strings.Contains(logs.String(), "unknown key") {
		t.Errorf("a broken file was not reported:\n%s", logs.String())
	}
}
