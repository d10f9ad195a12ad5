//go:build !race

package puppetsched

const raceEnabled = false
