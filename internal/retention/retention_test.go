package retention

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

func TestParseEvents(t *testing.T) {
	tests := []struct {
		in   string
		want Events
		err  string
	}{
		{"30d,100000", Events{30 * 24 * time.Hour, 100000}, ""},
		{"100000, 30d", Events{30 * 24 * time.Hour, 100000}, ""},
		{"720h", Events{MaxAge: 720 * time.Hour}, ""},
		{"5000", Events{MaxCount: 5000}, ""},
		{"all", Events{}, ""},
		{"", Events{}, "empty"},
		{"0", Events{}, "count 0"},
		{"30s", Events{}, "at least 1m"},
		{"1d,2d", Events{}, "two ages"},
		{"5,6", Events{}, "two counts"},
		{"30d,", Events{}, "empty limit"},
		{"99999999999999999999", Events{}, "count"},
		{"forever", Events{}, "age forever"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseEvents(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseEvents(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseEvents(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			if back, err := ParseEvents(got.String()); err != nil || back != got {
				t.Errorf("round trip of %q through %q = %+v, %v", tt.in, got.String(), back, err)
			}
		})
	}
}

func FuzzParseEvents(f *testing.F) {
	for _, s := range []string{"30d,100000", "720h", "5000", "all", "", "1d,2d", "-1", "9223372036854775807d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEvents(s)
		if err != nil {
			return
		}
		if e.MaxAge < 0 || e.MaxCount < 0 {
			t.Fatalf("ParseEvents(%q) = %+v: negative limit", s, e)
		}
		if back, err := ParseEvents(e.String()); err != nil || back != e {
			t.Fatalf("round trip of %q through %q = %+v, %v", s, e.String(), back, err)
		}
	})
}

type fakePruner struct{ got []store.EventPruneParams }

func (f *fakePruner) EventPrune(_ context.Context, p store.EventPruneParams) (int, error) {
	f.got = append(f.got, p)
	return 3, nil
}

// TestPrunerOnce: the age limit is counted back from the clock.
func TestPrunerOnce(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	f := &fakePruner{}
	p := &Pruner{Store: f, Keep: Events{MaxAge: 48 * time.Hour, MaxCount: 10}, Clock: clock.NewFake(now), Log: slog.New(slog.DiscardHandler)}
	if n, err := p.Once(context.Background()); n != 3 || err != nil {
		t.Fatalf("Once = %d, %v", n, err)
	}
	want := store.EventPruneParams{Before: now.Add(-48 * time.Hour), Keep: 10}
	if len(f.got) != 1 || f.got[0] != want {
		t.Fatalf("pruned with %+v, want %+v", f.got, want)
	}
}
