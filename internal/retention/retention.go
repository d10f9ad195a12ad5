// Package retention bounds what the daemon keeps that would otherwise grow
// with its uptime: the event log, by age and by count (serve
// --keep-events), pruned on a timer. Run history is bounded per job by the
// jobs' own history limits and captured output per run by serve
// --max-output, so the daemon's disk use is a function of its jobs and
// these settings (docs/daemon.md has the sizing table).
package retention

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// Default is serve's --keep-events: a month of events, and at most a
// hundred thousand of them (about 30 MB; docs/daemon.md).
var Default = Events{MaxAge: 30 * 24 * time.Hour, MaxCount: 100000}

// maxCount bounds a count limit, so a typo cannot overflow anything.
const maxCount = 1 << 40

// Events is how much of the event log to keep: events older than MaxAge
// go, and beyond the newest MaxCount; a zero field sets no bound of its
// kind. It is a flag.Value: "30d,100000", "720h", "50000" or "all".
type Events struct {
	MaxAge   time.Duration
	MaxCount int
}

// ParseEvents reads a --keep-events value: comma-separated limits, each an
// age (a Go duration such as 720h, or a number of days such as 30d) or a
// count (a bare number); or "all" to keep every event.
func ParseEvents(s string) (Events, error) {
	s = strings.TrimSpace(s)
	if s == "all" {
		return Events{}, nil
	}
	if s == "" {
		return Events{}, errors.New(`empty; want an age (30d, 720h), a count (100000), both separated by a comma, or "all"`)
	}
	var e Events
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			return Events{}, fmt.Errorf("%q: empty limit", s)
		case strings.Trim(part, "0123456789") == "":
			n, err := strconv.ParseInt(part, 10, 64)
			if err != nil || n <= 0 || n > maxCount {
				return Events{}, fmt.Errorf("%q: count %s: want a whole number from 1 to %d", s, part, int64(maxCount))
			}
			if e.MaxCount != 0 {
				return Events{}, fmt.Errorf("%q: two counts", s)
			}
			e.MaxCount = int(n)
		default:
			d, err := parseAge(part)
			if err != nil {
				return Events{}, fmt.Errorf("%q: %w", s, err)
			}
			if e.MaxAge != 0 {
				return Events{}, fmt.Errorf("%q: two ages", s)
			}
			e.MaxAge = d
		}
	}
	return e, nil
}

// maxDays is the longest age in days a time.Duration holds.
const maxDays = int(math.MaxInt64 / int64(24*time.Hour))

// parseAge reads 30d (days) or a Go duration of at least a minute.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok && days != "" && strings.Trim(days, "0123456789") == "" {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > maxDays {
			return 0, fmt.Errorf("age %s: want 1d to %dd", s, maxDays)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Minute {
		return 0, fmt.Errorf("age %s: want a duration of at least 1m (like 720h) or days (like 30d)", s)
	}
	return d, nil
}

// String formats e as ParseEvents reads it.
func (e Events) String() string {
	var parts []string
	if e.MaxAge > 0 {
		if e.MaxAge%(24*time.Hour) == 0 {
			parts = append(parts, strconv.FormatInt(int64(e.MaxAge/(24*time.Hour)), 10)+"d")
		} else {
			parts = append(parts, e.MaxAge.String())
		}
	}
	if e.MaxCount > 0 {
		parts = append(parts, strconv.Itoa(e.MaxCount))
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value.
func (e *Events) Set(s string) error {
	v, err := ParseEvents(s)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Unbounded reports whether e keeps every event.
func (e Events) Unbounded() bool { return e.MaxAge <= 0 && e.MaxCount <= 0 }

// EventPruner is what a Pruner needs of the store.
type EventPruner interface {
	EventPrune(ctx context.Context, p store.EventPruneParams) (int, error)
}

// Pruner deletes the events beyond its limits every Interval.
type Pruner struct {
	Store    EventPruner
	Keep     Events
	Interval time.Duration
	Clock    clock.Clock
	Log      *slog.Logger
}

// DefaultInterval is how often the event log is pruned.
const DefaultInterval = 10 * time.Minute

// Run prunes at once and then every Interval until ctx ends.
func (p *Pruner) Run(ctx context.Context) {
	if p.Keep.Unbounded() {
		return
	}
	every := p.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	for {
		p.Once(ctx)
		t := p.Clock.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// Once prunes the event log once and logs what it deleted.
func (p *Pruner) Once(ctx context.Context) (int, error) {
	params := store.EventPruneParams{Keep: p.Keep.MaxCount}
	if p.Keep.MaxAge > 0 {
		params.Before = p.Clock.Now().Add(-p.Keep.MaxAge)
	}
	n, err := p.Store.EventPrune(ctx, params)
	switch {
	case err != nil && ctx.Err() == nil:
		p.Log.Error("pruning the event log failed; will try again", "err", err)
	case n > 0:
		p.Log.Info("pruned the event log", "deleted", n, "keep", p.Keep.String())
	}
	return n, err
}
