package manifestdir

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// titles lists the applied resources' titles of s.
func titles(s *Snapshot) string {
	var out []string
	for _, r := range s.Catalog.Applied() {
		out = append(out, r.Title)
	}
	return strings.Join(out, ",")
}

// syncBuffer is a log sink safe for the watcher goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatcherCheck(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': }\n"})
	var accepted []string
	refuse := ""
	w, err := NewWatcher(dir, WatchConfig{Clock: clock.NewFake(time.Unix(0, 0)), Accept: func(_ context.Context, s *Snapshot) error {
		if refuse != "" && strings.Contains(titles(s), refuse) {
			return errors.New("refused " + refuse)
		}
		accepted = append(accepted, titles(s))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	step := func(name string, wantChanged bool, wantErr string, wantCurrent string) {
		t.Helper()
		changed, err := w.Check(ctx)
		if changed != wantChanged {
			t.Errorf("%s: changed = %v, want %v", name, changed, wantChanged)
		}
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", name, err, wantErr)
		}
		if got := accepted[len(accepted)-1]; got != wantCurrent {
			t.Errorf("%s: current = %q, want %q", name, got, wantCurrent)
		}
	}
	step("first load", true, "", "a")
	step("no change", false, "", "a")
	write(t, dir, map[string]string{"b.pp": "notify { 'b': }\n"})
	step("file added", true, "", "a,b")
	write(t, dir, map[string]string{"b.pp": "notify { 'b': \n"})
	step("broken edit", false, "b.pp:2:1", "a,b")
	step("broken edit seen again", false, "", "a,b")
	write(t, dir, map[string]string{"b.pp": "notify { 'c': }\n"})
	step("fixed", true, "", "a,c")
	refuse = "d"
	write(t, dir, map[string]string{"b.pp": "notify { 'd': }\n"})
	step("refused by Accept", false, "refused d", "a,c")
	step("refused again: retried", false, "refused d", "a,c")
	refuse = ""
	step("accepted once Accept agrees", true, "", "a,d")
	if err := os.Remove(filepath.Join(dir, "b.pp")); err != nil {
		t.Fatal(err)
	}
	step("file removed", true, "", "a")
	write(t, dir, map[string]string{"b.pp": "notify { 'd': }\n"})
	step("back to earlier content", true, "", "a,d")
	if got, want := strings.Join(accepted, " "), "a a,b a,c a,d a a,d"; got != want {
		t.Errorf("accepted %q, want %q", got, want)
	}
}

func TestWatcherRun(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': }\n"})
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	got := make(chan string, 10)
	var logs syncBuffer
	w, err := NewWatcher(dir, WatchConfig{
		Clock: clk, Interval: 5 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Accept: func(_ context.Context, s *Snapshot) error { got <- titles(s); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	<-got
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	waitTimer := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for clk.PendingTimers() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the watcher never armed its timer")
			}
			time.Sleep(time.Millisecond) // waiting for the goroutine, not for time
		}
	}
	waitTimer()
	write(t, dir, map[string]string{"a.pp": "notify { 'a2': }\n"})
	clk.Advance(4 * time.Second)
	select {
	case s := <-got:
		t.Fatalf("reloaded %q before the interval", s)
	default:
	}
	clk.Advance(time.Second)
	if s := <-got; s != "a2" {
		t.Errorf("reloaded %q, want a2", s)
	}
	waitTimer()
	write(t, dir, map[string]string{"a.pp": "notify { 'a3' \n"})
	clk.Advance(5 * time.Second)
	waitTimer()
	clk.Advance(5 * time.Second) // the same broken content: not logged twice
	waitTimer()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "msg=\"manifests reloaded\"") {
		t.Errorf("no reload logged:\n%s", out)
	}
	if strings.Count(out, "manifests not reloaded") != 1 || !strings.Contains(out, "a.pp:2:1") {
		t.Errorf("want the broken edit logged once with its position:\n%s", out)
	}
	select {
	case s := <-got:
		t.Errorf("accepted %q after a2, want the last good a2 to stay", s)
	default:
	}
}

// Changed hears of every new content once, compiled or not, accepted or
// not, but not of the contents the watcher starts from.
func TestWatcherChanged(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': }\n", "b.pp": "notify { 'b': }\n"})
	var heard []string
	refuse := false
	w, err := NewWatcher(dir, WatchConfig{
		Clock: clock.NewFake(time.Unix(0, 0)),
		Accept: func(context.Context, *Snapshot) error {
			if refuse {
				return errors.New("refused")
			}
			return nil
		},
		Changed: func(what string) { heard = append(heard, what) },
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.pp"), filepath.Join(dir, "b.pp")
	steps := []struct {
		name string
		edit func()
		want string // "" for no call
	}{
		{"start", func() {}, ""},
		{"no change", func() {}, ""},
		{"edit", func() { write(t, dir, map[string]string{"a.pp": "notify { 'a2': }\n"}) }, a},
		{"broken edit", func() { write(t, dir, map[string]string{"b.pp": "notify {\n"}) }, b},
		{"still broken", func() {}, ""},
		{"refused by Accept", func() { refuse = true; write(t, dir, map[string]string{"b.pp": "notify { 'b2': }\n"}) }, b},
		{"refused again", func() {}, ""},
		{"accepted at last", func() { refuse = false }, ""},
		{"removed and added", func() {
			os.Remove(a)
			write(t, dir, map[string]string{"c.pp": "notify { 'c': }\n"})
		}, a + " (removed), " + filepath.Join(dir, "c.pp")},
		{"many", func() {
			write(t, dir, map[string]string{"d.pp": "", "e.pp": "", "f.pp": "", "g.pp": ""})
		}, filepath.Join(dir, "d.pp") + ", " + filepath.Join(dir, "e.pp") + ", " + filepath.Join(dir, "f.pp") + " and 1 more"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			heard = nil
			s.edit()
			w.Check(context.Background())
			got := strings.Join(heard, "|")
			if got != s.want {
				t.Errorf("Changed(%q), want %q", got, s.want)
			}
		})
	}
}

// TestWatcherChangedAfterAccept: Changed hears of new content only once
// Check is done with it, so that what it sets off (the daemon's agent
// compiles the directory again) does not hold a second catalog in memory
// beside the one being accepted.
func TestWatcherChangedAfterAccept(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.pp": "notify { 'a': }\n"})
	var events []string
	w, err := NewWatcher(dir, WatchConfig{
		Clock: clock.NewFake(time.Unix(0, 0)),
		Accept: func(context.Context, *Snapshot) error {
			events = append(events, "accept")
			return nil
		},
		Changed: func(string) { events = append(events, "changed") },
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit string
		want []string
	}{
		{"start", "notify { 'a': }\n", []string{"accept"}},
		{"edit", "notify { 'a2': }\n", []string{"accept", "changed"}},
		{"broken edit", "notify {\n", []string{"changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events = nil
			write(t, dir, map[string]string{"a.pp": tt.edit})
			w.Check(context.Background())
			if !slices.Equal(events, tt.want) {
				t.Errorf("events = %v, want %v", events, tt.want)
			}
		})
	}
}
