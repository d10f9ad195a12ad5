package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestQuietRefusals: a follower's fenced writes are logged at DEBUG, not
// ERROR, whether the refusal is the store's or the gate's and however
// deeply wrapped; other errors keep their level.
func TestQuietRefusals(t *testing.T) {
	notLeading := fmt.Errorf("record wave step: %w", fmt.Errorf("%s: this node does not lead: %w", "release run", store.ErrStaleTerm))
	for _, tt := range []struct {
		name  string
		log   func(l *slog.Logger)
		level string // "" when nothing is written at INFO
		debug string // what is written at DEBUG
	}{
		{"stale term", func(l *slog.Logger) { l.Error("release runs", "err", store.ErrStaleTerm) }, "", "level=DEBUG"},
		{"does not lead", func(l *slog.Logger) { l.Error("wave step", "job", "patch", "err", notLeading) }, "", "level=DEBUG"},
		{"in a group", func(l *slog.Logger) { l.Warn("prune", slog.Group("run", "id", 7, "err", notLeading)) }, "", "level=DEBUG"},
		{"with attributes bound", func(l *slog.Logger) { l.With("component", "controller").Error("flush", "err", notLeading) }, "", "component=controller"},
		{"another error", func(l *slog.Logger) { l.Error("flush", "err", errors.New("disk full")) }, "level=ERROR", "level=ERROR"},
		{"no error", func(l *slog.Logger) { l.Warn("slow") }, "level=WARN", "level=WARN"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, lv := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
				var b bytes.Buffer
				tt.log(slog.New(QuietRefusals(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: lv}))))
				out := b.String()
				want := tt.level
				if lv == slog.LevelDebug {
					want = tt.debug
				}
				if want == "" && out != "" || want != "" && !strings.Contains(out, want) {
					t.Errorf("at %s: logged %q, want %q", lv, out, want)
				}
				if strings.Contains(out, "level=ERROR") && tt.level != "level=ERROR" {
					t.Errorf("a refusal was logged at ERROR: %q", out)
				}
			}
		})
	}
}
