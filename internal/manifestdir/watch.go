package manifestdir

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/memlimit"
)

// DefaultInterval is how often a Watcher polls when its config says 0.
const DefaultInterval = 2 * time.Second

// WatchConfig configures a Watcher. Clock and Accept are required.
type WatchConfig struct {
	// Clock times the polls.
	Clock clock.Clock
	// Interval between polls; 0 means DefaultInterval.
	Interval time.Duration
	// Accept receives each newly compiled snapshot. If it returns an
	// error the snapshot is rejected: the error is logged (a
	// manifest.ErrorList one line per entry) and the previous snapshot
	// stays current. Accept must leave things as they were when it fails.
	// The watcher keeps nothing of the catalog once Accept returns: what
	// Accept takes from it is all that stays in memory.
	Accept func(ctx context.Context, s *Snapshot) error
	// Logger receives reloads and rejected edits; nil discards them.
	Logger *slog.Logger
	// Changed, if set, is called once for each new content of the
	// directory, whether it compiles and Accept takes it or not, with a few
	// words naming the files that changed ("a.pp, b.pp (removed)"). The
	// first Check only records the contents it starts from. It is called
	// from Check and must not block: the daemon's agent queues an apply.
	Changed func(what string)
	// Compile are the catalog compiler's options (the daemon's named
	// windows, which a resource's schedule may name).
	Compile catalog.Options
}

// Watcher keeps a directory's catalog current: it polls the directory,
// compiles it when its contents change and hands the result to Accept.
type Watcher struct {
	dir string
	cfg WatchConfig
	log *slog.Logger

	check sync.Mutex // serialises Check
	// Under check: the snapshot in force (the last one Accept took)
	// without its catalog, and what the last reload logs.
	current          string // its hash; "" before the first
	files, resources int
	seen             string // hash of the last content compiled, good or bad
	logged           string // the last error Run logged, to log each one once
	buf              []byte // scan's read buffer

	// Under check: the content last reported to Changed.
	reported string              // its hash ("" before the first Check)
	digests  map[string][32]byte // its files' SHA-256, by path
}

// NewWatcher returns a watcher of dir. Nothing is read until Check or Run.
func NewWatcher(dir string, cfg WatchConfig) (*Watcher, error) {
	if cfg.Clock == nil || cfg.Accept == nil {
		return nil, errors.New("manifestdir: WatchConfig needs Clock and Accept")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{dir: dir, cfg: cfg, log: log}, nil
}

// Check reads the directory once. If its contents differ from the last
// ones looked at, it compiles them and offers the snapshot to Accept.
// changed reports whether a new snapshot was accepted. The error is the
// reason a changed directory was not accepted (a manifest.ErrorList for
// problems in the manifests). Content that does not compile is not
// compiled again (the next edit changes it); content Accept refused is
// offered again on the next Check, since what Accept depends on (the
// store, other jobs) may have changed.
//
// The daemon calls Check once at start-up and treats its error as fatal;
// Run calls it on every poll and logs its error.
func (w *Watcher) Check(ctx context.Context) (changed bool, err error) {
	w.check.Lock()
	defer w.check.Unlock()
	if w.buf == nil {
		w.buf = make([]byte, 64<<10)
	}
	// Hash first, holding no file; read only content not looked at yet.
	var in *Input
	hash, digests, err := scan(w.dir, w.buf)
	if errors.Is(err, errRead) {
		// Read reports what scan could not hash.
		if in, err = Read(w.dir); err != nil {
			return false, err
		}
		hash, digests = in.Hash, in.digests()
	}
	if err != nil {
		return false, err
	}
	// Changed hears of the content once this Check is done with it: the
	// apply it queues then compiles the directory after this compile's
	// catalog has gone, not beside it.
	defer func() { w.report(digests, hash) }()
	if hash == w.seen || hash == w.current {
		return false, nil
	}
	if in == nil {
		if in, err = Read(w.dir); err != nil {
			return false, err
		}
		// The files may have changed since the scan: what compiles is
		// what was read, and what Changed hears of.
		if in.Hash != hash {
			hash, digests = in.Hash, in.digests()
		}
		if hash == w.seen || hash == w.current {
			return false, nil
		}
	}
	s, err := snapshot(in, w.cfg.Compile)
	if err != nil {
		w.seen = hash
		return false, err
	}
	if err := w.cfg.Accept(ctx, s); err != nil {
		return false, err
	}
	w.seen = hash
	w.current, w.files, w.resources = hash, len(s.Files), s.Catalog.NumApplied()
	// What Accept kept is all that stays: the catalog (unreachable from
	// here on) and whatever Accept made of it on the way go back to the
	// system now.
	memlimit.Release(in.Size)
	return true, nil
}

// Run polls the directory every interval until ctx ends, logging each
// reload and each rejected edit. It returns ctx's error.
func (w *Watcher) Run(ctx context.Context) error {
	t := w.cfg.Clock.NewTimer(w.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
		}
		w.poll(ctx)
		t.Reset(w.cfg.Interval)
	}
}

// poll is one Check with its outcome logged.
func (w *Watcher) poll(ctx context.Context) {
	changed, err := w.Check(ctx)
	w.check.Lock()
	files, resources := w.files, w.resources
	w.check.Unlock()
	if err == nil || ctx.Err() != nil {
		w.logged = ""
	}
	switch {
	case err != nil && ctx.Err() != nil:
	case err != nil:
		if err.Error() == w.logged {
			return // the same refusal as last time: said once is enough
		}
		w.logged = err.Error()
		LogError(w.log, err, "manifests not reloaded; the previous ones stay in force", "dir", w.dir)
	case changed:
		w.log.Info("manifests reloaded", "dir", w.dir, "files", files, "resources", resources)
	}
}

// LogError logs err at error level with msg and args: a manifest.ErrorList
// as one line per positioned error (field "err"), then msg with the count.
func LogError(log *slog.Logger, err error, msg string, args ...any) {
	var el manifest.ErrorList
	if errors.As(err, &el) {
		for _, e := range el {
			log.Error("manifest error", "err", e.Error())
		}
		log.Error(msg, append(args, "errors", el.Count())...)
		return
	}
	log.Error(msg, append(args, "err", err)...)
}

// report calls Changed when the directory holds content it has not been
// told about (hash, its files' digests by path), naming what changed since
// the last call.
func (w *Watcher) report(digests map[string][32]byte, hash string) {
	if w.cfg.Changed == nil || hash == w.reported {
		return
	}
	first := w.reported == ""
	old := w.digests
	w.reported, w.digests = hash, digests
	if first {
		return
	}
	if what := describeChange(old, digests); what != "" {
		w.cfg.Changed(what)
	}
}

// describeChange names the files added, changed or removed between two
// sets of digests, sorted, the first three and a count of the rest.
func describeChange(old, cur map[string][32]byte) string {
	var changed []string
	for p, d := range cur {
		if o, ok := old[p]; !ok || o != d {
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
