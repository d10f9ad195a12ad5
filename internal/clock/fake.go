package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a manually advanced clock for tests. Timers fire when Advance or Set
// moves the time to or past their deadline. The zero value is not usable; use NewFake.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	mono   time.Duration // Elapsed: moved by Advance and Set, not by Step
	timers []*fakeTimer
}

// NewFake returns a Fake clock reading now.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires when the fake time reaches Now()+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	t.deadline = f.now.Add(d)
	t.active = true
	f.timers = append(f.timers, t)
	f.fireLocked()
	return t
}

// Advance moves the time forward by d and fires due timers in deadline order.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.mono += d
	f.fireLocked()
}

// Step moves the wall clock by d (either way) without time passing, as
// NTP stepping the clock does: Elapsed does not change, and armed timers
// keep the time left on them (their deadlines move with the clock), as
// the runtime's monotonic timers do.
func (f *Fake) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	for _, t := range f.timers {
		t.deadline = t.deadline.Add(d)
	}
}

// Elapsed implements Monotonic: the time Advance and Set have moved.
func (f *Fake) Elapsed() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mono
}

// Set moves the time to t (never backwards) and fires due timers.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.mono += t.Sub(f.now)
		f.now = t
	}
	f.fireLocked()
}

// PendingTimers reports how many timers are armed; tests use it to wait until a
// goroutine under test has gone back to sleep.
func (f *Fake) PendingTimers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, t := range f.timers {
		if t.active {
			n++
		}
	}
	return n
}

// NextDeadline returns the earliest armed timer deadline, if any.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var best time.Time
	ok := false
	for _, t := range f.timers {
		if t.active && (!ok || t.deadline.Before(best)) {
			best, ok = t.deadline, true
		}
	}
	return best, ok
}

func (f *Fake) fireLocked() {
	slices.SortStableFunc(f.timers, func(a, b *fakeTimer) int { return a.deadline.Compare(b.deadline) })
	kept := f.timers[:0]
	for _, t := range f.timers {
		if !t.active {
			continue
		}
		if !t.deadline.After(f.now) {
			t.active = false
			select {
			case t.c <- f.now:
			default:
			}
			continue
		}
		kept = append(kept, t)
	}
	f.timers = kept
}

type fakeTimer struct {
	f        *Fake
	c        chan time.Time
	deadline time.Time
	active   bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	was := t.active
	t.deadline = t.f.now.Add(d)
	t.active = true
	listed := false
	for _, o := range t.f.timers {
		listed = listed || o == t
	}
	if !listed {
		t.f.timers = append(t.f.timers, t)
	}
	t.f.fireLocked()
	return was
}
