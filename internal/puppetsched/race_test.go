//go:build race

package puppetsched

// raceEnabled shortens the second-by-second property test under the race
// detector, which slows Match tenfold without adding coverage to it.
const raceEnabled = true
