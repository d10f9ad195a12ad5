//go:build race

package importer_test

// raceEnabled is set under the race detector, whose instrumentation (and
// sync.Pool, which drops items at random) multiplies allocations: the
// allocation bounds of the adversarial-input tests are then checked ten
// times looser.
const raceEnabled = true
