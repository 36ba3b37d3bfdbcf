//go:build !race

package retention

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
