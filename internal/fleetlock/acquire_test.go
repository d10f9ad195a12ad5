package fleetlock_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleetlock"
)

// TestAcquireSharesSlotsWithZincati: a job's Acquire and a Zincati
// pre-reboot count against the same slots and the same window.
func TestAcquireSharesSlotsWithZincati(t *testing.T) {
	clk := clock.NewFake(t0) // a Wednesday: the db group's weekend window is closed
	st := openSQLite(t, clk)
	s, srv := newLockServer(t, st, clk)
	ctx := t.Context()

	if err := s.Acquire(ctx, "default", "node-a"); err != nil {
		t.Fatalf("Acquire(node-a) = %v", err)
	}
	if err := s.Acquire(ctx, "default", "node-a"); err != nil {
		t.Errorf("Acquire again by its holder = %v, want nil", err)
	}
	if code, _ := zincati(t, srv.URL+"/fleetlock", "pre-reboot", "zincati-1", "default", true); code != http.StatusConflict {
		t.Errorf("Zincati's pre-reboot while a job holds the one slot: %d, want 409", code)
	}
	if err := s.Release(ctx, "default", "node-a"); err != nil {
		t.Fatal(err)
	}
	if code, _ := zincati(t, srv.URL+"/fleetlock", "pre-reboot", "zincati-1", "default", true); code != http.StatusOK {
		t.Errorf("Zincati's pre-reboot after the job released: %d, want 200", code)
	}
	if err := s.Acquire(ctx, "default", "node-a"); !errors.Is(err, fleetlock.ErrSlotRefused) {
		t.Errorf("Acquire while Zincati holds the slot = %v, want ErrSlotRefused", err)
	}
	if err := s.Acquire(ctx, "db", "node-a"); !errors.Is(err, fleetlock.ErrSlotRefused) {
		t.Errorf("Acquire outside the group's window = %v, want ErrSlotRefused", err)
	}
	if err := s.Acquire(ctx, "nope", "node-a"); err == nil || errors.Is(err, fleetlock.ErrSlotRefused) {
		t.Errorf("Acquire in an unknown group = %v, want a configuration error", err)
	}
	if err := s.Release(ctx, "default", "never-held"); err != nil {
		t.Errorf("Release of a slot not held = %v", err)
	}
}
