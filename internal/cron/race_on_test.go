//go:build race

package cron

// raceEnabled is set when tests run under the race detector, which slows the
// exhaustive tz-database walks down about fivefold; they then sample zones.
const raceEnabled = true
