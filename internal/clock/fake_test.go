package clock

import (
	"testing"
	"time"
)

var epoch = time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)

func fired(t Timer) bool {
	select {
	case <-t.C():
		return true
	default:
		return false
	}
}

func TestFakeTimers(t *testing.T) {
	tests := []struct {
		name    string
		timer   time.Duration
		advance []time.Duration
		want    bool
	}{
		{"before deadline", time.Minute, []time.Duration{59 * time.Second}, false},
		{"at deadline", time.Minute, []time.Duration{time.Minute}, true},
		{"in steps", time.Minute, []time.Duration{30 * time.Second, 30 * time.Second}, true},
		{"zero duration fires at once", 0, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFake(epoch)
			tm := f.NewTimer(tc.timer)
			for _, d := range tc.advance {
				f.Advance(d)
			}
			if got := fired(tm); got != tc.want {
				t.Fatalf("fired = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFakeStopResetAndDeadlines(t *testing.T) {
	f := NewFake(epoch)
	a := f.NewTimer(2 * time.Minute)
	b := f.NewTimer(time.Minute)
	if n := f.PendingTimers(); n != 2 {
		t.Fatalf("PendingTimers = %d, want 2", n)
	}
	if d, ok := f.NextDeadline(); !ok || !d.Equal(epoch.Add(time.Minute)) {
		t.Fatalf("NextDeadline = %v %v, want %v", d, ok, epoch.Add(time.Minute))
	}
	if !b.Stop() {
		t.Fatal("Stop of an armed timer reported inactive")
	}
	if b.Stop() {
		t.Fatal("second Stop reported active")
	}
	f.Advance(time.Minute)
	if fired(b) {
		t.Fatal("stopped timer fired")
	}
	a.Reset(time.Hour)
	f.Advance(2 * time.Minute)
	if fired(a) {
		t.Fatal("reset timer fired at its old deadline")
	}
	f.Set(epoch.Add(time.Minute + time.Hour))
	if !fired(a) {
		t.Fatal("reset timer did not fire at its new deadline")
	}
	f.Set(epoch) // never backwards
	if got := f.Now(); !got.Equal(epoch.Add(time.Minute + time.Hour)) {
		t.Fatalf("Set moved the clock backwards to %v", got)
	}
}

// TestFakeStep: a step moves the wall clock only; Elapsed and the time
// left on armed timers stay, as with the runtime's monotonic clock.
func TestFakeStep(t *testing.T) {
	tests := []struct {
		name string
		step time.Duration
	}{
		{"back", -time.Hour},
		{"forward", 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFake(epoch)
			var m Monotonic = f
			a := f.NewTimer(time.Minute)
			f.Advance(30 * time.Second)
			f.Step(tt.step)
			if got, want := f.Now(), epoch.Add(30*time.Second+tt.step); !got.Equal(want) {
				t.Fatalf("Now = %v, want %v", got, want)
			}
			if m.Elapsed() != 30*time.Second {
				t.Fatalf("Elapsed = %v, want 30s", m.Elapsed())
			}
			f.Advance(29 * time.Second)
			if fired(a) {
				t.Fatal("timer fired before its minute had passed")
			}
			f.Advance(time.Second)
			if !fired(a) {
				t.Fatal("timer did not fire after its minute")
			}
			if m.Elapsed() != time.Minute {
				t.Fatalf("Elapsed = %v, want 1m", m.Elapsed())
			}
		})
	}
}
