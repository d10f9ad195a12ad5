// Package durationtext writes how long something took in the one format
// the web UI, the CLI and the docs share: milliseconds under a second
// ("24ms"), tenths of a second under ten seconds unless whole ("1.5s",
// "2s"), then whole seconds, minutes and seconds, hours and minutes, days
// and hours ("12s", "3m 5s", "2h 10m", "1d 4h").
package durationtext

import (
	"fmt"
	"time"
)

// Format writes d (its absolute value) in the shared format.
func Format(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	d = d.Round(time.Millisecond)
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d < 10*time.Second && d%time.Second >= 50*time.Millisecond && d%time.Second < 950*time.Millisecond:
		return fmt.Sprintf("%.1fs", float64(d.Round(100*time.Millisecond))/float64(time.Second))
	}
	d = d.Round(time.Second)
	days, h, m, s := int(d/(24*time.Hour)), int(d/time.Hour)%24, int(d/time.Minute)%60, int(d/time.Second)%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, h)
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}
