package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

func TestDirWatcherReportsChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("site.pp", "notify { 'a': }\n")
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(day0)
		w := NewDirWatcher(dir, clk, 2*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		defer func() { cancel(); <-done }()
		go func() { w.Run(ctx); close(done) }()
		synctest.Wait()
		step := func() string {
			clk.Advance(2 * time.Second)
			synctest.Wait()
			select {
			case s := <-w.Changes(): // the watcher is blocked sending it
				return s
			default:
				return ""
			}
		}
		if s := step(); s != "" {
			t.Fatalf("change %q with nothing changed", s)
		}
		write("site.pp", "notify { 'a': message => 'longer' }\n")
		write("notes.txt", "not a manifest")
		if s := step(); s != filepath.Join(dir, "site.pp") {
			t.Fatalf("change = %q, want site.pp", s)
		}
		os.Remove(filepath.Join(dir, "site.pp"))
		if s := step(); s != filepath.Join(dir, "site.pp")+" (removed)" {
			t.Fatalf("change = %q, want the removal", s)
		}
		if s := step(); s != "" {
			t.Fatalf("change %q repeated", s)
		}
	})
}
