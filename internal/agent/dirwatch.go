package agent

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// DirWatcher is a Watcher over the *.pp files of a directory tree. It polls
// (portable, no inotify limits) at a fixed period on its clock and reports a
// change when a file appears, disappears, or changes size or modification
// time. Start it with Run.
type DirWatcher struct {
	dir   string
	clock clock.Clock
	every time.Duration
	ch    chan string
}

// NewDirWatcher returns a watcher of dir polling every period.
func NewDirWatcher(dir string, c clock.Clock, every time.Duration) *DirWatcher {
	return &DirWatcher{dir: dir, clock: c, every: every, ch: make(chan string)}
}

// Changes implements Watcher.
func (w *DirWatcher) Changes() <-chan string { return w.ch }

type fileStamp struct {
	size int64
	mod  time.Time
}

func (w *DirWatcher) scan() map[string]fileStamp {
	out := map[string]fileStamp{}
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".pp") {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[p] = fileStamp{fi.Size(), fi.ModTime()}
		}
		return nil
	})
	return out
}

// diff names what changed between two scans ("" if nothing).
func diff(old, cur map[string]fileStamp) string {
	var changed []string
	for p, s := range cur {
		if o, ok := old[p]; !ok || o != s {
			changed = append(changed, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			changed = append(changed, p+" (removed)")
		}
	}
	if len(changed) == 0 {
		return ""
	}
	sort.Strings(changed)
	if len(changed) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(changed[:3], ", "), len(changed)-3)
	}
	return strings.Join(changed, ", ")
}

// Run polls until ctx ends.
func (w *DirWatcher) Run(ctx context.Context) {
	last := w.scan()
	t := w.clock.NewTimer(w.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		cur := w.scan()
		if what := diff(last, cur); what != "" {
			select {
			case w.ch <- what:
			case <-ctx.Done():
				return
			}
		}
		last = cur
		t.Reset(w.every)
	}
}
