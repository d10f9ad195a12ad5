package cluster

import (
	"context"
	"errors"
	"log/slog"

	"github.com/almanac-sh/almanac/internal/store"
)

// A follower's scheduling writes are refused by design: the store fences
// them by leadership term (store.ErrStaleTerm, "this node does not lead").
// Logged at ERROR they page whoever alerts on errors for a healthy
// cluster, once per wave step. QuietRefusals lowers such records to DEBUG;
// the change of leadership itself is logged once, at INFO or WARN, by
// Node.Run.

// QuietRefusals returns a handler that passes records to h, except that a
// record whose attributes (at any depth of groups) hold an error wrapping
// store.ErrStaleTerm is passed at DEBUG, whatever its level.
func QuietRefusals(h slog.Handler) slog.Handler { return quietHandler{h} }

type quietHandler struct{ h slog.Handler }

// Enabled implements slog.Handler. A record below the inner handler's
// level may still be one to lower; lowering only drops records, so asking
// the inner handler is enough.
func (q quietHandler) Enabled(ctx context.Context, l slog.Level) bool { return q.h.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (q quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level <= slog.LevelDebug || !refusal(r) {
		return q.h.Handle(ctx, r)
	}
	if !q.h.Enabled(ctx, slog.LevelDebug) {
		return nil
	}
	lowered := slog.NewRecord(r.Time, slog.LevelDebug, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		lowered.AddAttrs(a)
		return true
	})
	return q.h.Handle(ctx, lowered)
}

// WithAttrs implements slog.Handler. Attributes bound with With are not
// looked into: a refusal travels in the record's own "err".
func (q quietHandler) WithAttrs(as []slog.Attr) slog.Handler { return quietHandler{q.h.WithAttrs(as)} }

// WithGroup implements slog.Handler.
func (q quietHandler) WithGroup(name string) slog.Handler { return quietHandler{q.h.WithGroup(name)} }

// refusal reports whether r carries a stale-term error.
func refusal(r slog.Record) bool {
	found := false
	var walk func(a slog.Attr) bool
	walk = func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindGroup:
			for _, g := range v.Group() {
				walk(g)
			}
		case slog.KindAny:
			if err, ok := v.Any().(error); ok && errors.Is(err, store.ErrStaleTerm) {
				found = true
			}
		}
		return !found
	}
	r.Attrs(walk)
	return found
}
