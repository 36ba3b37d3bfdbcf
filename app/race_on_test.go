//go:build race

package app

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = true
