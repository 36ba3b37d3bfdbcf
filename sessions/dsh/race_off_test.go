//go:build !race

package dsh

const raceEnabled = false
