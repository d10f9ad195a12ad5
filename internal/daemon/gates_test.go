package daemon

import (
	"slices"
	"testing"
	"time"
)

// TestAnytimeGate: "anytime" is always open, unless a named window takes
// the name.
func TestAnytimeGate(t *testing.T) {
	var r *gateRegistry
	g, ok := r.Lookup("anytime")
	if !ok {
		t.Fatal("no anytime gate")
	}
	for _, at := range []time.Time{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 4, 13, 37, 0, 0, time.UTC)} {
		if !g.Contains(at) {
			t.Errorf("anytime closed at %s", at)
		}
		if open, ok := g.NextOpen(at); !ok || !open.Equal(at) {
			t.Errorf("anytime NextOpen(%s) = %s, %v", at, open, ok)
		}
	}
	if !slices.Contains(r.Names(), "anytime") {
		t.Errorf("Names() = %v, lacks anytime", r.Names())
	}
}
