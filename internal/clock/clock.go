// Package clock provides the time source for production code. It is the only
// place that reads the wall clock; everything else receives a Clock so tests can
// substitute a Fake and move time by hand.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current instant.
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
}

// Timer is the subset of *time.Timer that the schedulers use.
type Timer interface {
	// C delivers the firing time.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was active.
	Stop() bool
	// Reset changes the timer to fire after d; it reports whether it was active.
	Reset(d time.Duration) bool
}

// Monotonic is a Clock that also reads time that never steps: how much
// has elapsed since an arbitrary origin, whatever happens to the wall clock
// meanwhile (NTP stepping it, `date -s`, a fixed RTC). Comparing the two
// between readings tells a wall-clock step from time passing.
type Monotonic interface {
	Elapsed() time.Duration
}

// origin is Real's monotonic origin.
var origin = time.Now()

// Real is the system clock.
type Real struct{}

// Elapsed implements Monotonic with the process's monotonic clock.
func (Real) Elapsed() time.Duration { return time.Since(origin) }

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
