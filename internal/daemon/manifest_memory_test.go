package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
	"github.com/almanac-sh/almanac/internal/manifestdir"
)

// memoryManifest names every kind of thing a load keeps: jobs (one gated
// by a schedule, with a zone in tag form and one in IANA form), a
// schedule, a reboot group, a defined type and its instance.
const memoryManifest = `
schedule { 'maint-window':
  range   => '02:00 - 04:00',
  weekday => ['Sat', 'Sun'],
}
define site::backup_target($path) {
  job { "backup-${title}":
    cron    => '0 3 * * *',
    command => ['/usr/bin/rsync', '-a', $path, '/srv/backup'],
  }
}
site::backup_target { 'home': path => '/home' }
job { 'nightly-dump':
  cron      => '0 2 * * *',
  time_zone => 'europe-berlin',
  command   => 'pg_dump --file /srv/dump.sql',
  schedule  => 'maint-window',
}
job { 'hourly-report':
  cron      => '15 * * * *',
  time_zone => 'America/New_York',
  command   => ['/usr/local/bin/report', '--hourly'],
}
reboot_group { 'db': max_holders => 1, window => 'maint-window' }
`

// TestManifestTextNotKept: once the daemon has taken a load's jobs, gates
// and schedules, the text of its manifests is garbage. A single string
// that still points into the text (a name used as a cache key, a value
// kept as it was parsed) would keep all of it, which at 100,000 jobs is
// megabytes held for as long as the daemon runs.
func TestManifestTextNotKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte("notify { 'placeholder': }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A fake clock that is never advanced: the watcher never polls, and
	// the test's load is the only one besides the start's.
	clk := clock.NewFake(time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC))
	d := daemontest.Start(t, daemontest.Options{Clock: clk, Args: []string{"--manifests", dir}})
	ctx := context.Background()

	// The text is built at run time, so that it is an allocation of its
	// own and not a constant in the binary.
	text := strings.Clone(memoryManifest)
	textPtr := weak.Make(unsafe.StringData(text))
	load := func() error {
		cat, err := catalog.CompileSources(catalog.Options{Node: "test-node"}, catalog.Source{Name: "memory.pp", Text: text})
		if err != nil {
			return err
		}
		return daemon.AcceptManifests(ctx, d.Daemon, &manifestdir.Snapshot{Dir: dir, Files: []string{"memory.pp"}, Catalog: cat, Size: len(text)})
	}
	if err := load(); err != nil {
		t.Fatal(err)
	}
	text = ""
	for _, name := range []string{"nightly-dump", "hourly-report", "backup-home"} {
		if _, err := d.Client.JobGet(ctx, name); err != nil {
			t.Fatalf("manifest job %s not loaded: %v", name, err)
		}
	}
	// The load notifies the job controller of each job by name, and its
	// next step drops those names: look until then. runtime.GC returns
	// once its cycle has swept, which clears the weak pointers of what it
	// found unreachable.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(10 * time.Second)
	for {
		runtime.GC()
		if textPtr.Value() == nil {
			return
		}
		select {
		case <-tick.C:
		case <-limit:
			t.Fatal("the manifest text is still reachable 10 s after the load: something the daemon keeps points into it")
		}
	}
}
